import Foundation
import IdentityCore
import Testing
import LatchkeyWire

extension StorageContract {
    /// Removing or turning off a passkey ends the login sessions and browser sessions it
    /// started, in the same transaction, and nothing else: another passkey's sessions and a
    /// password's stay.
    static func passkeyRemovalRevokesItsSessions(_ storage: any IdentityStorage) async throws {
        let (ada, first) = try await signUp("ada", on: storage)
        let second = StorageFixtures.credential("ada-2", userID: ada.id, createdAt: StorageFixtures.time(1))
        try await storage.addCredential(second)
        func start(_ family: String, _ credential: PasskeyCredential?) async throws {
            try await storage.startSession(TokenSessionStart(
                familyID: family, userID: ada.id, clientID: "client-a", startedAt: StorageFixtures.time(2),
                refreshToken: StorageFixtures.refreshToken("token-\(family)", familyID: family, userID: ada.id),
                credentialID: credential?.credentialID
            ))
        }
        try await start("by-first", first)
        try await start("by-second", second)
        try await storage.startSession(TokenSessionStart(
            familyID: "by-password", userID: ada.id, clientID: "client-a", startedAt: StorageFixtures.time(2),
            refreshToken: StorageFixtures.refreshToken("token-by-password", familyID: "by-password", userID: ada.id), method: .password
        ))
        let browser = BrowserSession(
            tokenHash: Array("browser-first".utf8), userID: ada.id, authenticatedAt: StorageFixtures.time(2), userVerified: true,
            expiresAt: StorageFixtures.time(1000), credentialID: first.credentialID
        )
        try await storage.saveBrowserSession(browser)

        #expect(try await storage.setCredentialDisabled(id: first.credentialID, userID: ada.id, disabled: true, byAdministrator: false, at: StorageFixtures.time(3)) == .changed)
        #expect(try await storage.isSessionActive(familyID: "by-first", userID: ada.id) == false)
        #expect(try await storage.browserSession(hash: browser.tokenHash, at: StorageFixtures.time(4)) == nil)
        #expect(try await storage.isSessionActive(familyID: "by-second", userID: ada.id))
        #expect(try await storage.isSessionActive(familyID: "by-password", userID: ada.id))
        // A revoked family's refresh token no longer rotates.
        let rotated = try await storage.rotateRefreshToken(
            hash: StorageFixtures.refreshToken("token-by-first", familyID: "by-first", userID: ada.id).tokenHash,
            clientID: "client-a", newHash: Array("new".utf8), newExpiresAt: StorageFixtures.time(500), at: StorageFixtures.time(5)
        )
        #expect(rotated == .invalid)

        #expect(try await storage.deleteCredential(id: second.credentialID, userID: ada.id, at: StorageFixtures.time(6)) == .deleted)
        #expect(try await storage.isSessionActive(familyID: "by-second", userID: ada.id) == false)
        #expect(try await storage.isSessionActive(familyID: "by-password", userID: ada.id))
    }

    /// "Sign out everywhere" ends every live session of one user, and only theirs.
    static func signOutEverywhere(_ storage: any IdentityStorage) async throws {
        let (ada, credential) = try await signUp("ada", on: storage)
        let (bob, _) = try await signUp("bob", on: storage)
        for (family, user) in [("ada-1", ada), ("ada-2", ada), ("bob-1", bob)] {
            try await storage.startSession(TokenSessionStart(
                familyID: family, userID: user.id, clientID: "client-a", startedAt: StorageFixtures.time(1), refreshToken: nil,
                credentialID: user.id == ada.id ? credential.credentialID : nil
            ))
        }
        for (label, user) in [("ada-browser", ada), ("bob-browser", bob)] {
            try await storage.saveBrowserSession(BrowserSession(
                tokenHash: Array(label.utf8), userID: user.id, authenticatedAt: StorageFixtures.time(1), userVerified: true, expiresAt: StorageFixtures.time(1000)
            ))
        }
        #expect(try await storage.revokeAllSessions(userID: ada.id, at: StorageFixtures.time(2)) == 3)
        #expect(try await storage.isSessionActive(familyID: "ada-1", userID: ada.id) == false)
        #expect(try await storage.isSessionActive(familyID: "ada-2", userID: ada.id) == false)
        #expect(try await storage.browserSession(hash: Array("ada-browser".utf8), at: StorageFixtures.time(3)) == nil)
        #expect(try await storage.isSessionActive(familyID: "bob-1", userID: bob.id))
        #expect(try await storage.browserSession(hash: Array("bob-browser".utf8), at: StorageFixtures.time(3)) != nil)
        // Nothing is left to revoke.
        #expect(try await storage.revokeAllSessions(userID: ada.id, at: StorageFixtures.time(4)) == 0)
    }
}

