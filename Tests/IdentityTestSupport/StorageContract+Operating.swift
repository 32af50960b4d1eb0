import Foundation
import IdentityCore
import Testing
import WebAuthn

extension StorageContract {
    /// Admin API keys: found by hash (revoked ones too, marked), listed oldest first, revoked
    /// once, their use recorded.
    static func adminKeyLifecycle(_ storage: any IdentityStorage) async throws {
        let scopes: Set<AdminScope> = [AdminScope(.users, writes: false), AdminScope(.users, writes: true), AdminScope(.events, writes: false)]
        let first = AdminAPIKey(id: "ak_1", name: "ops", scopes: scopes, keyHash: StorageFixtures.tokenHash("key-1"), createdAt: StorageFixtures.time(1))
        let second = AdminAPIKey(id: "ak_2", name: "reader \u{1F511}", scopes: [AdminScope(.clients, writes: false)], keyHash: StorageFixtures.tokenHash("key-2"), createdAt: StorageFixtures.time(2))
        try await storage.saveAdminKey(second)
        try await storage.saveAdminKey(first)
        #expect(try await storage.adminKey(hash: StorageFixtures.tokenHash("key-1")) == first, "scopes and name round-trip")
        #expect(try await storage.adminKey(hash: StorageFixtures.tokenHash("key-3")) == nil)
        #expect(try await storage.adminKeys().map(\.id) == ["ak_1", "ak_2"], "oldest first")
        try await storage.recordAdminKeyUse(id: "ak_1", at: StorageFixtures.time(5))
        #expect(try await storage.adminKey(hash: first.keyHash)?.lastUsedAt == StorageFixtures.time(5))
        #expect(try await storage.revokeAdminKey(id: "ak_1", at: StorageFixtures.time(6)))
        #expect(try await storage.revokeAdminKey(id: "ak_1", at: StorageFixtures.time(7)) == false, "once")
        #expect(try await storage.revokeAdminKey(id: "ak_9", at: StorageFixtures.time(7)) == false)
        #expect(try await storage.revokeAdminKey(id: "ak\u{0}1", at: StorageFixtures.time(7)) == false)
        #expect(try await storage.adminKey(hash: first.keyHash)?.revokedAt == StorageFixtures.time(6))
        #expect(try await storage.adminKey(hash: second.keyHash)?.revokedAt == nil)
    }

    /// The user directory: accounts made without a credential, pages in creation order then
    /// by ID (as bytes), exact and prefix matches where `%` and `_` mean themselves.
    static func userDirectory(_ storage: any IdentityStorage) async throws {
        var made: [User] = []
        for (index, label) in ["b", "a", "c", "d_1", "d%2"].enumerated() {
            var user = StorageFixtures.user(label, email: "\(label)@example.com", username: "name-\(label)")
            // Two pairs created at the same moment: their IDs order them.
            user = User(id: user.id, userHandle: user.userHandle, profile: user.profile, createdAt: StorageFixtures.time(Double(index / 2)), updatedAt: user.updatedAt)
            try await storage.createUser(user)
            made.append(user)
        }
        await expectConflict(.identifier, "a taken email") {
            try await storage.createUser(StorageFixtures.user("other", email: "a@example.com", username: "other"))
        }
        #expect(try await storage.credentials(userID: made[0].id).isEmpty)
        let expected = made.sorted(by: UserCursor.directoryOrder).map(\.id)
        #expect(expected.map(\.rawValue) == ["user-a", "user-b", "user-c", "user-d_1", "user-d%2"])
        #expect(try await storage.users(UserQuery(limit: 10)).map(\.id) == expected)
        var pages: [[UserID]] = []
        var after: UserCursor?
        repeat {
            let page = try await storage.users(UserQuery(after: after, limit: 2))
            pages.append(page.map(\.id))
            after = page.count == 2 ? page.last.map(UserCursor.init) : nil
        } while after != nil
        #expect(pages.flatMap { $0 } == expected && pages.count == 3)
        #expect(try await storage.users(UserQuery(identifier: "name-c", limit: 10)).map(\.id.rawValue) == ["user-c"])
        #expect(try await storage.users(UserQuery(identifier: "c@example.com", limit: 10)).map(\.id.rawValue) == ["user-c"])
        #expect(try await storage.users(UserQuery(identifierPrefix: "d%", limit: 10)).map(\.id.rawValue) == ["user-d%2"])
        #expect(try await storage.users(UserQuery(identifierPrefix: "d_", limit: 10)).map(\.id.rawValue) == ["user-d_1"])
        #expect(try await storage.users(UserQuery(identifierPrefix: "name-", limit: 10)).count == 5)
        #expect(try await storage.users(UserQuery(identifierPrefix: "x", limit: 10)).isEmpty)
        #expect(try await storage.users(UserQuery(identifier: "c@example.com\u{0}", limit: 10)).isEmpty)
        #expect(try await storage.users(UserQuery(limit: 0)).isEmpty)
    }

