import Crypto
public import Foundation
import WebAuthn

/// The token signing keys: the newest unretired key signs; retired keys stay published
/// until every token they signed has expired. Keys live in the store, so every instance
/// signs with the same key and a restart keeps issued tokens valid.
public actor SigningKeyRing {
    private let store: any SigningKeyStore
    private let clock: any WallClock
    private let random: any RandomSource
    /// How long a retired key stays published: the longest token lifetime.
    private let publicationGrace: TimeInterval
    /// How often keys are re-read, so that a rotation by another instance is picked up.
    private let refreshInterval: TimeInterval

    private var keys: [SigningKeyRecord] = []
    private var publicKeys: [String: P256.Signing.PublicKey] = [:]
    private var loadedAt: Date?

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
        if keys.first(where: { $0.retiredAt == nil }) == nil {
            try await rotate()
        }
    }

    /// Adds a new signing key; the previous one is retired but stays published.
    @discardableResult
    public func rotate() async throws -> String {
        let key = SigningKeyRecord(
            keyID: Base64URL.encode(random.bytes(12)),
            privateKey: Array(P256.Signing.PrivateKey().rawRepresentation),
            createdAt: clock.now(),
            retiredAt: nil
        )
        try await store.addSigningKey(key, at: clock.now())
        try await reload()
        return key.keyID
    }

    /// The key to sign with.
    func activeKey() async throws -> (keyID: String, key: P256.Signing.PrivateKey) {
        try await reloadIfStale()
        guard let record = keys.first(where: { $0.retiredAt == nil }) ?? keys.first else {
            try await prepare()
            return try await activeKey()
        }
        return (record.keyID, try P256.Signing.PrivateKey(rawRepresentation: record.privateKey))
    }

    /// The public key for `keyID`, re-reading the store once for a key not seen yet.
    func publicKey(keyID: String) async throws -> P256.Signing.PublicKey? {
        if let key = publicKeys[keyID] { return key }
        try await reload()
        return publicKeys[keyID]
    }

    /// The published keys.
    public func keySet() async throws -> JSONWebKeySet {
        try await reloadIfStale()
        let now = clock.now()
        let published = keys.filter { record in
            guard let retired = record.retiredAt else { return true }
            return retired.addingTimeInterval(publicationGrace) > now
        }
        return JSONWebKeySet(keys: published.compactMap { record in
            publicKeys[record.keyID].map { JSONWebKey(keyID: record.keyID, publicKey: $0) }
        })
    }

    private func reloadIfStale() async throws {
        if let loadedAt, clock.now().timeIntervalSince(loadedAt) < refreshInterval { return }
        try await reload()
    }

    private func reload() async throws {
        keys = try await store.signingKeys().sorted { $0.createdAt > $1.createdAt }
        let now = clock.now()
        publicKeys = [:]
        for record in keys {
            // Keys retired longer than the grace period verify nothing any more.
            if let retired = record.retiredAt, retired.addingTimeInterval(publicationGrace) <= now { continue }
            if let key = try? P256.Signing.PrivateKey(rawRepresentation: record.privateKey) {
                publicKeys[record.keyID] = key.publicKey
            }
        }
        loadedAt = now
    }
}
