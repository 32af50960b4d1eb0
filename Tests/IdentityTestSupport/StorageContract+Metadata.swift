import Foundation
import IdentityCore
import Testing
import WebAuthn

extension StorageContract {
    /// The stored BLOB's serial number never goes back: a lower one is refused with the
    /// stored number, the same one changes nothing, a higher one replaces it, bytes intact.
    static func metadataBLOBNeverGoesBack(_ storage: any IdentityStorage) async throws {
        #expect(try await storage.metadataBLOB() == nil)
        let first = StoredMetadataBLOB(number: 7, bytes: [0x00, 0xFF] + Array("blob-7".utf8), storedAt: StorageFixtures.time(1))
        #expect(try await storage.saveMetadataBLOB(first) == .stored)
        #expect(try await storage.metadataBLOB() == first)

        let sameNumber = StoredMetadataBLOB(number: 7, bytes: Array("other".utf8), storedAt: StorageFixtures.time(2))
        #expect(try await storage.saveMetadataBLOB(sameNumber) == .unchanged)
        let older = StoredMetadataBLOB(number: 6, bytes: Array("blob-6".utf8), storedAt: StorageFixtures.time(3))
        #expect(try await storage.saveMetadataBLOB(older) == .older(stored: 7))
        #expect(try await storage.metadataBLOB() == first)

        let newer = StoredMetadataBLOB(number: 8, bytes: Array(repeating: 0x41, count: 300_000), storedAt: StorageFixtures.time(4))
        #expect(try await storage.saveMetadataBLOB(newer) == .stored)
        #expect(try await storage.metadataBLOB() == newer)
    }

    /// Passkeys are found by authenticator model, oldest first, with their metadata match.
    static func credentialsByAAGUID(_ storage: any IdentityStorage) async throws {
        let model = try #require(AAGUID(uuidString: "11111111-2222-3333-4444-555555555555"))
        let other = try #require(AAGUID(uuidString: "66666666-7777-8888-9999-000000000000"))
        let ada = StorageFixtures.user("ada")
        let first = StorageFixtures.credential("ada-1", userID: ada.id, createdAt: StorageFixtures.time(1), aaguid: model)
        try await storage.createUser(ada, credential: first)
        let second = StorageFixtures.credential("ada-2", userID: ada.id, createdAt: StorageFixtures.time(2), aaguid: other)
        try await storage.addCredential(second)
        let bob = StorageFixtures.user("bob")
        let third = StorageFixtures.credential("bob-1", userID: bob.id, createdAt: StorageFixtures.time(3), aaguid: model)
        try await storage.createUser(bob, credential: third)

        #expect(try await storage.credentials(aaguids: [model]) == [first, third])
        #expect(try await storage.credentials(aaguids: [model, other]).map(\.credentialID) == [first, second, third].map(\.credentialID))
        #expect(try await storage.credentials(aaguids: []).isEmpty)
        #expect(try await storage.credential(id: first.credentialID)?.attestationMetadata == first.attestationMetadata)
    }
}
