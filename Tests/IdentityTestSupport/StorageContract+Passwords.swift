import IdentityCore
import Testing

extension StorageContract {
    /// An account created with a password has no passkey, reads back its hash, records its
    /// uses, and conflicts on identifiers like any other sign-up (writing nothing).
    static func passwordAccountRoundTrip(_ storage: any IdentityStorage) async throws {
        let user = StorageFixtures.user("pat")
        let record = PasswordRecord(userID: user.id, hash: "$scrypt$ln=15,r=8,p=1$c2FsdA$aGFzaA", createdAt: StorageFixtures.epoch)
        try await storage.createUser(user, password: record)
        #expect(try await storage.user(id: user.id) == user)
        #expect(try await storage.credentials(userID: user.id) == [])
        #expect(try await storage.password(userID: user.id) == record)

        try await storage.recordPasswordUse(userID: user.id, at: StorageFixtures.time(60))
        #expect(try await storage.password(userID: user.id)?.lastUsedAt == StorageFixtures.time(60))

        let twin = StorageFixtures.user("twin", email: "pat@example.com")
        await expectConflict(.identifier) {
            try await storage.createUser(twin, password: PasswordRecord(userID: twin.id, hash: "x", createdAt: StorageFixtures.epoch))
        }
        #expect(try await storage.user(id: twin.id) == nil)
        #expect(try await storage.password(userID: twin.id) == nil)
        #expect(try await storage.password(userID: UserID(rawValue: "user-nobody")) == nil)
    }

    /// The password goes only while a passkey can take over; once gone, it stays as a
    /// removed record without a hash, and no longer counts as a way to sign in.
    static func passwordRemovalNeedsAPasskey(_ storage: any IdentityStorage) async throws {
        let user = StorageFixtures.user("kim")
        try await storage.createUser(user, password: PasswordRecord(userID: user.id, hash: "hash", createdAt: StorageFixtures.epoch))
        #expect(try await storage.removePassword(userID: user.id, at: StorageFixtures.time(1)) == .lastMethod)
        #expect(try await storage.password(userID: user.id)?.hash == "hash")

        let passkey = StorageFixtures.credential("kim-1", userID: user.id)
        try await storage.addCredential(passkey)
        guard case .removed(let removed) = try await storage.removePassword(userID: user.id, at: StorageFixtures.time(2)) else {
            Issue.record("the password was not removed")
            return
        }
        #expect(removed.hash == nil)
        #expect(removed.removedAt == StorageFixtures.time(2))
        #expect(try await storage.password(userID: user.id) == removed)
        #expect(try await storage.removePassword(userID: user.id, at: StorageFixtures.time(3)) == .noPassword)
        #expect(try await storage.deleteCredential(id: passkey.credentialID, userID: user.id, at: StorageFixtures.time(9)) == .lastCredential)

        let (passkeyOnly, _) = try await signUp("lee", on: storage)
        #expect(try await storage.removePassword(userID: passkeyOnly.id, at: StorageFixtures.time(4)) == .noPassword)
    }

    /// While the account has a password, its only passkey may be deleted.
    static func passwordKeepsTheLastPasskeyDeletable(_ storage: any IdentityStorage) async throws {
        let user = StorageFixtures.user("max")
        try await storage.createUser(user, password: PasswordRecord(userID: user.id, hash: "hash", createdAt: StorageFixtures.epoch))
        let passkey = StorageFixtures.credential("max-1", userID: user.id)
        try await storage.addCredential(passkey)
        #expect(try await storage.deleteCredential(id: passkey.credentialID, userID: user.id, at: StorageFixtures.time(9)) == .deleted)
        #expect(try await storage.credentials(userID: user.id) == [])
    }
}
