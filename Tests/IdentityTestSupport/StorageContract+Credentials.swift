import IdentityCore
import Testing

extension StorageContract {
    /// A user's credentials come oldest first, and only theirs.
    static func credentialsOldestFirst(_ storage: any IdentityStorage) async throws {
        let alice = StorageFixtures.user("alice")
        let first = StorageFixtures.credential("a", userID: alice.id, createdAt: StorageFixtures.time(10))
        try await storage.createUser(alice, credential: first)
        let (bob, bobCredential) = try await signUp("bob", on: storage)
        // Added out of creation order, and two with the same time in insertion order.
        let oldest = StorageFixtures.credential("b", userID: alice.id, createdAt: StorageFixtures.time(5))
        let tiedFirst = StorageFixtures.credential("c", userID: alice.id, createdAt: StorageFixtures.time(20))
        let tiedSecond = StorageFixtures.credential("d", userID: alice.id, createdAt: StorageFixtures.time(20))
        for credential in [tiedFirst, oldest, tiedSecond] {
            try await storage.addCredential(credential)
        }
        #expect(try await storage.credentials(userID: alice.id) == [oldest, first, tiedFirst, tiedSecond])
        #expect(try await storage.credentials(userID: bob.id) == [bobCredential])
    }

    /// Credential IDs are unique across users; names are unique per user only; a credential
    /// needs an existing user.
    static func addCredentialConflicts(_ storage: any IdentityStorage) async throws {
        let alice = StorageFixtures.user("alice")
        try await storage.createUser(alice, credential: StorageFixtures.credential("alice-1", userID: alice.id, name: "Phone"))
        let (bob, _) = try await signUp("bob", on: storage)

        await expectConflict(.credentialID, "the same ID for another user") {
            try await storage.addCredential(StorageFixtures.credential("alice-1", userID: bob.id))
        }
        await expectConflict(.credentialName, "a second \"Phone\" for alice") {
            try await storage.addCredential(StorageFixtures.credential("alice-2", userID: alice.id, name: "Phone"))
        }
        #expect(try await storage.credential(id: StorageFixtures.credentialID("alice-2")) == nil)

        let bobsPhone = StorageFixtures.credential("bob-2", userID: bob.id, name: "Phone")
        try await storage.addCredential(bobsPhone)
        #expect(try await storage.credential(id: bobsPhone.credentialID) == bobsPhone, "names are unique per user only")

        let orphan = StorageFixtures.credential("orphan", userID: UserID(rawValue: "user-nobody"))
        await #expect(throws: (any Error).self, "a credential of a user that does not exist") {
            try await storage.addCredential(orphan)
        }
        #expect(try await storage.credential(id: orphan.credentialID) == nil)
    }

    /// A login stores the counter, backup state and last use as given; UV and the regression
    /// flag, once set, stay set.
    static func ceremonyCompletionRecordsUse(_ storage: any IdentityStorage) async throws {
        let (alice, credential) = try await signUp("alice", on: storage)
        let (_, bobCredential) = try await signUp("bob", on: storage)
        let id = credential.credentialID

        func record(_ use: CredentialUse, _ label: String, credentialID: [UInt8] = id) async throws {
            #expect(try await storage.completeCeremony(CeremonyCompletion(key: StorageFixtures.ceremonyKey(label), credentialUse: .init(credentialID: credentialID, use: use))))
        }
        try await record(CredentialUse(signCount: 8, isBackedUp: true, isUserVerified: true, usedAt: StorageFixtures.time(100), signCountRegressed: true), "first")
        var stored = try #require(try await storage.credential(id: id))
        #expect(stored.signCount == 8)
        #expect(stored.isBackedUp)
        #expect(stored.isUserVerified)
        #expect(stored.lastUsedAt == StorageFixtures.time(100))
        #expect(stored.hasSignCountRegressed)

        try await record(CredentialUse(signCount: 4_000_000_000, isBackedUp: false, isUserVerified: false, usedAt: StorageFixtures.time(200), signCountRegressed: false), "second")
        stored = try #require(try await storage.credential(id: id))
        #expect(stored.signCount == 4_000_000_000, "the full UInt32 range is stored")
        #expect(!stored.isBackedUp, "backup state is as of the last ceremony")
        #expect(stored.isUserVerified, "UV, once seen, stays recorded")
        #expect(stored.lastUsedAt == StorageFixtures.time(200))
        #expect(stored.hasSignCountRegressed, "a possible clone stays flagged")

        // Everything else is untouched, and so is every other credential.
        var expected = credential
        expected.signCount = 4_000_000_000
        expected.isUserVerified = true
        expected.lastUsedAt = StorageFixtures.time(200)
        expected.hasSignCountRegressed = true
        #expect(stored == expected)
        #expect(try await storage.credential(id: bobCredential.credentialID) == bobCredential)
        #expect(try await storage.credentials(userID: alice.id) == [expected])

    }

    /// Renaming touches only the user's own credential; names are unique per user; `nil`
    /// clears a name.
    static func renameCredential(_ storage: any IdentityStorage) async throws {
        let (alice, first) = try await signUp("alice", on: storage)
        let second = StorageFixtures.credential("alice-2", userID: alice.id)
        try await storage.addCredential(second)
        let (bob, bobCredential) = try await signUp("bob", on: storage)

        #expect(try await storage.renameCredential(id: first.credentialID, userID: alice.id, name: "Laptop"))
        #expect(try await storage.credential(id: first.credentialID)?.name == "Laptop")
        #expect(try await storage.renameCredential(id: first.credentialID, userID: alice.id, name: "Laptop"), "renaming to its own name")

        await expectConflict(.credentialName) {
            _ = try await storage.renameCredential(id: second.credentialID, userID: alice.id, name: "Laptop")
        }
        #expect(try await storage.credential(id: second.credentialID)?.name == nil)

        #expect(try await storage.renameCredential(id: bobCredential.credentialID, userID: bob.id, name: "Laptop"), "another user may use the name")

        #expect(try await storage.renameCredential(id: bobCredential.credentialID, userID: alice.id, name: "Mine") == false, "another user's credential")
        #expect(try await storage.credential(id: bobCredential.credentialID)?.name == "Laptop")
        #expect(try await storage.renameCredential(id: [0x09], userID: alice.id, name: "Ghost") == false)

        #expect(try await storage.renameCredential(id: first.credentialID, userID: alice.id, name: nil))
        #expect(try await storage.credential(id: first.credentialID)?.name == nil)
        #expect(try await storage.renameCredential(id: second.credentialID, userID: alice.id, name: "Laptop"), "the name is free again")
        #expect(try await storage.renameCredential(id: second.credentialID, userID: alice.id, name: nil))
        #expect(try await storage.credentials(userID: alice.id).allSatisfy { $0.name == nil }, "several credentials may be unnamed")
    }

    /// Deleting never removes a user's last credential, nor another user's.
    static func deleteCredential(_ storage: any IdentityStorage) async throws {
        let (alice, first) = try await signUp("alice", on: storage)
        let (bob, bobCredential) = try await signUp("bob", on: storage)

        #expect(try await storage.deleteCredential(id: [0x09], userID: alice.id, at: StorageFixtures.time(9)) == .notFound)
        #expect(try await storage.deleteCredential(id: bobCredential.credentialID, userID: alice.id, at: StorageFixtures.time(9)) == .notFound)
        #expect(try await storage.credential(id: bobCredential.credentialID) != nil)
        #expect(try await storage.deleteCredential(id: first.credentialID, userID: alice.id, at: StorageFixtures.time(9)) == .lastCredential)
        #expect(try await storage.credential(id: first.credentialID) != nil)

        let second = StorageFixtures.credential("alice-2", userID: alice.id)
        try await storage.addCredential(second)
        #expect(try await storage.deleteCredential(id: first.credentialID, userID: alice.id, at: StorageFixtures.time(9)) == .deleted)
        #expect(try await storage.credential(id: first.credentialID) == nil)
        #expect(try await storage.credentials(userID: alice.id) == [second])
        #expect(try await storage.deleteCredential(id: first.credentialID, userID: alice.id, at: StorageFixtures.time(9)) == .notFound)
        #expect(try await storage.deleteCredential(id: second.credentialID, userID: alice.id, at: StorageFixtures.time(9)) == .lastCredential)
        #expect(try await storage.credentials(userID: bob.id) == [bobCredential])
    }
}
