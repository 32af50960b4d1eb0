#if canImport(CCrypt)
import CCrypt
#endif
import Crypto
import CryptoExtras
import Foundation

/// Password hashes other identity servers wrote, in the PHC-style forms they export
/// (Kratos's `hashed_password`, Auth0's `password_hash`, Keycloak's PBKDF2 and Argon2 rewritten in
/// that form by the importer). An imported account signs in with one until its first sign-in
/// stores Latchkey's own hash (``PasswordHasher``) in its place.
public enum ImportedPasswordHash {
    /// The forms this build verifies.
    public enum Scheme: String, Sendable, CaseIterable {
        /// `$2a$`, `$2b$`, `$2y$`: bcrypt, cost 4 to 14.
        case bcrypt
        /// `$pbkdf2-sha1$`, `-sha256$`, `-sha512$` with `i=<rounds>,l=<length>` (Kratos reads
        /// `-sha224` and `-sha384` as SHA-3, so those are left out).
        case pbkdf2
        /// `$scrypt$ln=…,r=…,p=…`: scrypt, Latchkey's own form with other parameters, or
        /// Kratos's, whose `ln` is N itself.
        case scrypt
        /// `$argon2id$`, `$argon2i$`, `$argon2d$` with `v=19` or `v=16` and `m=…,t=…,p=…`,
        /// verified by libargon2 where the machine has it (``Argon2Library``).
        case argon2
    }

    /// The scheme of `encoded`, when this build verifies it, or `nil`.
    public static func scheme(of encoded: String) -> Scheme? {
        if bcryptSetting(encoded) != nil { return .bcrypt }
        if PBKDF2Hash(encoded) != nil { return .pbkdf2 }
        if encoded.hasPrefix("$scrypt$") { return .scrypt }
        if Argon2Hash(encoded) != nil { return .argon2 }
        return nil
    }

    /// Whether `password` matches `encoded`; a form this build cannot read matches nothing.
    static func verify(_ password: String, against encoded: String) -> Bool {
        switch scheme(of: encoded) {
        case .bcrypt: return verifyBcrypt(password, encoded)
        case .pbkdf2: return PBKDF2Hash(encoded)?.matches(password) ?? false
        case .argon2: return Argon2Hash(encoded)?.matches(password) ?? false
        case .scrypt, nil: return false
        }
    }

    // MARK: - bcrypt

    /// The cost of a bcrypt hash this build verifies; 2^14 rounds take about a second, and
    /// a file asking for more would let one sign-in attempt hold a hashing thread for minutes.
    static let bcryptCosts = 4...14

