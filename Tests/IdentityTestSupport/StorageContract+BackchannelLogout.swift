import Foundation
import IdentityCore
import Testing

extension StorageContract {
    /// Back-channel logout's outbox: a login session started by a browser session's code
    /// ends with that browser session, and every session of a subscribed client that ends
    /// (however it ends) writes one notice in the same transaction; other clients' sessions
    /// write none.
    static func backchannelLogoutOutbox(_ storage: any IdentityStorage) async throws {
        try await storage.replaceBackchannelLogoutClients(["client-a"])
        let (alice, _) = try await signUp("alice", on: storage)
        let (bob, _) = try await signUp("bob", on: storage)
        func browser(_ label: String, of user: User) async throws -> BrowserSession {
            let session = BrowserSession(
                tokenHash: StorageFixtures.tokenHash(label), userID: user.id, authenticatedAt: StorageFixtures.time(0), userVerified: true,
                expiresAt: StorageFixtures.time(10_000)
            )
            try await storage.saveBrowserSession(session)
            return session
        }
        func exchange(_ label: String, family: String, client: String, user: User, from browser: BrowserSession?) async throws {
            let code = AuthorizationCode(
                codeHash: StorageFixtures.tokenHash(label), clientID: client, userID: user.id, redirectURI: "https://app.example/cb",
                codeChallenge: "challenge", scopes: ["openid"], audience: "https://id.example/me/", nonce: nil, sessionID: family,
                authenticatedAt: StorageFixtures.time(0), userVerified: true, expiresAt: StorageFixtures.time(60), browserSession: browser?.tokenHash
            )
            try await storage.saveAuthorizationCode(code)
            #expect(try await storage.authorizationCode(hash: code.codeHash)?.browserSession == browser?.tokenHash)
            let start = TokenSessionStart(familyID: family, userID: user.id, clientID: client, startedAt: StorageFixtures.time(1), refreshToken: nil)
            #expect(try await storage.consumeAuthorizationCode(hash: code.codeHash, at: StorageFixtures.time(1), starting: start) == .consumed(code))
        }
        let signedIn = try await browser("browser-1", of: alice)
        try await exchange("c1", family: "family-1", client: "client-a", user: alice, from: signedIn)
        try await exchange("c2", family: "family-2", client: "client-a", user: alice, from: nil)
        try await exchange("c3", family: "family-3", client: "client-b", user: alice, from: signedIn)
        #expect(try await storage.backchannelLogouts(status: nil, limit: 10).isEmpty, "nothing has ended")

        // Signing out of the browser ends the sessions its codes started, and only those.
        try await storage.revokeBrowserSession(hash: signedIn.tokenHash, at: StorageFixtures.time(10))
        #expect(try await storage.isSessionActive(familyID: "family-1", userID: alice.id) == false)
        #expect(try await storage.isSessionActive(familyID: "family-3", userID: alice.id) == false)
        #expect(try await storage.isSessionActive(familyID: "family-2", userID: alice.id), "a session without the browser session outlives it")
        var notices = try await storage.backchannelLogouts(status: nil, limit: 10)
        #expect(notices.map(\.sessionID) == ["family-1"], "client-b asked for nothing: \(notices.map(\.sessionID))")
        let first = try #require(notices.first)
        #expect(first.clientID == "client-a" && first.userID == alice.id && first.status == .pending && first.attempts == 0)
        #expect(first.createdAt == StorageFixtures.time(10) && first.nextAttemptAt == StorageFixtures.time(10))
        try await storage.revokeBrowserSession(hash: signedIn.tokenHash, at: StorageFixtures.time(11))
        #expect(try await storage.backchannelLogouts(status: nil, limit: 10).count == 1, "a session ends once")

        // An administrator ending a browser session ends its apps' sessions too.
        let other = try await browser("browser-2", of: alice)
        try await exchange("c4", family: "family-4", client: "client-a", user: alice, from: other)
        #expect(try await storage.revokeSession(id: SessionSummary.browserSessionID(tokenHash: other.tokenHash), userID: alice.id, at: StorageFixtures.time(12)))
        #expect(try await storage.isSessionActive(familyID: "family-4", userID: alice.id) == false)

        // Every other way a session ends writes its notice: sign out everywhere, deletion.
        _ = try await storage.revokeAllSessions(userID: alice.id, at: StorageFixtures.time(13))
        try await exchange("c5", family: "family-5", client: "client-a", user: bob, from: nil)
        #expect(try await storage.deleteUser(id: bob.id, at: StorageFixtures.time(14)))
        notices = try await storage.backchannelLogouts(status: nil, limit: 10)
        #expect(notices.map(\.sessionID) == ["family-5", "family-2", "family-4", "family-1"], "\(notices.map(\.sessionID))")
        #expect(notices.first?.userID == bob.id, "a deleted account's notice still names it")

        // Claims lease; attempts end delivered, retried or failed.
        let claimed = try await storage.claimBackchannelLogouts(dueAt: StorageFixtures.time(20), leaseUntil: StorageFixtures.time(100), limit: 3)
        #expect(claimed.count == 3 && claimed.allSatisfy { $0.attempts == 1 && $0.nextAttemptAt == StorageFixtures.time(100) })
        let rest = try await storage.claimBackchannelLogouts(dueAt: StorageFixtures.time(20), leaseUntil: StorageFixtures.time(100), limit: 10)
        #expect(rest.count == 1 && Set((claimed + rest).map(\.position)).count == 4)
        try await storage.finishBackchannelLogout(position: claimed[0].position, outcome: .delivered(status: 200), at: StorageFixtures.time(21))
        try await storage.finishBackchannelLogout(
            position: claimed[1].position, outcome: .retry(status: 503, error: "answered 503", retryAt: StorageFixtures.time(30)), at: StorageFixtures.time(21))
        try await storage.finishBackchannelLogout(position: claimed[2].position, outcome: .failed(status: 400, error: "refused"), at: StorageFixtures.time(21))
        #expect(try await storage.backchannelLogouts(status: .delivered, limit: 10).map(\.position) == [claimed[0].position])
        #expect(try await storage.backchannelLogouts(status: .failed, limit: 10).first?.lastStatus == 400)
        #expect(try await storage.claimBackchannelLogouts(dueAt: StorageFixtures.time(29), leaseUntil: StorageFixtures.time(200), limit: 10).isEmpty)
        let retried = try await storage.claimBackchannelLogouts(dueAt: StorageFixtures.time(30), leaseUntil: StorageFixtures.time(200), limit: 10)
        #expect(retried.map(\.position) == [claimed[1].position] && retried.first?.attempts == 2 && retried.first?.lastError == "answered 503")

        // Without subscribed clients, an ending session writes nothing.
        try await storage.replaceBackchannelLogoutClients([])
        let (carol, _) = try await signUp("carol", on: storage)
        try await exchange("c6", family: "family-6", client: "client-a", user: carol, from: nil)
        _ = try await storage.revokeAllSessions(userID: carol.id, at: StorageFixtures.time(40))
        #expect(try await storage.backchannelLogouts(status: nil, limit: 10).count == 4)

        // Finished notices are purged; pending ones stay.
        #expect(try await storage.purgeBackchannelLogouts(before: StorageFixtures.time(1000), limit: 10) == 2)
        #expect(Set(try await storage.backchannelLogouts(status: nil, limit: 10).map(\.status)) == [.pending])
    }
}