    /// Turning an account off revokes every session it has and moves `updated_at`; on again
    /// leaves them revoked. Deleting it takes everything it had, and keeps its events.
    static func disablingAndDeletingUsers(_ storage: any IdentityStorage) async throws {
        let (ada, credential) = try await signUp("ada", on: storage)
        let (bob, _) = try await signUp("bob", on: storage)
        for (family, user) in [("ada-1", ada), ("bob-1", bob)] {
            try await storage.startSession(TokenSessionStart(
                familyID: family, userID: user.id, clientID: "client-a", startedAt: StorageFixtures.time(1), refreshToken: nil
            ))
        }
        try await storage.saveBrowserSession(BrowserSession(
            tokenHash: StorageFixtures.tokenHash("ada-browser"), userID: ada.id, authenticatedAt: StorageFixtures.time(1), userVerified: true,
            expiresAt: StorageFixtures.time(1000)
        ))
        let off = try #require(try await storage.setUserDisabled(id: ada.id, disabled: true, at: StorageFixtures.time(10)))
        #expect(off.disabledAt == StorageFixtures.time(10) && off.isDisabled && off.updatedAt == StorageFixtures.time(10))
        #expect(try await storage.user(id: ada.id)?.isDisabled == true)
        #expect(try await storage.credentialWithOwner(id: credential.credentialID)?.owner.isDisabled == true, "the sign-in read sees it")
        #expect(try await storage.isSessionActive(familyID: "ada-1", userID: ada.id) == false)
        #expect(try await storage.browserSession(hash: StorageFixtures.tokenHash("ada-browser"), at: StorageFixtures.time(11)) == nil)
        #expect(try await storage.isSessionActive(familyID: "bob-1", userID: bob.id), "another account's are untouched")
        // Off again keeps the first moment.
        #expect(try await storage.setUserDisabled(id: ada.id, disabled: true, at: StorageFixtures.time(12))?.disabledAt == StorageFixtures.time(10))
        let on = try #require(try await storage.setUserDisabled(id: ada.id, disabled: false, at: StorageFixtures.time(13)))
        #expect(!on.isDisabled && on.updatedAt == StorageFixtures.time(13))
        #expect(try await storage.isSessionActive(familyID: "ada-1", userID: ada.id) == false, "sessions stay ended")
        #expect(try await storage.setUserDisabled(id: UserID(rawValue: "nobody"), disabled: true, at: StorageFixtures.time(13)) == nil)

        try await storage.record(AuditEvent(time: StorageFixtures.time(14), kind: .login, userID: ada.id, origin: nil))
        #expect(try await storage.deleteUser(id: ada.id, at: StorageFixtures.time(50)))
        #expect(try await storage.deleteUser(id: ada.id, at: StorageFixtures.time(50)) == false)
        #expect(try await storage.user(id: ada.id) == nil)
        #expect(try await storage.credential(id: credential.credentialID) == nil)
        #expect(try await storage.sessions(userID: ada.id).isEmpty)
        #expect(try await storage.events(userID: ada.id, limit: 10).count == 1, "the audit trail keeps its events")
        #expect(try await storage.user(id: bob.id) != nil)
        // The identifiers are free again.
        try await storage.createUser(StorageFixtures.user("ada"))
    }

