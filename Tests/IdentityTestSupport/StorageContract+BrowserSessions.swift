import IdentityCore
import Testing
import LatchkeyWire

extension StorageContract {
    /// A session is found until it expires or is revoked, and only by its own hash.
    static func browserSessionLifecycle(_ storage: any IdentityStorage) async throws {
        let (alice, _) = try await signUp("alice", on: storage)
        let session = BrowserSession(
            tokenHash: StorageFixtures.tokenHash("s1"), userID: alice.id, authenticatedAt: StorageFixtures.time(0),
            userVerified: true, expiresAt: StorageFixtures.time(3600)
        )
        try await storage.saveBrowserSession(session)
        #expect(try await storage.browserSession(hash: session.tokenHash, at: StorageFixtures.time(10)) == session)
        #expect(try await storage.browserSession(hash: StorageFixtures.tokenHash("s2"), at: StorageFixtures.time(10)) == nil)
        #expect(try await storage.browserSession(hash: session.tokenHash, at: StorageFixtures.time(3600)) == nil, "expired at its expiry")

        try await storage.revokeBrowserSession(hash: session.tokenHash, at: StorageFixtures.time(20))
        #expect(try await storage.browserSession(hash: session.tokenHash, at: StorageFixtures.time(30)) == nil, "revoked")
        try await storage.revokeBrowserSession(hash: StorageFixtures.tokenHash("unknown"), at: StorageFixtures.time(20))

        try await storage.purgeBrowserSessions(expiredBefore: StorageFixtures.time(4000))
        let later = BrowserSession(
            tokenHash: session.tokenHash, userID: alice.id, authenticatedAt: StorageFixtures.time(5000),
            userVerified: false, expiresAt: StorageFixtures.time(9000)
        )
        try await storage.saveBrowserSession(later)
        #expect(try await storage.browserSession(hash: session.tokenHash, at: StorageFixtures.time(5001)) == later, "the purge removed the old row")

        // A person's live sessions, newest sign-in first; not another's, not a revoked or expired one.
        let (bob, _) = try await signUp("bob", on: storage)
        let sessions = [("s3", alice.id, 6000.0, 9000.0), ("s4", alice.id, 7000, 9000), ("s5", alice.id, 6500, 6600), ("s6", bob.id, 7000, 9000), ("s7", alice.id, 6800, 9000)]
        for (name, user, start, end) in sessions {
            try await storage.saveBrowserSession(BrowserSession(
                tokenHash: StorageFixtures.tokenHash(name), userID: user, authenticatedAt: StorageFixtures.time(start), userVerified: true,
                expiresAt: StorageFixtures.time(end), method: .password
            ))
        }
        try await storage.revokeBrowserSession(hash: StorageFixtures.tokenHash("s7"), at: StorageFixtures.time(6900))
        let live = try await storage.browserSessions(userID: alice.id, at: StorageFixtures.time(6700))
        #expect(live.map(\.tokenHash) == ["s4", "s3", "s1"].map(StorageFixtures.tokenHash), "\(live.map(\.authenticatedAt))")
        #expect(live.first?.method == .password)
        #expect(try await storage.browserSessions(userID: UserID(rawValue: "nobody"), at: StorageFixtures.time(6700)).isEmpty)
    }

