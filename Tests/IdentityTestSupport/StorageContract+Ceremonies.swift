import IdentityCore
import Testing

extension StorageContract {
    /// A ceremony reads back equal, once.
    static func ceremonyRoundTrip(_ storage: any IdentityStorage) async throws {
        let signup = StorageFixtures.ceremony("signup", kind: .signup, pendingUser: StorageFixtures.user("alice", phoneNumber: "+15555550100"))
        let login = StorageFixtures.ceremony(
            "login", kind: .login,
            allowedCredentialIDs: [StorageFixtures.credentialID("a"), [], [0x00], Array(0...255)]
        )
        let enrollment = StorageFixtures.ceremony("enrollment", kind: .enrollment, userID: UserID(rawValue: "user-alice"))
        for ceremony in [signup, login, enrollment] {
            try await storage.saveCeremony(ceremony)
        }
        for ceremony in [signup, login, enrollment] {
            #expect(try await storage.consumeCeremony(id: ceremony.id, clientID: "client-a", at: StorageFixtures.time(1)) == ceremony)
            #expect(try await storage.consumeCeremony(id: ceremony.id, clientID: "client-a", at: StorageFixtures.time(2)) == nil, "single use")
        }
        #expect(try await storage.consumeCeremony(id: "unknown", clientID: "client-a", at: StorageFixtures.time(1)) == nil)
    }

    /// A client that did not start a ceremony can neither finish it nor spoil it.
    static func ceremonyOtherClientCannotConsume(_ storage: any IdentityStorage) async throws {
        let ceremony = StorageFixtures.ceremony("c1", clientID: "client-a")
        try await storage.saveCeremony(ceremony)
        #expect(try await storage.consumeCeremony(id: "c1", clientID: "client-b", at: StorageFixtures.time(1)) == nil)
        #expect(try await storage.consumeCeremony(id: "c1", clientID: "", at: StorageFixtures.time(1)) == nil)
        #expect(try await storage.consumeCeremony(id: "c1", clientID: "client-a", at: StorageFixtures.time(2)) == ceremony)
    }

    /// A ceremony is expired from its `expiresAt` on, and an expired one is not consumed.
    static func ceremonyExpiry(_ storage: any IdentityStorage) async throws {
        try await storage.saveCeremony(StorageFixtures.ceremony("early", expiresIn: 300))
        try await storage.saveCeremony(StorageFixtures.ceremony("late", expiresIn: 300))
        #expect(try await storage.consumeCeremony(id: "early", clientID: "client-a", at: StorageFixtures.time(300)) == nil, "at expiresAt")
        #expect(try await storage.consumeCeremony(id: "early", clientID: "client-a", at: StorageFixtures.time(299)) != nil, "not consumed when expired")
        #expect(try await storage.consumeCeremony(id: "late", clientID: "client-a", at: StorageFixtures.time(301)) == nil)
        #expect(try await storage.consumeCeremony(id: "late", clientID: "client-a", at: StorageFixtures.time(299.5)) != nil)
    }

    /// Purging deletes what expired before the time given, consumed or not, and keeps the rest.
    static func purgeCeremonies(_ storage: any IdentityStorage) async throws {
        try await storage.saveCeremony(StorageFixtures.ceremony("old", expiresIn: 100))
        try await storage.saveCeremony(StorageFixtures.ceremony("old-consumed", expiresIn: 100))
        try await storage.saveCeremony(StorageFixtures.ceremony("boundary", expiresIn: 200))
        try await storage.saveCeremony(StorageFixtures.ceremony("fresh", expiresIn: 300))
        _ = try await storage.consumeCeremony(id: "old-consumed", clientID: "client-a", at: StorageFixtures.time(1))

        try await storage.purgeCeremonies(expiredBefore: StorageFixtures.time(200))

        // Consuming at an earlier time shows what is still stored.
        #expect(try await storage.consumeCeremony(id: "old", clientID: "client-a", at: StorageFixtures.time(1)) == nil)
        #expect(try await storage.consumeCeremony(id: "boundary", clientID: "client-a", at: StorageFixtures.time(1)) != nil, "expires at, not before, the purge time")
        #expect(try await storage.consumeCeremony(id: "fresh", clientID: "client-a", at: StorageFixtures.time(1)) != nil)
        // The ID of a purged ceremony can be used again.
        try await storage.saveCeremony(StorageFixtures.ceremony("old-consumed", expiresIn: 500))
    }
}
