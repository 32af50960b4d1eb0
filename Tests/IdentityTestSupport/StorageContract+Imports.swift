import Foundation
import IdentityCore
import LatchkeyWire
import Testing

extension StorageContract {
    static func importedAccount(_ label: String, source: String, passkeys: Int = 2, hash: String? = "$2b$04$abcdefghijklmnopqrstuu5a3E5oUEvDh3LdfHsBgnmNodi07tRz2") -> ImportedAccount {
        // With what it keeps from its source, which every read of the user gives back.
        let base = StorageFixtures.user(label)
        let user = User(
            id: base.id, userHandle: base.userHandle, profile: base.profile, createdAt: base.createdAt, updatedAt: base.updatedAt,
            emailVerifiedAt: base.emailVerifiedAt, externalID: "auth0|\(label)", metadata: #"{"plan":"pro","seats":12}"#
        )
        return ImportedAccount(
            source: "kratos", sourceID: source, user: user,
            credentials: (0..<passkeys).map { StorageFixtures.credential("\(label)-\($0)", userID: user.id) }, passwordHash: hash,
            importedAt: StorageFixtures.time(50),
            event: AuditEvent(time: StorageFixtures.time(50), kind: .userCreated, userID: user.id, detail: "imported from kratos (\(source))", actor: "cli", origin: nil)
        )
    }

    /// An imported account arrives whole (user, every passkey, the password hash as the
    /// source kept it) and its source ID is remembered: importing it again writes nothing.
    static func importWritesTheWholeAccountOnce(_ storage: any IdentityStorage) async throws {
        let ada = importedAccount("ada", source: "1b0e8f5c-0000-4000-8000-000000000001")
        #expect(try await storage.importAccount(ada) == .created)
        #expect(try await storage.user(id: ada.user.id) == ada.user)
        #expect(try await storage.user(handle: ada.user.userHandle) == ada.user, "passkeys find their owner by the handle they were registered under")
        #expect(try await storage.credentialWithOwner(id: ada.credentials[0].credentialID)?.owner == ada.user, "the sign-in's join reads the user whole")
        #expect(try await storage.credentials(userID: ada.user.id).map(\.credentialID) == ada.credentials.map(\.credentialID))
        #expect(try await storage.password(userID: ada.user.id)?.hash == ada.passwordHash)
        #expect(try await storage.importedAccount(source: "kratos", sourceID: ada.sourceID) == ada.user.id)
        #expect(try await storage.events(userID: ada.user.id, limit: 10).map(\.detail) == ["imported from kratos (\(ada.sourceID))"], "its event, in the same write")
        #expect(try await storage.importedAccount(source: "auth0", sourceID: ada.sourceID) == nil, "source IDs are per source")

        // The same record again, even with other contents, changes nothing.
        let again = importedAccount("ada-again", source: ada.sourceID, passkeys: 1, hash: nil)
        #expect(try await storage.importAccount(again) == .importedBefore(ada.user.id))
        #expect(try await storage.user(id: again.user.id) == nil)
        #expect(try await storage.events(userID: ada.user.id, limit: 10).count == 1, "no second event")
        #expect(try await storage.credentials(userID: ada.user.id).count == 2)

        // Without a password, with no passkey: still an account.
        let bare = importedAccount("bare", source: "auth0|bare", passkeys: 0, hash: nil)
        #expect(try await storage.importAccount(bare) == .created)
        #expect(try await storage.password(userID: bare.user.id) == nil)
    }

    /// A record that collides with an account (its ID, an identifier, its user handle or a
    /// passkey ID) writes nothing at all, its source ID included.
    static func importConflictsWriteNothing(_ storage: any IdentityStorage) async throws {
        let ada = importedAccount("ada", source: "ada-source")
        #expect(try await storage.importAccount(ada) == .created)
        let grace = StorageFixtures.user("grace")
        let collisions: [(String, ImportedAccount, StoreConflict.Kind)] = [
            ("the same user ID", ImportedAccount(source: "kratos", sourceID: "s1", user: User(
                id: ada.user.id, userHandle: [9, 9], profile: UserProfile(email: "other@example.com"), createdAt: StorageFixtures.time(0), updatedAt: StorageFixtures.time(0)
            ), credentials: [], passwordHash: nil, importedAt: StorageFixtures.time(60)), .identifier),
            ("ada's email", ImportedAccount(source: "kratos", sourceID: "s2", user: StorageFixtures.user("grace", email: "ada@example.com"),
                credentials: [StorageFixtures.credential("grace-0", userID: grace.id)], passwordHash: "$2b$04$x", importedAt: StorageFixtures.time(60)), .identifier),
            ("ada's user handle", ImportedAccount(source: "kratos", sourceID: "s3", user: StorageFixtures.user("grace", userHandle: ada.user.userHandle),
                credentials: [], passwordHash: nil, importedAt: StorageFixtures.time(60)), .identifier),
            ("ada's passkey", ImportedAccount(source: "kratos", sourceID: "s4", user: grace,
                credentials: [StorageFixtures.credential("grace-0", userID: grace.id), StorageFixtures.credential("ada-1", userID: grace.id)],
                passwordHash: "$2b$04$x", importedAt: StorageFixtures.time(60)), .credentialID),
        ]
        for (what, account, kind) in collisions {
            await #expect(throws: StoreConflict(kind), "\(what)") { _ = try await storage.importAccount(account) }
            #expect(try await storage.importedAccount(source: account.source, sourceID: account.sourceID) == nil, "\(what): the source ID is not kept")
            #expect(try await storage.user(id: grace.id) == nil, "\(what): no account is kept")
            #expect(try await storage.credential(id: StorageFixtures.credentialID("grace-0")) == nil, "\(what): no passkey is kept")
        }
        #expect(try await storage.importAccount(importedAccount("grace", source: "s4")) == .created, "the same account without the collision imports")
    }

