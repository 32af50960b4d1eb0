import Crypto
public import Foundation

/// Seals the keys a copy of the database must not hand out (the token signing keys and the
/// instance secrets: the ceremony seal, the login decoys) under a key-encryption key the
/// operator keeps outside the database (`secrets.key_encryption_key_file` or
/// `LATCHKEY_KEY_ENCRYPTION_KEY`). A sealed value is AES-256-GCM with the value's name as
/// associated data, so a sealed value moved to another row does not open, and it carries
/// the ID of the key that sealed it, so a wrong key is named rather than taken for damage:
///
///     "LKS1" | key ID (8 bytes) | nonce (12) | ciphertext | tag (16)
///
/// Stored secrets and P-256 keys are 32 bytes, and RSA keys PKCS#1 DER (which begins `30 82`),
/// so a sealed value is never mistaken for one that is not.
public struct KeyEncryption: Sendable {
    /// Why a sealed value could not be opened.
    public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// A value is sealed under another key.
        case wrongKey(sealedUnder: String, given: String)
        /// A value is sealed, and no key is configured.
        case noKey(sealedUnder: String)
        /// A value sealed under this key does not open: it was changed or moved.
        case damaged(name: String)

        public var description: String {
            switch self {
            case .wrongKey(let sealed, let given):
                return "the stored keys are sealed under key \(sealed), not under this key (\(given)); give the key they were sealed with, or rewrap them with `latchkey keys rewrap`"
            case .noKey(let sealed):
                return "the stored keys are sealed under key \(sealed), and no key-encryption key is configured; set secrets.key_encryption_key_file or LATCHKEY_KEY_ENCRYPTION_KEY"
            case .damaged(let name):
                return "the sealed value of \(name) does not open under this key: it was changed, or moved from another row"
            }
        }
    }

    private static let magic: [UInt8] = Array("LKS1".utf8)
    private let key: SymmetricKey
    /// The key's ID: the first 8 bytes of a SHA-256 of it, in hex. It names the key in
    /// errors and in sealed values without revealing it.
    public let keyID: String
    private let idBytes: [UInt8]

    /// `nil` unless `bytes` is exactly 32 bytes long.
    public init?(key bytes: [UInt8]) {
        guard bytes.count == 32 else { return nil }
        key = SymmetricKey(data: bytes)
        idBytes = Array(SHA256.hash(data: Array("latchkey-key-encryption-key".utf8) + bytes).prefix(8))
        keyID = UUIDText.hex(idBytes)
    }

    /// Reads a key as an operator writes one in a file or a variable: 32 bytes in base64
    /// (with or without padding, either alphabet) or in hex, surrounding whitespace ignored,
    /// or the 32 raw bytes themselves.
    public init?(text data: [UInt8]) {
        if data.count == 32, let key = Self(key: data) {
            self = key
            return
        }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.count == 64, let bytes = UUIDText.bytes(hex: text), let key = Self(key: bytes) {
            self = key
            return
        }
        let base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        let padded = base64 + String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let bytes = Data(base64Encoded: padded), let key = Self(key: Array(bytes)) else { return nil }
        self = key
    }

    /// Whether `stored` is a sealed value.
    public static func isSealed(_ stored: [UInt8]) -> Bool {
        stored.count > 32 + magic.count && Array(stored.prefix(magic.count)) == magic
    }

    /// The ID of the key that sealed `stored`, or `nil` when it is not sealed.
    public static func sealingKeyID(of stored: [UInt8]) -> String? {
        guard isSealed(stored) else { return nil }
        return UUIDText.hex(Array(stored[magic.count..<(magic.count + 8)]))
    }

    /// `value` sealed, bound to `name`.
    public func seal(_ value: [UInt8], name: String) throws -> [UInt8] {
        let box = try AES.GCM.seal(value, using: key, authenticating: Array(name.utf8))
        guard let combined = box.combined else { throw Failure.damaged(name: name) }
        return Self.magic + idBytes + Array(combined)
    }

    /// The value `stored` holds: opened when sealed, as it is when not.
    /// - Throws: ``Failure`` when it is sealed under another key, or does not open.
    public func open(_ stored: [UInt8], name: String) throws(Failure) -> [UInt8] {
        guard let sealedUnder = Self.sealingKeyID(of: stored) else { return stored }
        guard sealedUnder == keyID else { throw .wrongKey(sealedUnder: sealedUnder, given: keyID) }
        do {
            let box = try AES.GCM.SealedBox(combined: stored.dropFirst(Self.magic.count + 8))
            return Array(try AES.GCM.open(box, using: key, authenticating: Array(name.utf8)))
        } catch {
            throw .damaged(name: name)
        }
    }

    /// The value `stored` holds when no key is configured: it must not be sealed.
    public static func unsealed(_ stored: [UInt8]) throws(Failure) -> [UInt8] {
        if let sealedUnder = sealingKeyID(of: stored) { throw .noKey(sealedUnder: sealedUnder) }
        return stored
    }

    /// The value `stored` holds, opened under `key`, or checked to be unsealed when `key`
    /// is `nil`.
    public static func open(_ stored: [UInt8], under key: KeyEncryption?, name: String) throws(Failure) -> [UInt8] {
        guard let key else { return try unsealed(stored) }
        return try key.open(stored, name: name)
    }
}

