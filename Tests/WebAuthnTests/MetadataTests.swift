import Crypto
import Foundation
import PKITestSupport
import Testing
import WebAuthn
import X509

/// FIDO Metadata Service BLOBs: verification, lookups, trust through a model's roots, and
/// refusal by status; and the registration policy the pipeline enforces.
@Suite("Metadata and registration policy")
struct MetadataTests {
    let service: TestMetadataService
    let modelRoot: TestIssuer
    let batchKey = P256.Signing.PrivateKey()
    let aaguid = AAGUID(uuidString: "6a7b8c9d-0e1f-4a2b-9c3d-4e5f60718293")!

    init() throws {
        service = try TestMetadataService()
        modelRoot = try TestPKI.root("Model Attestation Root")
    }

    func blob(number: Int = 7, nextUpdate: String = "2026-02-01", statuses: [(String, String)] = [("FIDO_CERTIFIED_L1", "2024-01-01")]) throws -> [UInt8] {
        try service.blob(number: number, nextUpdate: nextUpdate, entries: [
            TestMetadataService.entry(aaguid: aaguid.uuidString, description: "Test Key 5", roots: [modelRoot.der], statuses: statuses),
            ["aaid": "4e4e#4005"],  // a UAF entry: not WebAuthn's, skipped
        ])
    }

    func verified(_ bytes: [UInt8], at time: Date = TestPKI.now) throws -> MetadataBLOB {
        try MetadataBLOB.verify(bytes, roots: [service.root.anchor], at: time)
    }

    /// A packed registration whose batch certificate chains to `modelRoot`.
    func packedFixture() throws -> RegistrationFixture {
        var fixture = try RegistrationFixture()
        let leaf = try TestPKI.leaf(subject: AttestationBuilders.packedSubject, publicKey: .init(batchKey.publicKey), issuer: modelRoot) {
            Critical(BasicConstraints.notCertificateAuthority)
        }
        fixture.attest = AttestationBuilders.packed(chain: [leaf], key: batchKey)
        return fixture
    }

    // MARK: The BLOB

    @Test func aVerifiedBLOBIsIndexedByAAGUID() throws {
        let blob = try verified(try blob())
        #expect(blob.number == 7)
        #expect(blob.nextUpdate == "2026-02-01")
        #expect(blob.entries.count == 1)
        let entry = try #require(blob.entry(aaguid: aaguid))
        #expect(entry.description == "Test Key 5")
        #expect(entry.attestationRoots == [modelRoot.anchor])
        #expect(blob.entry(aaguid: AAGUID(uuidString: "00000000-1111-2222-3333-444444444444")!) == nil)
    }

    @Test func aChangedPayloadByteBreaksTheSignature() throws {
        var bytes = try blob()
        let payloadStart = try #require(bytes.firstIndex(of: UInt8(ascii: "."))) + 1
        bytes[payloadStart + 10] = bytes[payloadStart + 10] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let error = expectFailure(.metadataInvalid) { try verified(bytes) }
        #expect(error?.reason.contains("signature") == true || error?.reason.contains("payload") == true)
    }

    @Test func aBLOBSignedUnderAnotherRootIsRefused() throws {
        let stranger = try TestMetadataService()
        let bytes = try stranger.blob(number: 7, nextUpdate: "2026-02-01", entries: [])
        let error = expectFailure(.metadataInvalid) { try verified(bytes) }
        #expect(error?.reason.contains("does not chain to the metadata root") == true)
    }

    @Test func anOutOfDateBLOBIsRefused() throws {
        let bytes = try blob(nextUpdate: "2025-12-30")
        let error = expectFailure(.metadataInvalid) { try verified(bytes) }
        #expect(error?.reason.contains("out of date") == true)
        // Until the end of the nextUpdate day it is still current.
        #expect(throws: Never.self) { try verified(try blob(nextUpdate: "2025-12-31"), at: TestPKI.now - 1) }
    }

    @Test(arguments: ["not a jwt", "a.b.c", ""])
    func malformedBLOBsAreRefused(text: String) {
        expectFailure(.metadataInvalid) { try verified(Array(text.utf8)) }
    }

    @Test func theLatestStatusIsTheOneWithTheLatestEffectiveDate() throws {
        let entry = MetadataEntry(
            aaguid: aaguid, attestationCertificateKeyIdentifiers: [], description: nil, icon: nil, attestationRoots: [],
            statusReports: [.init(status: "REVOKED", effectiveDate: "2025-03-01"), .init(status: "FIDO_CERTIFIED", effectiveDate: "2024-01-01")]
        )
        #expect(entry.latestStatus?.status == "REVOKED")
    }

    // MARK: Trust and status in the pipeline

