import Foundation
import IdentityCore
import Testing

// Instance-wide state: signing keys, the audit log, secrets.
extension StorageContract {
    /// Adding a key retires every unretired key at that time; keys list newest first.
    static func signingKeyRotation(_ storage: any IdentityStorage) async throws {
        #expect(try await storage.signingKeys() == [])
        let first = SigningKeyRecord(keyID: "k1", privateKey: [0x00, 0x01, 0xFF], createdAt: StorageFixtures.time(0), retiredAt: nil)
        try await storage.addSigningKey(first, at: StorageFixtures.time(0))
        #expect(try await storage.signingKeys() == [first], "a key does not retire itself")

        let second = SigningKeyRecord(keyID: "k2", privateKey: [0x02], createdAt: StorageFixtures.time(100), retiredAt: nil)
        try await storage.addSigningKey(second, at: StorageFixtures.time(100))
        let third = SigningKeyRecord(keyID: "k3", privateKey: [0x03], createdAt: StorageFixtures.time(200), retiredAt: nil)
        try await storage.addSigningKey(third, at: StorageFixtures.time(200))

        let retiredFirst = SigningKeyRecord(keyID: "k1", privateKey: first.privateKey, createdAt: first.createdAt, retiredAt: StorageFixtures.time(100))
        let retiredSecond = SigningKeyRecord(keyID: "k2", privateKey: second.privateKey, createdAt: second.createdAt, retiredAt: StorageFixtures.time(200))
        #expect(try await storage.signingKeys() == [third, retiredSecond, retiredFirst], "a retired key keeps its first retirement time")
        #expect(try await storage.signingKeys().filter { $0.retiredAt == nil }.map(\.keyID) == ["k3"], "exactly one key signs")

        await #expect(throws: (any Error).self, "a duplicate key ID") {
            try await storage.addSigningKey(SigningKeyRecord(keyID: "k1", privateKey: [0x09], createdAt: StorageFixtures.time(300), retiredAt: nil), at: StorageFixtures.time(300))
        }
        #expect(try await storage.signingKeys().filter { $0.retiredAt == nil }.map(\.keyID) == ["k3"], "a failed add retires nothing")