    /// `encoded` when it is a bcrypt hash of a cost in ``bcryptCosts``: `$2x$NN$` and 53
    /// characters of salt and hash in bcrypt's base64.
    private static func bcryptSetting(_ encoded: String) -> String? {
        let bytes = Array(encoded.utf8)
        guard bytes.count == 60, bytes[0] == UInt8(ascii: "$"), bytes[1] == UInt8(ascii: "2"), [UInt8(ascii: "a"), UInt8(ascii: "b"), UInt8(ascii: "y")].contains(bytes[2]),
            bytes[3] == UInt8(ascii: "$"), bytes[6] == UInt8(ascii: "$"),
            let cost = Int(String(decoding: bytes[4..<6], as: UTF8.self)), bcryptCosts.contains(cost),
            bytes[7...].allSatisfy({ $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "/") || (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) })
        else { return nil }
        return encoded
    }

    /// bcrypt through libxcrypt's `crypt_r`: swift-crypto has no bcrypt, and libxcrypt (the
    /// C library's `crypt`) implements it on every Linux; a Blowfish written here would be
    /// new code to trust with people's passwords.
    private static func verifyBcrypt(_ password: String, _ encoded: String) -> Bool {
        // bcrypt reads at most 72 bytes, and a NUL would end the password early.
        guard !password.utf8.contains(0) else { return false }
        #if canImport(CCrypt)
        let data = UnsafeMutablePointer<crypt_data>.allocate(capacity: 1)
        defer { data.deallocate() }
        memset(data, 0, MemoryLayout<crypt_data>.size)
        guard let result = crypt_r(password, encoded, data) else { return false }
        return constantTimeEqual(Array(String(cString: result).utf8), Array(encoded.utf8))
        #else
        return false
        #endif
    }

    // MARK: - PBKDF2

    /// `$pbkdf2-<hash>$i=<rounds>,l=<length>$<salt>$<key>`, salt and key in base64 (either
    /// alphabet, padded or not), as Kratos and passlib write it.
    private struct PBKDF2Hash {
        let function: KDF.Insecure.PBKDF2.HashFunction
        let rounds: Int
        let salt: [UInt8]
        let key: [UInt8]

        init?(_ encoded: String) {
            let parts = encoded.split(separator: "$", omittingEmptySubsequences: false)
            guard parts.count == 5, parts[0].isEmpty else { return nil }
            switch parts[1] {
            case "pbkdf2-sha1", "pbkdf2": function = .insecureSHA1
            case "pbkdf2-sha256": function = .sha256
            case "pbkdf2-sha512": function = .sha512
            default: return nil
            }
            var values: [Substring: Int] = [:]
            for pair in parts[2].split(separator: ",") {
                let kv = pair.split(separator: "=", maxSplits: 1)
                guard kv.count == 2, let value = Int(kv[1]) else { return nil }
                values[kv[0]] = value
            }
            // Auth0 leaves `i` out for its default; `l` is the key's length, which the key
            // itself says (Kratos reads it the same way). Rounds are bounded so that a hostile
            // file cannot make one attempt cost minutes.
            let rounds = values["i"] ?? 100_000
            guard (1...10_000_000).contains(rounds),
                let salt = ImportedPasswordHash.base64(parts[3]), !salt.isEmpty,
                let key = ImportedPasswordHash.base64(parts[4]), (16...64).contains(key.count)
            else { return nil }
            self.rounds = rounds
            self.salt = salt
            self.key = key
        }

        func matches(_ password: String) -> Bool {
            guard let derived = try? KDF.Insecure.PBKDF2.deriveKey(
                from: Array(password.utf8), salt: salt, using: function, outputByteCount: key.count, unsafeUncheckedRounds: rounds
            ) else { return false }
            return constantTimeEqual(derived.withUnsafeBytes { Array($0) }, key)
        }
    }

    // MARK: - Argon2

    /// Whether this machine can verify `encoded`: every form but Argon2 always, Argon2 where
    /// libargon2 is installed. An importer refuses a record it cannot verify, rather than
    /// dropping the password, so that the import can run again once the library is there.
    public static func canVerify(_ encoded: String) -> Bool {
        scheme(of: encoded) != .argon2 || Argon2Library.isAvailable
    }

    /// What to install so that Argon2 hashes verify.
    public static var argon2Requirement: String { Argon2Library.installHint }

    /// `$argon2<variant>$v=<version>$m=<KiB>,t=<passes>,p=<lanes>$<salt>$<hash>` (RFC 9106's
    /// PHC form, as Kratos, Auth0 and argon2-cffi write it; without `v`, version 1.0).
    private struct Argon2Hash {
        let variant: Argon2Library.Variant
        let version: UInt32
        let memoryKiB: UInt32
        let iterations: UInt32
        let parallelism: UInt32
        let salt: [UInt8]
        let key: [UInt8]

        /// Bounds that let every hash a server writes in practice through (Kratos's default is
        /// 128 MiB) while a hostile file cannot make one attempt take gigabytes or minutes.
        static let memoryKiB: ClosedRange<UInt32> = 8...(1 << 20)
        static let iterations: ClosedRange<UInt32> = 1...64
        static let parallelism: ClosedRange<UInt32> = 1...64

        init?(_ encoded: String) {
            var parts = encoded.split(separator: "$", omittingEmptySubsequences: false)
            guard parts.count == 5 || parts.count == 6, parts[0].isEmpty else { return nil }
            switch parts[1] {
            case "argon2id": variant = .id
            case "argon2i": variant = .i
            case "argon2d": variant = .d
            default: return nil
            }
            if parts.count == 6 {
                guard parts[2].hasPrefix("v="), let version = UInt32(parts[2].dropFirst(2)), version == 0x10 || version == 0x13 else { return nil }
                self.version = version
                parts.remove(at: 2)
            } else {
                version = 0x10
            }
            var values: [Substring: UInt32] = [:]
            for pair in parts[2].split(separator: ",") {
                let kv = pair.split(separator: "=", maxSplits: 1)
                guard kv.count == 2, let value = UInt32(kv[1]) else { return nil }
                values[kv[0]] = value
            }
            guard let memory = values["m"], let iterations = values["t"], let parallelism = values["p"],
                Self.memoryKiB.contains(memory), Self.iterations.contains(iterations), Self.parallelism.contains(parallelism),
                memory >= 8 * parallelism,
                let salt = ImportedPasswordHash.base64(parts[3]), (8...64).contains(salt.count),
                let key = ImportedPasswordHash.base64(parts[4]), (16...64).contains(key.count)
            else { return nil }
            self.memoryKiB = memory
            self.iterations = iterations
            self.parallelism = parallelism
            self.salt = salt
            self.key = key
        }

        func matches(_ password: String) -> Bool {
            guard let derived = Argon2Library.derive(
                Array(password.utf8), salt: salt, variant: variant, version: version, iterations: iterations, memoryKiB: memoryKiB,
                parallelism: parallelism, length: key.count
            ) else { return false }
            return constantTimeEqual(derived, key)
        }
    }

    /// Base64 in either alphabet, with or without padding.
    static func base64(_ text: Substring) -> [UInt8]? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.hasSuffix("=") { standard.removeLast() }
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return Data(base64Encoded: standard).map(Array.init)
    }

    /// Equality whose time does not tell how many leading bytes matched.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }
}