    @Test func theModelsMetadataRootsMakeItsAttestationTrusted() throws {
        var fixture = try packedFixture()
        fixture.policy.attestation.requirement = .trusted
        expectFailure(.attestationUntrusted) { try fixture.verify() }

        fixture.policy.attestation.metadata = try verified(try blob())
        let result = try fixture.verify()
        #expect(result.attestation.trust.isTrusted)
        #expect(result.metadata == MetadataMatch(entry: "aaguid \(aaguid.uuidString)", description: "Test Key 5", status: "FIDO_CERTIFIED_L1"))
    }

    @Test func anotherModelsRootsDoNotVouch() throws {
        var fixture = try packedFixture()
        fixture.policy.attestation.requirement = .trusted
        fixture.aaguid = AAGUID(uuidString: "00000000-1111-2222-3333-444444444444")!
        fixture.policy.attestation.metadata = try verified(try blob())
        expectFailure(.attestationUntrusted) { try fixture.verify() }
    }

    @Test(arguments: ["REVOKED", "USER_KEY_REMOTE_COMPROMISE", "USER_KEY_PHYSICAL_COMPROMISE", "ATTESTATION_KEY_COMPROMISE"])
    func aRefusedLatestStatusRefusesTheRegistration(status: String) throws {
        var fixture = try packedFixture()
        fixture.policy.attestation.metadata = try verified(try blob(statuses: [("FIDO_CERTIFIED_L1", "2023-01-01"), (status, "2025-06-01")]))
        let error = expectFailure(.authenticatorStatusRefused) { try fixture.verify() }
        #expect(error?.reason.contains(status) == true)
        #expect(error?.reason.contains("refuse_statuses") == true)
    }

    @Test func anOlderRefusedStatusDoesNotCount() throws {
        var fixture = try packedFixture()
        fixture.policy.attestation.metadata = try verified(try blob(statuses: [("FIDO_CERTIFIED_L2", "2025-06-01"), ("REVOKED", "2023-01-01")]))
        #expect(try fixture.verify().metadata?.status == "FIDO_CERTIFIED_L2")
        // The refused list is the policy's.
        fixture.policy.attestation.refusedStatuses = ["FIDO_CERTIFIED_L2"]
        expectFailure(.authenticatorStatusRefused) { try fixture.verify() }
    }

    @Test func aU2FModelIsFoundByItsCertificateKeyIdentifier() throws {
        let certificate = try TestPKI.leaf(subject: TestPKI.name("U2F EE"), publicKey: .init(batchKey.publicKey), issuer: modelRoot)
        let keyIdentifier = try AttestationCertificate(derEncoded: certificate).keyIdentifier
        #expect(keyIdentifier.count == 40)
        var fixture = try RegistrationFixture()
        fixture.aaguid = .zero
        fixture.attest = AttestationBuilders.fidoU2F(certificate: certificate, key: batchKey)
        fixture.policy.attestation.requirement = .trusted
        fixture.policy.attestation.metadata = try verified(try service.blob(number: 1, nextUpdate: "2026-02-01", entries: [
            TestMetadataService.entry(keyIdentifiers: [keyIdentifier.uppercased()], description: "U2F Key", roots: [modelRoot.der], statuses: [("REVOKED", "2025-01-01")])
        ]))
        let error = expectFailure(.authenticatorStatusRefused) { try fixture.verify() }
        #expect(error?.reason.contains("key \(keyIdentifier)") == true)
    }

    // MARK: Registration policy

    @Test func deviceBoundPolicyRefusesBackupEligibleCredentials() throws {
        var fixture = try RegistrationFixture()
        fixture.policy.registration.requiresDeviceBound = true
        #expect(throws: Never.self) { try fixture.verify() }
        fixture.flags.insert(.backupEligible)
        let error = expectFailure(.deviceBoundRequired) { try fixture.verify() }
        #expect(error?.reason.contains("require_device_bound") == true)
    }

    @Test func aaguidListsAreEnforced() throws {
        var fixture = try RegistrationFixture()
        let other = AAGUID(uuidString: "00000000-1111-2222-3333-444444444444")!
        fixture.policy.registration.allowedAAGUIDs = [other]
        let notAllowed = expectFailure(.aaguidNotAllowed) { try fixture.verify() }
        #expect(notAllowed?.reason.contains("allowed_aaguids") == true)
        fixture.policy.registration.allowedAAGUIDs = [fixture.aaguid, other]
        #expect(throws: Never.self) { try fixture.verify() }
        fixture.policy.registration.deniedAAGUIDs = [fixture.aaguid]
        let denied = expectFailure(.aaguidDenied) { try fixture.verify() }
        #expect(denied?.reason.contains("denied_aaguids") == true)
    }
}