    /// A user's sessions, families and browser sessions together, newest first; one ended by
    /// its ID, and only the owner's.
    static func sessionListing(_ storage: any IdentityStorage) async throws {
        let (ada, credential) = try await signUp("ada", on: storage)
        let (bob, _) = try await signUp("bob", on: storage)
        try await storage.startSession(TokenSessionStart(
            familyID: "ada-1", userID: ada.id, clientID: "client-a", startedAt: StorageFixtures.time(1), refreshToken: nil,
            credentialID: credential.credentialID
        ))
        try await storage.startSession(TokenSessionStart(
            familyID: "ada-2", userID: ada.id, clientID: "client-b", startedAt: StorageFixtures.time(3), refreshToken: nil, method: .password
        ))
        let browserHash = StorageFixtures.tokenHash("ada-browser")
        try await storage.saveBrowserSession(BrowserSession(
            tokenHash: browserHash, userID: ada.id, authenticatedAt: StorageFixtures.time(2), userVerified: true, expiresAt: StorageFixtures.time(1000)
        ))
        let sessions = try await storage.sessions(userID: ada.id)
        let browserID = SessionSummary.browserSessionID(tokenHash: browserHash)
        #expect(sessions.map(\.id) == ["ada-2", browserID, "ada-1"])
        #expect(sessions[0].kind == .tokens && sessions[0].clientID == "client-b" && sessions[0].method == .password && sessions[0].credentialID == nil)
        #expect(sessions[1].kind == .browser && sessions[1].expiresAt == StorageFixtures.time(1000) && sessions[1].clientID == nil)
        #expect(sessions[2].credentialID == credential.credentialID && sessions[2].startedAt == StorageFixtures.time(1))
        #expect(sessions.allSatisfy { $0.isActive(at: StorageFixtures.time(5)) })

        #expect(try await storage.revokeSession(id: "ada-1", userID: bob.id, at: StorageFixtures.time(5)) == false, "only the owner's")
        #expect(try await storage.revokeSession(id: browserID, userID: bob.id, at: StorageFixtures.time(5)) == false)
        #expect(try await storage.revokeSession(id: "ada-1", userID: ada.id, at: StorageFixtures.time(5)))
        #expect(try await storage.revokeSession(id: "ada-1", userID: ada.id, at: StorageFixtures.time(6)) == false, "once")
        #expect(try await storage.revokeSession(id: browserID, userID: ada.id, at: StorageFixtures.time(5)))
        #expect(try await storage.revokeSession(id: "bs_not-a-hash", userID: ada.id, at: StorageFixtures.time(5)) == false)
        #expect(try await storage.revokeSession(id: "ada\u{0}2", userID: ada.id, at: StorageFixtures.time(5)) == false)
        #expect(try await storage.isSessionActive(familyID: "ada-1", userID: ada.id) == false)
        #expect(try await storage.isSessionActive(familyID: "ada-2", userID: ada.id))
        #expect(try await storage.browserSession(hash: browserHash, at: StorageFixtures.time(6)) == nil)
        let after = try await storage.sessions(userID: ada.id)
        #expect(after.filter { $0.revokedAt == StorageFixtures.time(5) }.count == 2)
        #expect(try await storage.sessions(userID: bob.id).isEmpty)
    }

