import Crypto
import CryptoExtras
import Foundation

/// Password hashes with scrypt (RFC 7914), written as PHC strings
/// (`$scrypt$ln=15,r=8,p=1$<salt>$<hash>`, base64 without padding) so that each hash keeps
/// its own parameters: raising them later affects new hashes, and old ones still verify.
public struct PasswordHasher: Sendable {
    /// log2 of scrypt's N (CPU and memory cost).
    public let logRounds: Int
    /// scrypt's r (block size).
    public let blockSize: Int
    /// scrypt's p (parallelism).
    public let parallelism: Int

    /// N = 2^15, r = 8, p = 1: 32 MiB and tens of milliseconds per hash, OWASP's scrypt
    /// baseline for interactive sign-in.
    public static let standard = PasswordHasher(logRounds: 15, blockSize: 8, parallelism: 1)

    public init(logRounds: Int, blockSize: Int, parallelism: Int) {
        self.logRounds = logRounds
        self.blockSize = blockSize
        self.parallelism = parallelism
    }

    /// The PHC string of `password` with a fresh 16-byte `salt`.
    public func hash(_ password: String, salt: [UInt8]) throws -> String {
        let derived = try Self.derive(password, salt: salt, logRounds: logRounds, blockSize: blockSize, parallelism: parallelism)
        return "$scrypt$ln=\(logRounds),r=\(blockSize),p=\(parallelism)$\(Self.base64(salt))$\(Self.base64(derived))"
    }

    /// Whether `encoded` is not this hasher's own form with its parameters: a hash that
    /// signs someone in is then hashed again, so imported and older hashes go away.
    public func needsRehash(_ encoded: String) -> Bool {
        !encoded.hasPrefix("$scrypt$ln=\(logRounds),r=\(blockSize),p=\(parallelism)$")
    }

    /// Whether `password` matches `encoded`, with the parameters `encoded` names: an scrypt
    /// hash, or one of the forms another identity server exports (``ImportedPasswordHash``).
    /// A hash this build cannot read, or whose parameters are outside sane bounds, matches
    /// nothing.
    public static func verify(_ password: String, against encoded: String) -> Bool {
        guard encoded.hasPrefix("$scrypt$") else { return ImportedPasswordHash.verify(password, against: encoded) }
        let parts = encoded.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "scrypt",
            let parameters = Self.parameters(parts[2]),
            let salt = ImportedPasswordHash.base64(parts[3]), let expected = ImportedPasswordHash.base64(parts[4]),
            !salt.isEmpty, expected.count >= 16,
            let derived = try? derive(
                password, salt: Array(salt), logRounds: parameters.ln, blockSize: parameters.r, parallelism: parameters.p, length: expected.count
            )
        else { return false }
        return ImportedPasswordHash.constantTimeEqual(derived, expected)
    }

    private static func derive(_ password: String, salt: [UInt8], logRounds: Int, blockSize: Int, parallelism: Int, length: Int = 32) throws -> [UInt8] {
        let key = try KDF.Scrypt.deriveKey(
            from: Array(password.utf8), salt: salt, outputByteCount: length, rounds: 1 << logRounds, blockSize: blockSize, parallelism: parallelism,
            // scrypt needs 128·r·N bytes (and 128·r·p); room above that for BoringSSL's bookkeeping.
            maxMemory: 128 * blockSize * ((1 << logRounds) + parallelism) + 1 << 20
        )
        return key.withUnsafeBytes { Array($0) }
    }

    /// `ln=…,r=…,p=…`, within bounds a stored hash may ask for (at most 2^20 rounds and 1 GiB).
    private static func parameters(_ text: Substring) -> (ln: Int, r: Int, p: Int)? {
        var values: [Substring: Int] = [:]
        for pair in text.split(separator: ",") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            guard kv.count == 2, let value = Int(kv[1]) else { return nil }
            values[kv[0]] = value
        }
        // Kratos writes `ln` as N itself (`ln=16384`) where the PHC form has its log2; an N
        // is a power of two above any log2 allowed here, so the two cannot be confused.
        if let n = values["ln"], n > 20, n & (n - 1) == 0 { values["ln"] = n.trailingZeroBitCount }
        guard let ln = values["ln"], let r = values["r"], let p = values["p"], values.count == 3,
            (1...20).contains(ln), (1...32).contains(r), (1...16).contains(p), 128 * r * (1 << ln) <= 1 << 30
        else { return nil }
        return (ln, r, p)
    }

    /// Base64 without padding, as PHC strings write salts and keys.
    static func base64(_ bytes: [UInt8]) -> String {
        var text = Data(bytes).base64EncodedString()
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }
}