        // Each algorithm's keys rotate on their own, and a first key is first for its algorithm.
        let rsa = SigningKeyRecord(keyID: "r1", privateKey: [0x30, 0x82, 0x01], createdAt: StorageFixtures.time(300), retiredAt: nil, algorithm: .rs256)
        #expect(try await storage.addFirstSigningKey(rsa), "the first RS256 key, beside an ES256 one")
        #expect(try await storage.addFirstSigningKey(SigningKeyRecord(keyID: "r0", privateKey: [1], createdAt: StorageFixtures.time(301), retiredAt: nil, algorithm: .rs256)) == false)
        #expect(try await storage.addFirstSigningKey(SigningKeyRecord(keyID: "p1", privateKey: [2], createdAt: StorageFixtures.time(302), retiredAt: nil, algorithm: .ps256)))
        let rsa2 = SigningKeyRecord(keyID: "r2", privateKey: [0x30, 0x82, 0x02], createdAt: StorageFixtures.time(400), retiredAt: nil, algorithm: .rs256)
        try await storage.addSigningKey(rsa2, at: StorageFixtures.time(400))
        let live = try await storage.signingKeys().filter { $0.retiredAt == nil }
        #expect(Set(live.map(\.keyID)) == ["k3", "r2", "p1"], "one live key per algorithm: \(live.map(\.keyID))")
        #expect(try await storage.signingKeys().first { $0.keyID == "r1" } == rsa.retired(at: StorageFixtures.time(400)), "the algorithm is kept")
    }

    /// Events come newest first, filtered by user and limited.
    static func auditEvents(_ storage: any IdentityStorage) async throws {
        let alice = UserID(rawValue: "user-alice")
        let bob = UserID(rawValue: "user-bob")
        let events = [
            AuditEvent(time: StorageFixtures.time(1), kind: .signup, userID: alice, clientID: "client-a", credentialID: "AAE", detail: "first", origin: nil),
            AuditEvent(time: StorageFixtures.time(2), kind: .loginFailed, clientID: "client-a", detail: "unknown credential", origin: nil),
            AuditEvent(time: StorageFixtures.time(3), kind: .login, userID: bob, origin: nil),
            AuditEvent(time: StorageFixtures.time(4), kind: .refreshTokenReused, userID: alice, clientID: "client-b", origin: nil),
            AuditEvent(time: StorageFixtures.time(4), kind: .tokensRevoked, userID: alice, clientID: "client-b", origin: nil),
        ]
        for event in events {
            try await storage.record(event)
        }
        #expect(try await storage.events(userID: nil, limit: 100) == events.reversed(), "newest first; equal times by insertion")
        #expect(try await storage.events(userID: alice, limit: 100) == [events[4], events[3], events[0]])
        #expect(try await storage.events(userID: nil, limit: 2) == [events[4], events[3]])
        #expect(try await storage.events(userID: bob, limit: 1) == [events[2]])
        #expect(try await storage.events(userID: UserID(rawValue: "user-nobody"), limit: 10) == [])
        #expect(try await storage.events(userID: nil, limit: 0) == [])

        for kind in AuditEvent.Kind.allCases {
            try await storage.record(AuditEvent(time: StorageFixtures.time(10), kind: kind, userID: UserID(rawValue: "user-kinds"), origin: nil))
        }
        let kinds = try await storage.events(userID: UserID(rawValue: "user-kinds"), limit: 100).map(\.kind)
        #expect(Set(kinds) == Set(AuditEvent.Kind.allCases), "every kind round-trips")
    }

    /// The first value stored under a name wins.
    static func secrets(_ storage: any IdentityStorage) async throws {
        #expect(try await storage.secret(named: "decoy", orStore: [0x00, 0x01]) == [0x00, 0x01])
        #expect(try await storage.secret(named: "decoy", orStore: [0x02]) == [0x00, 0x01])
        #expect(try await storage.secret(named: "other", orStore: Array(0...255)) == Array(0...255))
        #expect(try await storage.secret(named: "empty", orStore: []) == [])
        #expect(try await storage.secret(named: "empty", orStore: [0x05]) == [])
    }
}

extension StorageContract {
    /// Request counters count per key over a sliding window: the previous window still counts
    /// for the part of it the last `window` seconds cover.
    static func requestCounters(_ storage: any IdentityStorage) async throws {
        let start = StorageFixtures.time(600)
        #expect(try await storage.countRequest(key: "start:192.0.2.1", window: 60, at: start) == 1)
        #expect(try await storage.countRequest(key: "start:192.0.2.1", window: 60, at: start.addingTimeInterval(1)) == 2)
        #expect(try await storage.countRequest(key: "start:192.0.2.2", window: 60, at: start.addingTimeInterval(1)) == 1, "keys count apart")
        // A minute later the earlier requests still count for the part of their window the
        // last minute covers, however the windows fall.
        let later = try await storage.countRequest(key: "start:192.0.2.1", window: 60, at: start.addingTimeInterval(59))
        #expect((2...3).contains(later), "\(later)")
        #expect(try await storage.countRequest(key: "start:192.0.2.1", window: 60, at: start.addingTimeInterval(300)) == 1, "long quiet: a fresh count")
        // Adding nothing reads the count.
        #expect(try await storage.countRequests(key: "start:192.0.2.1", adding: 0, window: 60, at: start.addingTimeInterval(301)) == 1)
        #expect(try await storage.countRequests(key: "failure:192.0.2.9", adding: 0, window: 60, at: start.addingTimeInterval(301)) == 0)
        #expect(try await storage.countRequests(key: "failure:192.0.2.9", adding: 3, window: 60, at: start.addingTimeInterval(302)) == 3)
    }
}
