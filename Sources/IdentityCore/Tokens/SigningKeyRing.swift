import Crypto
public import Foundation
import Synchronization
public import LatchkeyWire
import WebAuthn

/// The token signing keys: the newest unretired key signs; retired keys stay published
/// until every token they signed has expired. Keys live in the store, so every instance
/// signs with the same key and a restart keeps issued tokens valid.
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
        /// The key that signs, parsed.
        var active: ActiveSigningKey?
        /// Public keys that verify, by key ID.
        var publicKeys: [String: P256.Signing.PublicKey] = [:]
        var loadedAt: Date?
    }

    private let loaded = Mutex(Loaded())

    /// Creates the ring.
    public init(store: any SigningKeyStore, clock: any WallClock, random: any RandomSource, publicationGrace: TimeInterval, refreshInterval: TimeInterval = 60) {
        self.store = store
        self.clock = clock
        self.random = random
        self.publicationGrace = publicationGrace
        self.refreshInterval = refreshInterval
    }

    /// Makes sure a signing key exists, creating the first one on first start.
    public func prepare() async throws {
        try await reload()
        if loaded.withLock({ $0.records.first(where: { $0.retiredAt == nil }) }) == nil {
            // Only if no other instance created one meanwhile: otherwise instances starting
            // together would each retire the other's key and sign with different keys.
            _ = try await store.addFirstSigningKey(newKey())
            try await reload()
        }
    }

    /// Adds a new signing key; the previous one is retired but stays published.
    @discardableResult
    public func rotate() async throws -> String {
        let key = newKey()
        try await store.addSigningKey(key, at: clock.now())
        try await reload()
        return key.keyID
    }

    private func newKey() -> SigningKeyRecord {
        SigningKeyRecord(
            keyID: Base64URL.encode(random.bytes(12)),
            privateKey: Array(P256.Signing.PrivateKey().rawRepresentation),
            createdAt: clock.now(),
            retiredAt: nil
        )
    }

    /// The key to sign with.
    func activeKey() async throws -> ActiveSigningKey {
        if let active = loaded.withLock({ isFresh($0) ? $0.active : nil }) { return active }
        try await reload()
        if let active = loaded.withLock({ $0.active }) { return active }
        try await prepare()
        guard let active = loaded.withLock({ $0.active }) else { throw IdentityError(.invalidRequest, "no token signing key could be loaded") }
        return active
    }

    /// The public key for `keyID`, re-reading the store once for a key not seen yet.
    func publicKey(keyID: String) async throws -> P256.Signing.PublicKey? {
        if let key = loaded.withLock({ $0.publicKeys[keyID] }) { return key }
        try await reload()
        return loaded.withLock { $0.publicKeys[keyID] }
    }

    /// The published keys.
    public func keySet() async throws -> JSONWebKeySet {
        if !loaded.withLock({ isFresh($0) }) { try await reload() }
        let now = clock.now()
        return loaded.withLock { state in
            let published = state.records.filter { record in
                guard let retired = record.retiredAt else { return true }
                return retired.addingTimeInterval(publicationGrace) > now
            }
            return JSONWebKeySet(keys: published.compactMap { record in
                state.publicKeys[record.keyID].map { JSONWebKey(keyID: record.keyID, publicKey: $0) }
            })
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
            if let key = try? P256.Signing.PrivateKey(rawRepresentation: record.privateKey) {
                next.publicKeys[record.keyID] = key.publicKey
            }
        }
        if let signing = records.first(where: { $0.retiredAt == nil }) ?? records.first,
            let key = try? P256.Signing.PrivateKey(rawRepresentation: signing.privateKey)
        {
            next.active = ActiveSigningKey(keyID: signing.keyID, key: key)
        }
        loaded.withLock { $0 = next }
    }
}

/// The signing key, parsed, with the JOSE headers that name it encoded once.
struct ActiveSigningKey: Sendable {
    let keyID: String
    let key: P256.Signing.PrivateKey
    /// The base64url header of ID tokens (`typ: JWT`).
    let idTokenHeader: String
    /// The base64url header of access tokens (`typ: at+jwt`, RFC 9068).
    let accessTokenHeader: String

    init(keyID: String, key: P256.Signing.PrivateKey) {
        self.keyID = keyID
        self.key = key
        idTokenHeader = JSONWebSignature.encodedHeader(keyID: keyID, type: "JWT")
        accessTokenHeader = JSONWebSignature.encodedHeader(keyID: keyID, type: "at+jwt")
    }
}