extension StorageContract {
    /// Retention: audit events before a time go, oldest first, in batches; families started
    /// before a time go with their tokens; everything newer stays.
    static func retentionPurges(_ storage: any IdentityStorage) async throws {
        let (ada, _) = try await signUp("ada", on: storage)
        for second in 0..<5 {
            try await storage.record(AuditEvent(time: StorageFixtures.time(TimeInterval(second)), kind: .login, userID: ada.id, origin: nil))
        }
        #expect(try await storage.purgeAuditEvents(before: StorageFixtures.time(3), limit: 2) == 2)
        #expect(try await storage.purgeAuditEvents(before: StorageFixtures.time(3), limit: 2) == 1)
        #expect(try await storage.purgeAuditEvents(before: StorageFixtures.time(3), limit: 2) == 0)
        #expect(try await storage.events(userID: ada.id, limit: 10).map(\.time).sorted() == [StorageFixtures.time(3), StorageFixtures.time(4)])

        for (family, start) in [("old", 1.0), ("new", 100.0)] {
            try await storage.startSession(TokenSessionStart(
                familyID: family, userID: ada.id, clientID: "client-a", startedAt: StorageFixtures.time(start),
                refreshToken: StorageFixtures.refreshToken("token-\(family)", familyID: family, userID: ada.id)
            ))
        }
        #expect(try await storage.purgeRefreshTokenFamilies(startedBefore: StorageFixtures.time(50), limit: 10) == 1)
        #expect(try await storage.isSessionActive(familyID: "old", userID: ada.id) == false)
        #expect(try await storage.refreshToken(hash: StorageFixtures.refreshToken("token-old", familyID: "old", userID: ada.id).tokenHash) == nil)
        #expect(try await storage.isSessionActive(familyID: "new", userID: ada.id))
    }

