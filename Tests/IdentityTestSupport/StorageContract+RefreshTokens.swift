import IdentityCore
import Testing

extension StorageContract {
    /// A current token rotates into a replacement of the same session, which rotates in turn.
    static func refreshTokenRotation(_ storage: any IdentityStorage) async throws {
        let (alice, _) = try await signUp("alice", on: storage)
        let first = StorageFixtures.refreshToken("t1", familyID: "family-1", userID: alice.id)
        try await storage.saveRefreshToken(first)
        #expect(try await storage.isSessionActive(familyID: "family-1", userID: alice.id))

        let outcome = try await storage.rotateRefreshToken(
            hash: first.tokenHash, clientID: "client-a", newHash: StorageFixtures.tokenHash("t2"),
            newExpiresAt: StorageFixtures.time(7200), at: StorageFixtures.time(60)
        )
        #expect(outcome == .rotated(previous: first))

        // The replacement copies the session (family, user, client, scopes, audience,
        // authentication) with its own hash and lifetime.
        let second = RefreshTokenRecord(
            tokenHash: StorageFixtures.tokenHash("t2"), familyID: "family-1", userID: alice.id, clientID: "client-a",
            scopes: first.scopes, audience: first.audience, authenticatedAt: first.authenticatedAt,
            userVerified: first.userVerified, issuedAt: StorageFixtures.time(60), expiresAt: StorageFixtures.time(7200)
        )
        let next = try await storage.rotateRefreshToken(
            hash: second.tokenHash, clientID: "client-a", newHash: StorageFixtures.tokenHash("t3"),
            newExpiresAt: StorageFixtures.time(9000), at: StorageFixtures.time(4000)
        )
        #expect(next == .rotated(previous: second), "the replacement is current, and outlives the first token's expiry")
        #expect(try await storage.isSessionActive(familyID: "family-1", userID: alice.id))
        // Reading a token's grant works whatever its state, and finds nothing for an unknown hash.
        #expect(try await storage.refreshToken(hash: first.tokenHash) == first)
        #expect(try await storage.refreshToken(hash: StorageFixtures.tokenHash("unknown")) == nil)
    }

    /// Presenting a rotated token again revokes its whole family, even after it expired.
    static func refreshTokenReuseRevokesFamily(_ storage: any IdentityStorage) async throws {
        let (alice, _) = try await signUp("alice", on: storage)
        let first = StorageFixtures.refreshToken("t1", familyID: "family-1", userID: alice.id, expiresIn: 600)
        try await storage.saveRefreshToken(first)
        let other = StorageFixtures.refreshToken("other", familyID: "family-2", userID: alice.id)
        try await storage.saveRefreshToken(other)
        _ = try await storage.rotateRefreshToken(
            hash: first.tokenHash, clientID: "client-a", newHash: StorageFixtures.tokenHash("t2"),
            newExpiresAt: StorageFixtures.time(3600), at: StorageFixtures.time(60)
        )

        let replay = try await storage.rotateRefreshToken(
            hash: first.tokenHash, clientID: "client-a", newHash: StorageFixtures.tokenHash("t3"),
            newExpiresAt: StorageFixtures.time(3600), at: StorageFixtures.time(700)
        )
        #expect(replay == .reused(familyID: "family-1", userID: alice.id), "replayed after its own expiry")
        #expect(try await storage.isSessionActive(familyID: "family-1", userID: alice.id) == false)

        let current = try await storage.rotateRefreshToken(
            hash: StorageFixtures.tokenHash("t2"), clientID: "client-a", newHash: StorageFixtures.tokenHash("t4"),
            newExpiresAt: StorageFixtures.time(3600), at: StorageFixtures.time(800)
        )
        #expect(current == .invalid, "the family's newest token is revoked too")
        let never = try await storage.rotateRefreshToken(
            hash: StorageFixtures.tokenHash("t3"), clientID: "client-a", newHash: StorageFixtures.tokenHash("t5"),
            newExpiresAt: StorageFixtures.time(3600), at: StorageFixtures.time(800)
        )
        #expect(never == .invalid, "a replay stores no replacement")
        #expect(try await storage.isSessionActive(familyID: "family-2", userID: alice.id), "other sessions are unaffected")
    }

