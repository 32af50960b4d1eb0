import Foundation
import IdentityCore
import Testing

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
        try await start("by-password", nil)
        let browser = BrowserSession(
            tokenHash: Array("browser-first".utf8), userID: ada.id, authenticatedAt: StorageFixtures.time(2), userVerified: true,
            expiresAt: StorageFixtures.time(1000), credentialID: first.credentialID
        )
        try await storage.saveBrowserSession(browser)

        #expect(try await storage.setCredentialDisabled(id: first.credentialID, userID: ada.id, disabled: true, at: StorageFixtures.time(3)))
        #expect(try await storage.isSessionActive(familyID: "by-first") == false)
        #expect(try await storage.browserSession(hash: browser.tokenHash, at: StorageFixtures.time(4)) == nil)
        #expect(try await storage.isSessionActive(familyID: "by-second"))
        #expect(try await storage.isSessionActive(familyID: "by-password"))
        // A revoked family's refresh token no longer rotates.
        let rotated = try await storage.rotateRefreshToken(
            hash: StorageFixtures.refreshToken("token-by-first", familyID: "by-first", userID: ada.id).tokenHash,
            clientID: "client-a", newHash: Array("new".utf8), newExpiresAt: StorageFixtures.time(500), at: StorageFixtures.time(5)
        )
        #expect(rotated == .invalid)

        #expect(try await storage.deleteCredential(id: second.credentialID, userID: ada.id, at: StorageFixtures.time(6)) == .deleted)
        #expect(try await storage.isSessionActive(familyID: "by-second") == false)
        #expect(try await storage.isSessionActive(familyID: "by-password"))
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
        #expect(try await storage.isSessionActive(familyID: "ada-1") == false)
        #expect(try await storage.isSessionActive(familyID: "ada-2") == false)
        #expect(try await storage.browserSession(hash: Array("ada-browser".utf8), at: StorageFixtures.time(3)) == nil)
        #expect(try await storage.isSessionActive(familyID: "bob-1"))
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
            try await storage.record(AuditEvent(time: StorageFixtures.time(TimeInterval(second)), kind: .login, userID: ada.id))
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
        #expect(try await storage.isSessionActive(familyID: "old") == false)
        #expect(try await storage.refreshToken(hash: StorageFixtures.refreshToken("token-old", familyID: "old", userID: ada.id).tokenHash) == nil)
        #expect(try await storage.isSessionActive(familyID: "new"))
    }
}
