import Crypto
public import Foundation
import Synchronization
public import LatchkeyWire
import WebAuthn

/// The token signing keys: for each algorithm (ES256, RS256, PS256) the newest unretired
/// key signs; retired keys stay published until every token they signed has expired. Keys
/// live in the store, so every instance signs with the same keys and a restart keeps issued
/// tokens valid. An algorithm's first key is made when it is first needed, so a server that
/// signs only ES256 never makes an RSA key.
///
/// Keys are parsed once per load and kept under a lock, not in an actor: signing is on the
/// path of every login, and a parsed private key saves deriving its public point each time.
public final class SigningKeyRing: Sendable {
    private let store: any SigningKeyStore
    private let clock: any WallClock
    private let random: any RandomSource
    /// How long a retired key stays published: the longest token lifetime.
    private let publicationGrace: TimeInterval
    /// How often keys are re-read, so that a rotation by another instance (or by
    /// `latchkey keys rotate`) is picked up: the bound on how long instances may sign with
    /// different keys.
    public let refreshInterval: TimeInterval

    /// The keys as last loaded.
    private struct Loaded: Sendable {
        /// Records, newest first.
        var records: [SigningKeyRecord] = []
        /// The key that signs, per algorithm, parsed.
        var active: [SigningAlgorithm: ActiveSigningKey] = [:]
        /// Public keys that verify, by key ID.
        var publicKeys: [String: SigningPublicKey] = [:]
        var loadedAt: Date?
    }

    private let loaded = Mutex(Loaded())

    /// `publicationGrace` is how long a retired key stays published: the longest token lifetime.
    public init(store: any SigningKeyStore, clock: any WallClock, random: any RandomSource, publicationGrace: TimeInterval, refreshInterval: TimeInterval = 60) {
        self.store = store
        self.clock = clock
        self.random = random
        self.publicationGrace = publicationGrace
        self.refreshInterval = refreshInterval
    }

    /// Makes sure a signing key of `algorithm` exists, creating the first one if none does.
    public func prepare(_ algorithm: SigningAlgorithm = .es256) async throws {
        try await reload()
        if loaded.withLock({ $0.records.first(where: { $0.retiredAt == nil && $0.algorithm == algorithm }) }) == nil {
            // Only if no other instance created one meanwhile: otherwise instances starting
            // together would each retire the other's key and sign with different keys.
            _ = try await store.addFirstSigningKey(try newKey(algorithm))
            try await reload()
        }
    }

    /// Adds a new signing key of `algorithm`; its previous one is retired but stays published.
    @discardableResult
    public func rotate(_ algorithm: SigningAlgorithm = .es256) async throws -> String {
        let key = try newKey(algorithm)
        try await store.addSigningKey(key, at: clock.now())
        try await reload()
        return key.keyID
    }

    private func newKey(_ algorithm: SigningAlgorithm) throws -> SigningKeyRecord {
        SigningKeyRecord(
            keyID: Base64URL.encode(random.bytes(12)), privateKey: try SigningPrivateKey.new(algorithm).stored, createdAt: clock.now(), retiredAt: nil,
            algorithm: algorithm
        )
    }

    /// The key to sign with for `algorithm`.
    func activeKey(_ algorithm: SigningAlgorithm = .es256) async throws -> ActiveSigningKey {
        if let active = loaded.withLock({ isFresh($0) ? $0.active[algorithm] : nil }) { return active }
        try await reload()
        if let active = loaded.withLock({ $0.active[algorithm] }) { return active }
        try await prepare(algorithm)
        guard let active = loaded.withLock({ $0.active[algorithm] }) else {
            throw IdentityError(.invalidRequest, "no \(algorithm.rawValue) token signing key could be loaded")
        }
        return active
    }

    /// The public key for `keyID`, re-reading the store once for a key not seen yet.
    func publicKey(keyID: String) async throws -> SigningPublicKey? {
        if let key = loaded.withLock({ $0.publicKeys[keyID] }) { return key }
        try await reload()
        return loaded.withLock { $0.publicKeys[keyID] }
    }

    /// The published keys, of every algorithm or of those `algorithms` names.
    public func keySet(algorithms: Set<SigningAlgorithm> = Set(SigningAlgorithm.allCases)) async throws -> JSONWebKeySet {
        if !loaded.withLock({ isFresh($0) }) { try await reload() }
        let now = clock.now()
        return loaded.withLock { state in
            let published = state.records.filter { record in
                guard algorithms.contains(record.algorithm) else { return false }
                guard let retired = record.retiredAt else { return true }
                return retired.addingTimeInterval(publicationGrace) > now
            }
            return JSONWebKeySet(keys: published.compactMap { record in state.publicKeys[record.keyID]?.jwk(keyID: record.keyID) })
        }
    }

    private func isFresh(_ state: Loaded) -> Bool {
        guard let loadedAt = state.loadedAt else { return false }
        return clock.now().timeIntervalSince(loadedAt) < refreshInterval
    }

    private func reload() async throws {
        let records = try await store.signingKeys().sorted { $0.createdAt > $1.createdAt }
        let now = clock.now()
        var next = Loaded(records: records, loadedAt: now)
        for record in records {
            // Keys retired longer than the grace period verify nothing any more.
            if let retired = record.retiredAt, retired.addingTimeInterval(publicationGrace) <= now { continue }
            // Parsed once: an RSA key's parse is the costly part of loading it.
            guard let key = try? SigningPrivateKey(stored: record.privateKey, algorithm: record.algorithm) else { continue }
            next.publicKeys[record.keyID] = key.publicKey
            if record.retiredAt == nil, next.active[record.algorithm] == nil {
                next.active[record.algorithm] = ActiveSigningKey(keyID: record.keyID, key: key)
            }
        }
        // A store whose keys of an algorithm are all retired still signs with its newest, while
        // that one is published; past that, none is active and a new one is made.
        for algorithm in SigningAlgorithm.allCases where next.active[algorithm] == nil {
            if let record = records.first(where: { $0.algorithm == algorithm && next.publicKeys[$0.keyID] != nil }),
                let key = try? SigningPrivateKey(stored: record.privateKey, algorithm: algorithm)
            {
                next.active[algorithm] = ActiveSigningKey(keyID: record.keyID, key: key)
            }
        }
        loaded.withLock { $0 = next }
    }
}

/// A signing key, parsed, with the JOSE headers that name it encoded once.
struct ActiveSigningKey: Sendable {
    let keyID: String
    let key: SigningPrivateKey
    /// The base64url header of ID tokens (`typ: JWT`).
    let idTokenHeader: String
    /// The base64url header of access tokens (`typ: at+jwt`, RFC 9068).
    let accessTokenHeader: String

    init(keyID: String, key: SigningPrivateKey) {
        self.keyID = keyID
        self.key = key
        idTokenHeader = JSONWebSignature.encodedHeader(keyID: keyID, type: "JWT", algorithm: key.algorithm)
        accessTokenHeader = JSONWebSignature.encodedHeader(keyID: keyID, type: "at+jwt", algorithm: key.algorithm)
    }
}