    /// A code is consumed once; a second presentation revokes its session, even after expiry.
    static func authorizationCodeSingleUse(_ storage: any IdentityStorage) async throws {
        let (alice, _) = try await signUp("alice", on: storage)
        let code = AuthorizationCode(
            codeHash: StorageFixtures.tokenHash("c1"), clientID: "client-a", userID: alice.id, redirectURI: "https://app.example/cb",
            codeChallenge: "challenge", scopes: ["openid"], audience: "https://id.example/me/", nonce: "n",
            sessionID: "family-1", authenticatedAt: StorageFixtures.time(0), userVerified: true, expiresAt: StorageFixtures.time(60)
        )
        try await storage.saveAuthorizationCode(code)
        #expect(try await storage.consumeAuthorizationCode(hash: StorageFixtures.tokenHash("c2"), at: StorageFixtures.time(1), starting: nil) == .invalid)
        #expect(try await storage.authorizationCode(hash: code.codeHash) == code)
        // The session the code's tokens belong to starts with the code's use, in one transaction.
        let start = TokenSessionStart(
            familyID: "family-1", userID: alice.id, clientID: "client-a", startedAt: StorageFixtures.time(1),
            refreshToken: StorageFixtures.refreshToken("code-token", familyID: "family-1", userID: alice.id)
        )
        #expect(try await storage.consumeAuthorizationCode(hash: code.codeHash, at: StorageFixtures.time(1), starting: start) == .consumed(code))
        #expect(try await storage.isSessionActive(familyID: "family-1", userID: alice.id))
        #expect(try await storage.refreshToken(hash: StorageFixtures.refreshToken("code-token", familyID: "family-1", userID: alice.id).tokenHash) != nil)
        #expect(try await storage.consumeAuthorizationCode(hash: code.codeHash, at: StorageFixtures.time(120), starting: nil) == .reused(code))
        #expect(try await storage.isSessionActive(familyID: "family-1", userID: alice.id) == false, "reuse revokes the tokens of the first exchange")

        let expired = AuthorizationCode(
            codeHash: StorageFixtures.tokenHash("c3"), clientID: "client-a", userID: alice.id, redirectURI: "https://app.example/cb",
            codeChallenge: "challenge", scopes: [], audience: "a", nonce: nil, sessionID: "family-2",
            authenticatedAt: StorageFixtures.time(0), userVerified: false, expiresAt: StorageFixtures.time(60)
        )
        try await storage.saveAuthorizationCode(expired)
        #expect(try await storage.consumeAuthorizationCode(hash: expired.codeHash, at: StorageFixtures.time(60), starting: nil) == .invalid)
        try await storage.purgeAuthorizationCodes(expiredBefore: StorageFixtures.time(61))
        #expect(try await storage.consumeAuthorizationCode(hash: code.codeHash, at: StorageFixtures.time(200), starting: nil) == .invalid, "purged")
        #expect(try await storage.authorizationCode(hash: code.codeHash) == nil)
    }

    /// A session without a refresh token exists, is idempotent to start, and keeps its owner.
    static func sessionWithoutRefreshToken(_ storage: any IdentityStorage) async throws {
        let (alice, _) = try await signUp("alice", on: storage)
        let (bob, _) = try await signUp("bob", on: storage)
        #expect(try await storage.isSessionActive(familyID: "family-1", userID: alice.id) == false)
        try await storage.startSession(familyID: "family-1", userID: alice.id, clientID: "client-a", at: StorageFixtures.time(0))
        try await storage.startSession(familyID: "family-1", userID: alice.id, clientID: "client-a", at: StorageFixtures.time(5))
        #expect(try await storage.isSessionActive(familyID: "family-1", userID: alice.id))
        await #expect(throws: (any Error).self, "a family belongs to one user") {
            try await storage.startSession(familyID: "family-1", userID: bob.id, clientID: "client-a", at: StorageFixtures.time(5))
        }
        // A refresh token may join the session later.
        try await storage.saveRefreshToken(StorageFixtures.refreshToken("t1", familyID: "family-1", userID: alice.id))
        #expect(try await storage.isSessionActive(familyID: "family-1", userID: alice.id))
    }

    /// Changing the display name keeps everything else.
    static func updateName(_ storage: any IdentityStorage) async throws {
        let (alice, _) = try await signUp("alice", on: storage)
        let updated = try #require(try await storage.updateName(userID: alice.id, name: "Alice Liddell", at: StorageFixtures.time(99)))
        #expect(updated.profile.name == "Alice Liddell")
        #expect(updated.profile.email == alice.profile.email)
        #expect(updated.updatedAt == StorageFixtures.time(99))
        #expect(try await storage.user(id: alice.id) == updated)
        let cleared = try await storage.updateName(userID: alice.id, name: nil, at: StorageFixtures.time(100))
        #expect(cleared?.profile.name == nil)
        #expect(try await storage.updateName(userID: UserID(rawValue: "nobody"), name: "x", at: StorageFixtures.time(1)) == nil)
    }
}