    /// Unknown, expired and other clients' tokens are invalid and change nothing.
    static func refreshTokenInvalid(_ storage: any IdentityStorage) async throws {
        let (alice, _) = try await signUp("alice", on: storage)
        let token = StorageFixtures.refreshToken("t1", familyID: "family-1", userID: alice.id, expiresIn: 600)
        try await storage.saveRefreshToken(token)

        func present(_ hash: [UInt8], _ clientID: String, at seconds: Double, newLabel: String) async throws -> RefreshOutcome {
            try await storage.rotateRefreshToken(
                hash: hash, clientID: clientID, newHash: StorageFixtures.tokenHash(newLabel),
                newExpiresAt: StorageFixtures.time(seconds + 600), at: StorageFixtures.time(seconds)
            )
        }
        #expect(try await present(StorageFixtures.tokenHash("unknown"), "client-a", at: 60, newLabel: "n1") == .invalid)
        #expect(try await present(token.tokenHash, "client-b", at: 60, newLabel: "n2") == .invalid, "another client")
        #expect(try await present(token.tokenHash, "client-a", at: 600, newLabel: "n3") == .invalid, "at expiresAt")
        #expect(try await storage.isSessionActive(familyID: "family-1", userID: alice.id), "no attempt above revokes the session")
        for label in ["n1", "n2", "n3"] {
            #expect(try await present(StorageFixtures.tokenHash(label), "client-a", at: 61, newLabel: "x-\(label)") == .invalid, "no replacement \(label)")
        }
        #expect(try await present(token.tokenHash, "client-a", at: 120, newLabel: "n4") == .rotated(previous: token), "still current")
    }

    /// Logout revokes a family, only for the client the token was issued to.
    static func refreshTokenFamilyRevocation(_ storage: any IdentityStorage) async throws {
        let (alice, _) = try await signUp("alice", on: storage)
        let token = StorageFixtures.refreshToken("t1", familyID: "family-1", userID: alice.id)
        try await storage.saveRefreshToken(token)

        #expect(try await storage.revokeRefreshTokenFamily(hash: token.tokenHash, clientID: "client-b", at: StorageFixtures.time(10)) == nil)
        #expect(try await storage.isSessionActive(familyID: "family-1", userID: alice.id), "another client cannot log the user out")
        #expect(try await storage.revokeRefreshTokenFamily(hash: StorageFixtures.tokenHash("unknown"), clientID: "client-a", at: StorageFixtures.time(10)) == nil)

        #expect(try await storage.revokeRefreshTokenFamily(hash: token.tokenHash, clientID: "client-a", at: StorageFixtures.time(20)) == alice.id)
        #expect(try await storage.isSessionActive(familyID: "family-1", userID: alice.id) == false)
        #expect(try await storage.revokeRefreshTokenFamily(hash: token.tokenHash, clientID: "client-a", at: StorageFixtures.time(30)) == alice.id, "revoking twice")
        let outcome = try await storage.rotateRefreshToken(
            hash: token.tokenHash, clientID: "client-a", newHash: StorageFixtures.tokenHash("t2"),
            newExpiresAt: StorageFixtures.time(3600), at: StorageFixtures.time(40)
        )
        #expect(outcome == .invalid)
        #expect(try await storage.isSessionActive(familyID: "family-unknown", userID: alice.id) == false)
    }

    /// A family belongs to one user at one client.
    static func refreshTokenFamilyOwnership(_ storage: any IdentityStorage) async throws {
        let (alice, _) = try await signUp("alice", on: storage)
        let (bob, _) = try await signUp("bob", on: storage)
        try await storage.saveRefreshToken(StorageFixtures.refreshToken("t1", familyID: "family-1", userID: alice.id))
        // A second token in the same family, issued by the service directly, is fine.
        try await storage.saveRefreshToken(StorageFixtures.refreshToken("t2", familyID: "family-1", userID: alice.id))

        await #expect(throws: (any Error).self, "another user's token in alice's family") {
            try await storage.saveRefreshToken(StorageFixtures.refreshToken("t3", familyID: "family-1", userID: bob.id))
        }
        await #expect(throws: (any Error).self, "another client's token in alice's family") {
            try await storage.saveRefreshToken(StorageFixtures.refreshToken("t4", familyID: "family-1", userID: alice.id, clientID: "client-b"))
        }
        await #expect(throws: (any Error).self, "a token of a user that does not exist") {
            try await storage.saveRefreshToken(StorageFixtures.refreshToken("t5", familyID: "family-5", userID: UserID(rawValue: "user-nobody")))
        }
        for label in ["t3", "t4", "t5"] {
            let outcome = try await storage.rotateRefreshToken(
                hash: StorageFixtures.tokenHash(label), clientID: "client-a", newHash: StorageFixtures.tokenHash("n-\(label)"),
                newExpiresAt: StorageFixtures.time(3600), at: StorageFixtures.time(1)
            )
            #expect(outcome == .invalid, "\(label) was not stored")
        }
        #expect(try await storage.isSessionActive(familyID: "family-5", userID: alice.id) == false)
    }
}