/// The token signing keys and instance secrets, sealed on their way into the store and
/// opened on their way out when a key-encryption key is configured; checked to be unsealed
/// when none is. What the signing key ring and the instance secrets read and write.
public struct SealedKeyStore: SigningKeyStore, SecretStore {
    private let base: any SigningKeyStore & SecretStore
    private let encryption: KeyEncryption?

    /// Wraps `base`; `encryption` is `nil` when no key-encryption key is configured.
    public init(_ base: any SigningKeyStore & SecretStore, encryption: KeyEncryption?) {
        self.base = base
        self.encryption = encryption
    }

    static func signingKeyName(_ keyID: String) -> String { "signing-key:" + keyID }
    static func secretName(_ name: String) -> String { "secret:" + name }

    private func open(_ stored: [UInt8], name: String) throws -> [UInt8] {
        try KeyEncryption.open(stored, under: encryption, name: name)
    }

    private func seal(_ value: [UInt8], name: String) throws -> [UInt8] {
        try encryption?.seal(value, name: name) ?? value
    }

    public func signingKeys() async throws -> [SigningKeyRecord] {
        try await base.signingKeys().map { record in
            record.storing(try open(record.privateKey, name: Self.signingKeyName(record.keyID)))
        }
    }

    public func addSigningKey(_ key: SigningKeyRecord, at time: Date) async throws {
        try await base.addSigningKey(sealed(key), at: time)
    }

    public func addFirstSigningKey(_ key: SigningKeyRecord) async throws -> Bool {
        try await base.addFirstSigningKey(sealed(key))
    }

    public func replaceSigningKeyMaterial(keyID: String, with privateKey: [UInt8], replacing current: [UInt8]) async throws -> Bool {
        try await base.replaceSigningKeyMaterial(keyID: keyID, with: privateKey, replacing: current)
    }

    private func sealed(_ key: SigningKeyRecord) throws -> SigningKeyRecord {
        key.storing(try seal(key.privateKey, name: Self.signingKeyName(key.keyID)))
    }

    public func secret(named name: String, orStore candidate: [UInt8]) async throws -> [UInt8] {
        try open(try await base.secret(named: name, orStore: try seal(candidate, name: Self.secretName(name))), name: Self.secretName(name))
    }

    public func replaceSecret(named name: String, with value: [UInt8], replacing current: [UInt8]) async throws -> Bool {
        try await base.replaceSecret(named: name, with: value, replacing: current)
    }

    /// Seals, under `to` (or stores in the clear when `to` is `nil`), every signing key and
    /// secret of `base` that is not already so, opening each with `from` (or taking it as it
    /// is, when unsealed): at start-up with the configured key (`from` and `to` the same),
    /// and for `latchkey keys rewrap`. Each value is replaced only if it is still what was
    /// read, so instances starting together agree.
    /// - Parameter secretNames: The secrets to reseal (``InstanceSecrets/names``).
    /// - Returns: How many values were rewritten.
    @discardableResult
    public static func reseal(
        _ base: any SigningKeyStore & SecretStore, from: KeyEncryption?, to: KeyEncryption?, secretNames: [String], random: any RandomSource
    ) async throws -> Int {
        func rewrap(_ stored: [UInt8], name: String) throws -> [UInt8]? {
            let value = try KeyEncryption.open(stored, under: from, name: name)
            if let to, KeyEncryption.sealingKeyID(of: stored) == to.keyID { return nil }
            if to == nil, !KeyEncryption.isSealed(stored) { return nil }
            return try to?.seal(value, name: name) ?? value
        }
        var rewritten = 0
        for record in try await base.signingKeys() {
            guard let replacement = try rewrap(record.privateKey, name: signingKeyName(record.keyID)) else { continue }
            if try await base.replaceSigningKeyMaterial(keyID: record.keyID, with: replacement, replacing: record.privateKey) { rewritten += 1 }
        }
        for name in secretNames {
            // Creates the secret when it does not exist yet, as the first start would.
            let stored = try await base.secret(named: name, orStore: try to?.seal(random.bytes(32), name: secretName(name)) ?? random.bytes(32))
            guard let replacement = try rewrap(stored, name: secretName(name)) else { continue }
            if try await base.replaceSecret(named: name, with: replacement, replacing: stored) { rewritten += 1 }
        }
        return rewritten
    }
}