    /// The audit trail by filter, newest first by position, paged by position; the actor
    /// round-trips.
    static func auditQueries(_ storage: any IdentityStorage) async throws {
        let ada = UserID(rawValue: "user-ada")
        let events = [
            AuditEvent(time: StorageFixtures.time(1), kind: .signup, userID: ada, clientID: "client-a", origin: nil),
            AuditEvent(time: StorageFixtures.time(2), kind: .login, userID: ada, clientID: "client-a", origin: nil),
            AuditEvent(time: StorageFixtures.time(3), kind: .login, userID: ada, clientID: "client-b", origin: nil),
            AuditEvent(time: StorageFixtures.time(4), kind: .userDisabled, userID: ada, detail: "", actor: "admin_key:ak_1", origin: nil),
            AuditEvent(time: StorageFixtures.time(5), kind: .login, clientID: "client-a", origin: nil),
        ]
        for event in events { try await storage.record(event) }
        let all = try await storage.events(AuditQuery(limit: 10))
        #expect(all.map(\.event) == events.reversed(), "newest first, actor kept")
        #expect(all.map(\.id) == all.map(\.id).sorted(by: >) && Set(all.map(\.id)).count == 5)
        #expect(try await storage.events(AuditQuery(kind: .login, limit: 10)).map(\.event.time) == [5, 3, 2].map(StorageFixtures.time))
        #expect(try await storage.events(AuditQuery(kind: .login, userID: ada, limit: 10)).count == 2)
        #expect(try await storage.events(AuditQuery(clientID: "client-a", limit: 10)).count == 3)
        #expect(try await storage.events(AuditQuery(from: StorageFixtures.time(2), to: StorageFixtures.time(4), limit: 10)).map(\.event.time) == [3, 2].map(StorageFixtures.time))
        #expect(try await storage.events(AuditQuery(limit: 2)).map(\.event.time) == [5, 4].map(StorageFixtures.time))
        #expect(try await storage.events(AuditQuery(before: all[1].id, limit: 2)).map(\.event.time) == [3, 2].map(StorageFixtures.time))
        #expect(try await storage.events(AuditQuery(userID: UserID(rawValue: "nobody"), limit: 10)).isEmpty)
        #expect(try await storage.events(AuditQuery(clientID: "client-a\u{0}", limit: 10)).isEmpty)
        #expect(try await storage.events(AuditQuery(limit: 0)).isEmpty)
    }
}

extension StorageContract {
    /// The request an event came from is kept with it, whichever way the store writes it: a
    /// login's finish, a sign-up's, any other completion, or a single event; and the trail
    /// filters by its address.
    static func auditEventOrigins(_ storage: any IdentityStorage) async throws {
        let origin = RequestOrigin(ip: "203.0.113.7", userAgent: "Example/1.0 (\u{1F} test)", face: "authentication_api")
        let (ada, credential) = try await signUp("ada", on: storage)
        let bob = StorageFixtures.user("bob")
        // A login's finish.
        let login = CeremonyCompletion(
            key: StorageFixtures.ceremonyKey("origin-login"),
            credentialUse: .init(credentialID: credential.credentialID, use: CredentialUse(signCount: 7, isBackedUp: false, isUserVerified: true, usedAt: StorageFixtures.time(3), signCountRegressed: false)),
            events: [AuditEvent(time: StorageFixtures.time(3), kind: .login, userID: ada.id, clientID: "client-a", origin: origin)],
            session: .tokens(TokenSessionStart(familyID: "origin-family", userID: ada.id, clientID: "client-a", startedAt: StorageFixtures.time(3), refreshToken: nil))
        )
        #expect(try await storage.completeCeremony(login))
        // A sign-up's finish.
        let signup = CeremonyCompletion(
            key: StorageFixtures.ceremonyKey("origin-signup"), newAccount: .init(user: bob, credential: StorageFixtures.credential("bob-1", userID: bob.id)),
            events: [AuditEvent(time: StorageFixtures.time(4), kind: .signup, userID: bob.id, clientID: "client-a", origin: origin)]
        )
        #expect(try await storage.completeCeremony(signup))
        // A refusal: a completion with events alone.
        #expect(try await storage.completeCeremony(CeremonyCompletion(
            key: StorageFixtures.ceremonyKey("origin-refused"), events: [AuditEvent(time: StorageFixtures.time(5), kind: .loginFailed, clientID: "client-a", origin: origin)]
        )))
        try await storage.record(AuditEvent(time: StorageFixtures.time(6), kind: .signedOut, userID: ada.id, origin: origin))
        try await storage.record(AuditEvent(time: StorageFixtures.time(7), kind: .login, userID: ada.id, origin: nil))
        let fromThere = try await storage.events(AuditQuery(ip: "203.0.113.7", limit: 10))
        #expect(fromThere.map(\.event.kind) == [.signedOut, .loginFailed, .signup, .login], "\(fromThere.map(\.event.kind))")
        #expect(origin.userAgent == "Example/1.0 (  test)", "control characters become spaces")
        #expect(fromThere.allSatisfy { $0.event.origin == origin }, "\(fromThere.map(\.event.origin))")
        #expect(try await storage.events(AuditQuery(limit: 1)).first?.event.origin == nil, "an event outside a request has none")
        #expect(try await storage.events(AuditQuery(ip: "198.51.100.1", limit: 10)).isEmpty)
    }
}
