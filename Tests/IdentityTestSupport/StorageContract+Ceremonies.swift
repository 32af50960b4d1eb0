import Foundation
import IdentityCore
import Testing
import LatchkeyWire

extension StorageContract {
    /// A ceremony completes once: the second completion of a key returns `false` and writes
    /// nothing of its own.
    static func ceremonyCompletesOnce(_ storage: any IdentityStorage) async throws {
        let key = StorageFixtures.ceremonyKey("once")
        let first = AuditEvent(time: StorageFixtures.time(1), kind: .login, detail: "first", origin: nil)
        #expect(try await storage.completeCeremony(CeremonyCompletion(key: key, events: [first])))
        let replay = AuditEvent(time: StorageFixtures.time(2), kind: .login, detail: "replay", origin: nil)
        #expect(try await storage.completeCeremony(CeremonyCompletion(key: key, events: [replay])) == false, "single use")
        #expect(try await storage.events(userID: nil, limit: 10).map(\.detail) == ["first"], "the replay wrote nothing")
        #expect(try await storage.completeCeremony(CeremonyCompletion(key: StorageFixtures.ceremonyKey("other"))), "keys are independent")
    }

    /// Everything a completion carries is written with it: a new account, a passkey's use, a
    /// new passkey, events in order, and each kind of session.
    static func ceremonyCompletionWritesEverything(_ storage: any IdentityStorage) async throws {
        let alice = StorageFixtures.user("alice")
        let credential = StorageFixtures.credential("alice-1", userID: alice.id)
        let family = StorageFixtures.refreshToken("t1", familyID: "family-1", userID: alice.id)
        #expect(try await storage.completeCeremony(CeremonyCompletion(
            key: StorageFixtures.ceremonyKey("signup"), newAccount: .init(user: alice, credential: credential),
            events: [AuditEvent(time: StorageFixtures.time(1), kind: .signup, userID: alice.id, origin: nil)],
            session: .tokens(TokenSessionStart(familyID: "family-1", userID: alice.id, clientID: "client-a", startedAt: StorageFixtures.time(1), refreshToken: family))
        )))
        #expect(try await storage.user(id: alice.id) == alice)
        #expect(try await storage.credential(id: credential.credentialID) == credential)
        #expect(try await storage.refreshToken(hash: family.tokenHash) == family)
        #expect(try await storage.isSessionActive(familyID: "family-1", userID: alice.id))

        let use = CredentialUse(signCount: 9, isBackedUp: true, isUserVerified: true, usedAt: StorageFixtures.time(2), signCountRegressed: false)
        let browser = BrowserSession(
            tokenHash: StorageFixtures.tokenHash("cookie"), userID: alice.id, authenticatedAt: StorageFixtures.time(2), userVerified: true,
            expiresAt: StorageFixtures.time(3600)
        )
        #expect(try await storage.completeCeremony(CeremonyCompletion(
            key: StorageFixtures.ceremonyKey("login"), credentialUse: .init(credentialID: credential.credentialID, use: use),
            events: [
                AuditEvent(time: StorageFixtures.time(2), kind: .signCountRegressed, userID: alice.id, detail: "first", origin: nil),
                AuditEvent(time: StorageFixtures.time(2), kind: .login, userID: alice.id, detail: "second", origin: nil),
            ],
            session: .browser(browser)
        )))
        let used = try #require(try await storage.credential(id: credential.credentialID))
        #expect(used.signCount == 9 && used.isBackedUp && used.lastUsedAt == StorageFixtures.time(2))
        #expect(try await storage.browserSession(hash: browser.tokenHash, at: StorageFixtures.time(3)) == browser)
        #expect(try await storage.events(userID: alice.id, limit: 2).map(\.detail) == ["second", "first"], "in order")

        let second = StorageFixtures.credential("alice-2", userID: alice.id)
        #expect(try await storage.completeCeremony(CeremonyCompletion(
            key: StorageFixtures.ceremonyKey("enrollment"), newCredential: second,
            session: .tokens(TokenSessionStart(familyID: "family-2", userID: alice.id, clientID: "client-a", startedAt: StorageFixtures.time(3), refreshToken: nil))
        )))
        #expect(try await storage.credentials(userID: alice.id).map(\.credentialID) == [credential.credentialID, second.credentialID])
        #expect(try await storage.isSessionActive(familyID: "family-2", userID: alice.id), "a session without a refresh token")
    }

    /// A completion whose write fails writes nothing, not even its key: the same ceremony
    /// can complete afterwards.
    static func ceremonyCompletionIsAllOrNothing(_ storage: any IdentityStorage) async throws {
        let (alice, _) = try await signUp("alice", on: storage)
        let key = StorageFixtures.ceremonyKey("contested")
        let bob = StorageFixtures.user("bob", email: alice.profile.email)
        let event = AuditEvent(time: StorageFixtures.time(1), kind: .signup, detail: "bob", origin: nil)
        await expectConflict(.identifier, "bob takes alice's email") {
            _ = try await storage.completeCeremony(CeremonyCompletion(
                key: key, newAccount: .init(user: bob, credential: StorageFixtures.credential("bob-1", userID: bob.id)), events: [event],
                session: .tokens(TokenSessionStart(familyID: "family-bob", userID: bob.id, clientID: "client-a", startedAt: StorageFixtures.time(1), refreshToken: nil))
            ))
        }
        #expect(try await storage.user(id: bob.id) == nil)
        #expect(try await storage.credential(id: StorageFixtures.credentialID("bob-1")) == nil)
        #expect(try await storage.events(userID: nil, limit: 10).isEmpty, "no event")
        #expect(try await storage.isSessionActive(familyID: "family-bob", userID: bob.id) == false, "no session")

        let nobody = UserID(rawValue: "user-nobody")
        await #expect(throws: (any Error).self, "a session of a user that does not exist") {
            _ = try await storage.completeCeremony(CeremonyCompletion(
                key: key, events: [event],
                session: .tokens(TokenSessionStart(familyID: "family-x", userID: nobody, clientID: "client-a", startedAt: StorageFixtures.time(1), refreshToken: nil))
            ))
        }
        #expect(try await storage.events(userID: nil, limit: 10).isEmpty, "still no event")
        #expect(try await storage.completeCeremony(CeremonyCompletion(key: key)), "the key was never used")
    }

    /// A refused use changes only the regression flag; a completion for a passkey deleted
    /// meanwhile is not an error.
    static func ceremonyCompletionRecordsRefusedUse(_ storage: any IdentityStorage) async throws {
        let (_, credential) = try await signUp("alice", on: storage)
        let refused = CredentialUse(signCount: 1, isBackedUp: true, isUserVerified: true, usedAt: nil, signCountRegressed: true)
        #expect(try await storage.completeCeremony(CeremonyCompletion(
            key: StorageFixtures.ceremonyKey("refused"), credentialUse: .init(credentialID: credential.credentialID, use: refused)
        )))
        var expected = credential
        expected.hasSignCountRegressed = true
        #expect(try await storage.credential(id: credential.credentialID) == expected)

        let gone = CredentialUse(signCount: 1, isBackedUp: false, isUserVerified: false, usedAt: StorageFixtures.time(3), signCountRegressed: false)
        #expect(try await storage.completeCeremony(CeremonyCompletion(key: StorageFixtures.ceremonyKey("gone"), credentialUse: .init(credentialID: [0x01, 0x02], use: gone))))
    }

    /// A use verified against a state that no longer holds (the counter moved, the passkey
    /// was turned off or deleted, the owner changed) writes nothing and throws `StaleRead`;
    /// verified against the current state, it is stored.
    static func ceremonyCompletionChecksWhatWasVerified(_ storage: any IdentityStorage) async throws {
        let (alice, credential) = try await signUp("alice", on: storage)
        let use = CredentialUse(signCount: 5, isBackedUp: false, isUserVerified: true, usedAt: StorageFixtures.time(10), signCountRegressed: false)
        func complete(_ label: String, signCount: UInt32, ownerUpdatedAt: Date) async throws -> Bool {
            try await storage.completeCeremony(CeremonyCompletion(
                key: StorageFixtures.ceremonyKey(label),
                credentialUse: .init(credentialID: credential.credentialID, use: use, verifiedAgainst: .init(signCount: signCount, ownerUpdatedAt: ownerUpdatedAt)),
                events: [AuditEvent(time: StorageFixtures.time(10), kind: .login, userID: alice.id, detail: label, origin: nil)]
            ))
        }
        await #expect(throws: StaleRead(), "another counter") { _ = try await complete("counter", signCount: credential.signCount + 1, ownerUpdatedAt: alice.updatedAt) }
        await #expect(throws: StaleRead(), "another owner state") { _ = try await complete("owner", signCount: credential.signCount, ownerUpdatedAt: StorageFixtures.time(99)) }
        #expect(try await storage.setCredentialDisabled(id: credential.credentialID, userID: alice.id, disabled: true, byAdministrator: false, at: StorageFixtures.time(9)) == .changed)
        await #expect(throws: StaleRead(), "a disabled passkey") { _ = try await complete("disabled", signCount: credential.signCount, ownerUpdatedAt: alice.updatedAt) }
        #expect(try await storage.setCredentialDisabled(id: credential.credentialID, userID: alice.id, disabled: false, byAdministrator: false, at: StorageFixtures.time(9)) == .changed)
        #expect(try await storage.events(userID: nil, limit: 10).isEmpty, "nothing was written")
        #expect(try await storage.credential(id: credential.credentialID)?.signCount == credential.signCount)

        #expect(try await complete("current", signCount: credential.signCount, ownerUpdatedAt: alice.updatedAt))
        #expect(try await storage.credential(id: credential.credentialID)?.signCount == 5)
        #expect(try await storage.completeCeremony(CeremonyCompletion(key: StorageFixtures.ceremonyKey("counter"))), "a stale completion left its key unused")
    }

    /// Every shape of a verified login completes with everything it carries: the common one
    /// (one event, a new token session), one with a security event beside its login event,
    /// and one whose token joins a session that exists (a backend may write these another
    /// way than the common one). A replay of each writes nothing.
    static func loginShapesAllComplete(_ storage: any IdentityStorage) async throws {
        let (alice, credential) = try await signUp("alice", on: storage)
        var signCount = credential.signCount
        func login(_ label: String, events: [AuditEvent.Kind], family: String) async throws -> Bool {
            let use = CredentialUse(signCount: signCount + 1, isBackedUp: false, isUserVerified: true, usedAt: StorageFixtures.time(20), signCountRegressed: false)
            let token = StorageFixtures.refreshToken(label, familyID: family, userID: alice.id)
            let completion = CeremonyCompletion(
                key: StorageFixtures.ceremonyKey(label),
                credentialUse: .init(credentialID: credential.credentialID, use: use, verifiedAgainst: .init(signCount: signCount, ownerUpdatedAt: alice.updatedAt)),
                events: events.map { AuditEvent(time: StorageFixtures.time(20), kind: $0, userID: alice.id, detail: label, origin: nil) },
                session: .tokens(TokenSessionStart(familyID: family, userID: alice.id, clientID: "client-a", startedAt: StorageFixtures.time(20), refreshToken: token))
            )
            let completed = try await storage.completeCeremony(completion)
            if completed { signCount += 1 }
            return completed
        }
        #expect(try await login("common", events: [.login], family: "family-common"))
        #expect(try await login("flagged", events: [.signCountRegressed, .login], family: "family-flagged"))
        #expect(try await login("joining", events: [.login], family: "family-common"))
        for (label, family) in [("common", "family-common"), ("flagged", "family-flagged"), ("joining", "family-common")] {
            #expect(try await storage.refreshToken(hash: StorageFixtures.refreshToken(label, familyID: family, userID: alice.id).tokenHash)?.familyID == family, "\(label)")
        }
        #expect(try await storage.credential(id: credential.credentialID)?.signCount == credential.signCount + 3)
        #expect(try await storage.events(userID: alice.id, limit: 10).map(\.detail) == ["joining", "flagged", "flagged", "common"])
        #expect(try await login("common", events: [.login], family: "family-replay") == false, "a replay")
        #expect(try await storage.events(userID: alice.id, limit: 10).count == 4, "the replay wrote nothing")
        #expect(try await storage.isSessionActive(familyID: "family-replay", userID: alice.id) == false)
    }

    /// Purging forgets the keys of ceremonies that expired before the time given, and keeps
    /// the rest.
    static func purgeCeremonies(_ storage: any IdentityStorage) async throws {
        let old = StorageFixtures.ceremonyKey("old", expiresIn: 100)
        let boundary = StorageFixtures.ceremonyKey("boundary", expiresIn: 200)
        let fresh = StorageFixtures.ceremonyKey("fresh", expiresIn: 300)
        for key in [old, boundary, fresh] {
            #expect(try await storage.completeCeremony(CeremonyCompletion(key: key)))
        }
        try await storage.purgeCeremonies(expiredBefore: StorageFixtures.time(200))
        #expect(try await storage.completeCeremony(CeremonyCompletion(key: old)), "forgotten")
        #expect(try await storage.completeCeremony(CeremonyCompletion(key: boundary)) == false, "expires at, not before, the purge time")
        #expect(try await storage.completeCeremony(CeremonyCompletion(key: fresh)) == false)
    }
}
