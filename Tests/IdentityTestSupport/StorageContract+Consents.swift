import Foundation
import IdentityCore
import Testing

extension StorageContract {
    /// A consent is stored per user and client, replaced when widened, listed by client,
    /// and withdrawn together with the user's sessions at that client (and only those).
    static func consentLifecycle(_ storage: any IdentityStorage) async throws {
        let (ada, _) = try await signUp("ada", on: storage)
        let (bob, _) = try await signUp("bob", on: storage)
        #expect(try await storage.consent(userID: ada.id, clientID: "client-b") == nil)

        let first = Consent(userID: ada.id, clientID: "client-b", scopes: ["openid", "email"], grantedAt: StorageFixtures.time(1))
        try await storage.saveConsent(first)
        #expect(try await storage.consent(userID: ada.id, clientID: "client-b") == first)
        #expect(first.scopes == ["email", "openid"] && first.covers(["openid"]) && !first.covers(["openid", "profile"]))
        let widened = Consent(userID: ada.id, clientID: "client-b", scopes: first.scopes + ["profile"], grantedAt: StorageFixtures.time(2))
        try await storage.saveConsent(widened)
        try await storage.saveConsent(Consent(userID: ada.id, clientID: "client-a", scopes: ["openid"], grantedAt: StorageFixtures.time(3)))
        try await storage.saveConsent(Consent(userID: bob.id, clientID: "client-b", scopes: ["openid"], grantedAt: StorageFixtures.time(3)))
        #expect(try await storage.consents(userID: ada.id).map(\.clientID) == ["client-a", "client-b"])
        #expect(try await storage.consent(userID: ada.id, clientID: "client-b") == widened, "replaced, not added")

        for (family, user, client) in [("ada-b", ada, "client-b"), ("ada-a", ada, "client-a"), ("bob-b", bob, "client-b")] {
            try await storage.startSession(TokenSessionStart(
                familyID: family, userID: user.id, clientID: client, startedAt: StorageFixtures.time(1), refreshToken: nil
            ))
        }
        #expect(try await storage.revokeConsent(userID: ada.id, clientID: "client-b", at: StorageFixtures.time(4)))
        #expect(try await storage.consent(userID: ada.id, clientID: "client-b") == nil)
        #expect(try await storage.isSessionActive(familyID: "ada-b", userID: ada.id) == false, "the client's sessions end with the consent")
        #expect(try await storage.isSessionActive(familyID: "ada-a", userID: ada.id), "another client's do not")
        #expect(try await storage.isSessionActive(familyID: "bob-b", userID: bob.id), "nor another person's")
        #expect(try await storage.consent(userID: bob.id, clientID: "client-b") != nil)
        #expect(try await storage.revokeConsent(userID: ada.id, clientID: "client-b", at: StorageFixtures.time(5)) == false, "already gone")

        await #expect(throws: (any Error).self, "a consent of a user that does not exist") {
            try await storage.saveConsent(Consent(userID: UserID(rawValue: "user-nobody"), clientID: "client-b", scopes: ["openid"], grantedAt: StorageFixtures.time(1)))
        }
        #expect(try await storage.consent(userID: UserID(rawValue: "nul\u{0}"), clientID: "client-b") == nil)
    }
}