    /// A hash is replaced only while it is still the account's: the upgrade after a
    /// sign-in never undoes a password change made meanwhile.
    static func passwordHashUpgrade(_ storage: any IdentityStorage) async throws {
        let ada = importedAccount("ada", source: "ada", passkeys: 1, hash: "$2b$04$old")
        _ = try await storage.importAccount(ada)
        #expect(try await storage.replacePasswordHash(userID: ada.user.id, replacing: "$2b$04$other", with: "$scrypt$new") == false)
        #expect(try await storage.password(userID: ada.user.id)?.hash == "$2b$04$old")
        #expect(try await storage.replacePasswordHash(userID: ada.user.id, replacing: "$2b$04$old", with: "$scrypt$new"))
        #expect(try await storage.password(userID: ada.user.id)?.hash == "$scrypt$new")
        #expect(try await storage.replacePasswordHash(userID: ada.user.id, replacing: "$2b$04$old", with: "$scrypt$newer") == false, "only once")
        #expect(try await storage.replacePasswordHash(userID: UserID(rawValue: "nobody"), replacing: "$2b$04$old", with: "$scrypt$new") == false)
        _ = try await storage.removePassword(userID: ada.user.id, at: StorageFixtures.time(70))
        #expect(try await storage.replacePasswordHash(userID: ada.user.id, replacing: "$scrypt$new", with: "$scrypt$again") == false, "a removed password stays removed")
    }

    /// A record joined to an account here: the password only where the account has no
    /// password record, the external ID and metadata only where it has none, the source ID
    /// remembered; and nothing at all while the account lacks the address, verified.
    static func importMergesOnlyIntoAVerifiedAddress(_ storage: any IdentityStorage) async throws {
        let base = StorageFixtures.user("kai")
        let kai = User(
            id: base.id, userHandle: base.userHandle, profile: base.profile, createdAt: base.createdAt, updatedAt: base.updatedAt, emailVerifiedAt: StorageFixtures.time(2)
        )
        let unverified = StorageFixtures.user("lou")
        for user in [kai, unverified] {
            let account = ImportedAccount(source: "local", sourceID: user.id.rawValue, user: user, credentials: [], passwordHash: nil, importedAt: StorageFixtures.time(3))
            #expect(try await storage.importAccount(account) == .created)
        }
        func merge(_ source: String, _ user: User, email: String? = nil, hash: String = "$2b$04$first", external: String = "auth0|kai") -> ImportedMerge {
            ImportedMerge(
                source: source, sourceID: "s-\(user.id.rawValue)", userID: user.id, email: email ?? user.profile.email ?? "", passwordHash: hash, externalID: external,
                metadata: #"{"plan":"pro"}"#, importedAt: StorageFixtures.time(70),
                event: AuditEvent(time: StorageFixtures.time(70), kind: .userCreated, userID: user.id, detail: "merged from \(source)", actor: "cli", origin: nil)
            )
        }
        #expect(try await storage.mergeImportedAccount(merge("auth0", kai)) == .merged(passwordAdded: true))
        let merged = try #require(try await storage.user(id: kai.id))
        #expect(merged.externalID == "auth0|kai" && merged.metadata == #"{"plan":"pro"}"# && merged.profile == kai.profile && merged.userHandle == kai.userHandle)
        #expect(try await storage.password(userID: kai.id)?.hash == "$2b$04$first")
        #expect(try await storage.importedAccount(source: "auth0", sourceID: "s-\(kai.id.rawValue)") == kai.id)
        #expect(try await storage.events(userID: kai.id, limit: 10).map(\.detail).contains("merged from auth0"))

        #expect(try await storage.mergeImportedAccount(merge("auth0", kai, hash: "$2b$04$again")) == .importedBefore(kai.id))
        #expect(try await storage.mergeImportedAccount(merge("kratos", kai, hash: "$2b$04$second", external: "other")) == .merged(passwordAdded: false))
        #expect(try await storage.password(userID: kai.id)?.hash == "$2b$04$first", "the account's password stays")
        #expect(try await storage.user(id: kai.id)?.externalID == "auth0|kai", "the first external ID stays")

        for (what, refused) in [("an unverified address", merge("auth0", unverified)), ("another address", merge("keycloak", kai, email: "someone@example.com"))] {
            #expect(try await storage.mergeImportedAccount(refused) == .accountChanged, "\(what)")
            #expect(try await storage.importedAccount(source: refused.source, sourceID: refused.sourceID) == nil, "\(what): the source ID is not kept")
        }
        #expect(try await storage.password(userID: unverified.id) == nil)
        #expect(try await storage.user(id: unverified.id)?.externalID == nil)
    }
}