    /// Removing the password ends, in the same transaction, every session a password sign-in
    /// started (login sessions with or without a refresh token, browser sessions), and none
    /// that a passkey started; another account's are untouched.
    static func passwordRemovalRevokesItsSessions(_ storage: any IdentityStorage) async throws {
        try await storage.createUser(
            User(id: UserID(rawValue: "user-cy"), userHandle: Array("cy-handle".utf8), profile: UserProfile(email: "cy@example.com"),
                 createdAt: StorageFixtures.time(0), updatedAt: StorageFixtures.time(0)),
            password: PasswordRecord(userID: UserID(rawValue: "user-cy"), hash: "$scrypt$cy", createdAt: StorageFixtures.time(0))
        )
        // Dee signed up with a password and has added a passkey since.
        try await storage.createUser(
            User(id: UserID(rawValue: "user-dee"), userHandle: Array("dee-handle".utf8), profile: UserProfile(email: "dee@example.com"),
                 createdAt: StorageFixtures.time(0), updatedAt: StorageFixtures.time(0)),
            password: PasswordRecord(userID: UserID(rawValue: "user-dee"), hash: "$scrypt$dee", createdAt: StorageFixtures.time(0))
        )
        let dee = UserID(rawValue: "user-dee")
        let deesPasskey = StorageFixtures.credential("dee-1", userID: dee, createdAt: StorageFixtures.time(1))
        try await storage.addCredential(deesPasskey)
        func family(_ id: String, _ user: UserID, _ method: SignInMethod, token: Bool = true) async throws {
            try await storage.startSession(TokenSessionStart(
                familyID: id, userID: user, clientID: "client-a", startedAt: StorageFixtures.time(2),
                refreshToken: token ? StorageFixtures.refreshToken("token-\(id)", familyID: id, userID: user) : nil,
                credentialID: method == .passkey ? deesPasskey.credentialID : nil, method: method
            ))
        }
        func browser(_ label: String, _ user: UserID, _ method: SignInMethod) async throws -> BrowserSession {
            let session = BrowserSession(
                tokenHash: Array(label.utf8), userID: user, authenticatedAt: StorageFixtures.time(2), userVerified: method == .passkey,
                expiresAt: StorageFixtures.time(1000), credentialID: method == .passkey ? deesPasskey.credentialID : nil, method: method
            )
            try await storage.saveBrowserSession(session)
            return session
        }
        try await family("dee-password", dee, .password)
        try await family("dee-password-no-token", dee, .password, token: false)
        try await family("dee-passkey", dee, .passkey)
        let passwordBrowser = try await browser("dee-password-browser", dee, .password)
        let passkeyBrowser = try await browser("dee-passkey-browser", dee, .passkey)
        #expect(try await storage.browserSession(hash: passwordBrowser.tokenHash, at: StorageFixtures.time(3))?.method == .password, "the method round-trips")
        try await family("cy-password", UserID(rawValue: "user-cy"), .password)

        guard case .removed = try await storage.removePassword(userID: dee, at: StorageFixtures.time(4)) else {
            Issue.record("the password was not removed")
            return
        }
        #expect(try await storage.isSessionActive(familyID: "dee-password", userID: dee) == false)
        #expect(try await storage.isSessionActive(familyID: "dee-password-no-token", userID: dee) == false)
        #expect(try await storage.browserSession(hash: passwordBrowser.tokenHash, at: StorageFixtures.time(5)) == nil)
        #expect(try await storage.isSessionActive(familyID: "dee-passkey", userID: dee), "a passkey's session stays")
        #expect(try await storage.browserSession(hash: passkeyBrowser.tokenHash, at: StorageFixtures.time(5)) != nil)
        #expect(try await storage.isSessionActive(familyID: "cy-password", userID: UserID(rawValue: "user-cy")), "another account's stays")
        let rotated = try await storage.rotateRefreshToken(
            hash: StorageFixtures.refreshToken("token-dee-password", familyID: "dee-password", userID: dee).tokenHash,
            clientID: "client-a", newHash: Array("new".utf8), newExpiresAt: StorageFixtures.time(500), at: StorageFixtures.time(6)
        )
        #expect(rotated == .invalid, "the password session's refresh token no longer rotates")
    }

    /// A login session is active only for the user it belongs to: an access token whose
    /// `sid` names another account's session is refused.
    static func sessionBelongsToItsUser(_ storage: any IdentityStorage) async throws {
        let (ada, _) = try await signUp("ada", on: storage)
        let (bob, _) = try await signUp("bob", on: storage)
        try await storage.startSession(TokenSessionStart(familyID: "ada-1", userID: ada.id, clientID: "client-a", startedAt: StorageFixtures.time(1), refreshToken: nil))
        #expect(try await storage.isSessionActive(familyID: "ada-1", userID: ada.id))
        #expect(try await storage.isSessionActive(familyID: "ada-1", userID: bob.id) == false)
        #expect(try await storage.isSessionActive(familyID: "ada-1", userID: UserID(rawValue: "user-ada\u{0}")) == false)
    }
}
