import IdentityCore
import Testing
import LatchkeyWire

extension StorageContract {
    /// A user and their first credential read back equal, by ID and by each identifier;
    /// identifiers compare exactly, because normalizing is the caller's job.
    static func userRoundTrip(_ storage: any IdentityStorage) async throws {
        let user = StorageFixtures.user("alice", phoneNumber: "+15555550100")
        let credential = StorageFixtures.credential("alice-1", userID: user.id, name: "Laptop")
        try await storage.createUser(user, credential: credential)

        #expect(try await storage.user(id: user.id) == user)
        #expect(try await storage.user(identifier: .email("alice@example.com")) == user)
        #expect(try await storage.user(identifier: .phoneNumber("+15555550100")) == user)
        #expect(try await storage.user(identifier: .username("alice")) == user)
        #expect(try await storage.credential(id: credential.credentialID) == credential)
        #expect(try await storage.credentials(userID: user.id) == [credential])

        #expect(try await storage.user(id: UserID(rawValue: "user-nobody")) == nil)
        #expect(try await storage.user(identifier: .email("ALICE@example.com")) == nil, "lookups must not normalize")
        #expect(try await storage.user(identifier: .username("alice@example.com")) == nil, "an email is not a username")
        #expect(try await storage.user(identifier: .email("alice")) == nil, "a username is not an email")
        #expect(try await storage.credential(id: [0x00]) == nil)
        #expect(try await storage.credentials(userID: UserID(rawValue: "user-nobody")) == [])
    }

    /// Absent identifiers never collide with each other.
    static func usersWithoutSomeIdentifiers(_ storage: any IdentityStorage) async throws {
        let onlyUsername = User(
            id: UserID(rawValue: "user-1"), userHandle: [1], profile: UserProfile(username: "one"),
            createdAt: StorageFixtures.epoch, updatedAt: StorageFixtures.epoch
        )
        let onlyPhone = User(
            id: UserID(rawValue: "user-2"), userHandle: [2], profile: UserProfile(phoneNumber: "+15555550102"),
            createdAt: StorageFixtures.epoch, updatedAt: StorageFixtures.epoch
        )
        let alsoOnlyUsername = User(
            id: UserID(rawValue: "user-3"), userHandle: [3], profile: UserProfile(username: "three"),
            createdAt: StorageFixtures.epoch, updatedAt: StorageFixtures.epoch
        )
        for (index, user) in [onlyUsername, onlyPhone, alsoOnlyUsername].enumerated() {
            try await storage.createUser(user, credential: StorageFixtures.credential("c\(index)", userID: user.id))
        }
        #expect(try await storage.user(id: onlyPhone.id) == onlyPhone)
        #expect(try await storage.user(identifier: .username("three")) == alsoOnlyUsername)
        #expect(try await storage.user(identifier: .phoneNumber("+15555550102")) == onlyPhone)
    }

    /// Each identifier, and the user handle, is unique; a conflicting sign-up writes nothing.
    static func createUserIdentifierConflicts(_ storage: any IdentityStorage) async throws {
        let alice = StorageFixtures.user("alice", phoneNumber: "+15555550100")
        try await storage.createUser(alice, credential: StorageFixtures.credential("alice-1", userID: alice.id))

        let attempts: [(String, User)] = [
            ("email", StorageFixtures.user("bob", email: "alice@example.com")),
            ("phone number", StorageFixtures.user("bob", phoneNumber: "+15555550100")),
            ("username", StorageFixtures.user("bob", username: "alice")),
            ("user handle", StorageFixtures.user("bob", userHandle: alice.userHandle)),
        ]
        for (what, bob) in attempts {
            let credential = StorageFixtures.credential("bob-1", userID: bob.id)
            await expectConflict(.identifier, "a duplicate \(what)") {
                try await storage.createUser(bob, credential: credential)
            }
            #expect(try await storage.user(id: bob.id) == nil, "no user written after a duplicate \(what)")
            #expect(try await storage.credential(id: credential.credentialID) == nil, "no credential written after a duplicate \(what)")
            #expect(try await storage.user(identifier: .email("bob@example.com")) == nil)
        }
        #expect(try await storage.user(id: alice.id) == alice, "the existing user is untouched")

        // With the conflicts gone, the same sign-up succeeds: nothing was half-written.
        let bob = StorageFixtures.user("bob")
        try await storage.createUser(bob, credential: StorageFixtures.credential("bob-1", userID: bob.id))
        #expect(try await storage.user(identifier: .username("bob")) == bob)
    }

    /// A sign-up whose passkey is registered already writes nothing.
    static func createUserCredentialConflict(_ storage: any IdentityStorage) async throws {
        let (_, aliceCredential) = try await signUp("alice", on: storage)
        let bob = StorageFixtures.user("bob")
        let stolen = StorageFixtures.credential("alice-1", userID: bob.id)
        await expectConflict(.credentialID) {
            try await storage.createUser(bob, credential: stolen)
        }
        #expect(try await storage.user(id: bob.id) == nil)
        #expect(try await storage.user(identifier: .email("bob@example.com")) == nil)
        #expect(try await storage.credential(id: aliceCredential.credentialID) == aliceCredential, "alice keeps her passkey")
    }

    /// A first credential must belong to the user it is created with, or it would attach to
    /// whichever account its user ID names.
    static func createUserRejectsAnotherUsersCredential(_ storage: any IdentityStorage) async throws {
        let (alice, _) = try await signUp("alice", on: storage)
        let bob = StorageFixtures.user("bob")
        let credential = StorageFixtures.credential("bob-1", userID: alice.id)
        await #expect(throws: (any Error).self) {
            try await storage.createUser(bob, credential: credential)
        }
        #expect(try await storage.user(id: bob.id) == nil)
        #expect(try await storage.credential(id: credential.credentialID) == nil)
        #expect(try await storage.credentials(userID: alice.id).count == 1)
    }
}
