import Foundation
import IdentityCore
import WebAuthn
import Testing

extension StorageContract {
    /// A credential is found by its record ID; disabling is stored, reversible, and only for
    /// the owner; record IDs are unique.
    static func credentialRecordIDAndDisabling(_ storage: any IdentityStorage) async throws {
        let (alice, credential) = try await signUp("alice", on: storage)
        let (bob, _) = try await signUp("bob", on: storage)
        #expect(UUIDText.isUUID(credential.recordID))
        #expect(try await storage.credential(recordID: credential.recordID) == credential)
        #expect(try await storage.credential(recordID: UUIDText.format(Array(repeating: 7, count: 16))) == nil)
        #expect(try await storage.credential(recordID: "' OR 1=1 --") == nil)
        #expect(credential.origin == "https://example.com", "the origin round-trips")

        func set(_ disabled: Bool, _ user: User, byAdministrator: Bool = false, id: [UInt8]? = nil) async throws -> CredentialStateChange {
            try await storage.setCredentialDisabled(
                id: id ?? credential.credentialID, userID: user.id, disabled: disabled, byAdministrator: byAdministrator, at: StorageFixtures.time(9)
            )
        }
        #expect(try await set(true, bob) == .notFound, "only the owner's")
        #expect(try await storage.credential(id: credential.credentialID)?.isDisabled == false)
        #expect(try await set(true, alice) == .changed)
        #expect(try await storage.credential(recordID: credential.recordID)?.isDisabled == true)
        #expect(try await storage.credential(recordID: credential.recordID)?.isDisabledByAdministrator == false)
        #expect(try await set(false, alice) == .changed)
        #expect(try await storage.credential(id: credential.credentialID)?.isDisabled == false)
        #expect(try await set(true, alice, id: [1, 2, 3]) == .notFound)

        // An administrator's decision stands against the owner, and only an administrator
        // undoes it; the owner turning it off again does not take it over.
        #expect(try await set(true, alice, byAdministrator: true) == .changed)
        #expect(try await storage.credential(id: credential.credentialID)?.isDisabledByAdministrator == true)
        #expect(try await set(false, alice) == .heldByAdministrator)
        #expect(try await storage.credential(id: credential.credentialID)?.isDisabled == true, "still off")
        #expect(try await set(true, alice) == .changed)
        #expect(try await set(false, alice) == .heldByAdministrator, "still the administrator's")
        #expect(try await set(false, alice, byAdministrator: true) == .changed)
        #expect(try await storage.credential(id: credential.credentialID).map { !$0.isDisabled && !$0.isDisabledByAdministrator } == true)

        // Another credential carrying an existing record ID is refused as a duplicate.
        let clash = PasskeyCredential(
            credentialID: StorageFixtures.credentialID("alice-2"), userID: alice.id, publicKey: [1], algorithm: .es256, signCount: 0,
            isBackupEligible: false, isBackedUp: false, isUserVerified: false, transports: [], aaguid: .zero, attestationFormat: "none",
            isAttestationTrusted: false, relyingPartyID: "example.com", createdAt: StorageFixtures.time(1), recordID: credential.recordID
        )
        await expectConflict(.credentialID, "a second credential with the same record ID") {
            try await storage.addCredential(clash)
        }
        #expect(try await storage.credential(id: clash.credentialID) == nil)
    }

    /// A user is found by their WebAuthn user handle, and only by the exact bytes.
    static func userByHandle(_ storage: any IdentityStorage) async throws {
        let (alice, _) = try await signUp("alice", on: storage)
        try await signUp("bob", on: storage)
        #expect(try await storage.user(handle: alice.userHandle) == alice)
        #expect(try await storage.user(handle: alice.userHandle + [0]) == nil)
        #expect(try await storage.user(handle: []) == nil)
    }

    /// Administration tokens are found by hash until they expire, and purged after.
    static func adminTokenLifecycle(_ storage: any IdentityStorage) async throws {
        let token = AdminToken(tokenHash: Array(repeating: 1, count: 32), applicationID: "backend", createdAt: StorageFixtures.time(0), expiresAt: StorageFixtures.time(60))
        let other = AdminToken(tokenHash: Array(repeating: 2, count: 32), applicationID: "backend", createdAt: StorageFixtures.time(0), expiresAt: StorageFixtures.time(600))
        try await storage.saveAdminToken(token)
        try await storage.saveAdminToken(other)
        #expect(try await storage.adminToken(hash: token.tokenHash, at: StorageFixtures.time(59)) == token)
        #expect(try await storage.adminToken(hash: token.tokenHash, at: StorageFixtures.time(60)) == nil, "expired")
        #expect(try await storage.adminToken(hash: Array(repeating: 3, count: 32), at: StorageFixtures.time(1)) == nil)
        await #expect(throws: (any Error).self, "the same hash twice") { try await storage.saveAdminToken(token) }
        try await storage.purgeAdminTokens(expiredBefore: StorageFixtures.time(100))
        #expect(try await storage.adminToken(hash: token.tokenHash, at: StorageFixtures.time(0)) == nil, "purged")
        #expect(try await storage.adminToken(hash: other.tokenHash, at: StorageFixtures.time(100)) == other, "not yet expired, kept")
    }
}
