import Crypto
import Foundation
import Testing
import PKITestSupport
import WebAuthn
import X509

/// Path building and trust decisions, through `packed` registrations with generated PKIs.
@Suite("Certificate chains")
struct CertificateChainTests {
    private let batchKey = P256.Signing.PrivateKey()

    private func leaf(_ issuer: TestIssuer, notBefore: Date = TestPKI.now - TestPKI.day, notAfter: Date = TestPKI.now + 365 * TestPKI.day) throws -> [UInt8] {
        try TestPKI.leaf(subject: AttestationBuilders.packedSubject, publicKey: .init(batchKey.publicKey), issuer: issuer, notBefore: notBefore, notAfter: notAfter) {
            Critical(BasicConstraints.notCertificateAuthority)
        }
    }

    private func fixture(chain: [[UInt8]], anchors: [TestIssuer]) throws -> RegistrationFixture {
        var fixture = try RegistrationFixture()
        fixture.attest = AttestationBuilders.packed(chain: chain, key: batchKey)
        fixture.policy.attestation.trustAnchors = [.packed: anchors.map(\.anchor)]
        return fixture
    }

    @Test func pathThroughAnIntermediate() throws {
        let root = try TestPKI.root("Root")
        let intermediate = try TestPKI.intermediate("Intermediate", issuer: root)
        let fixture = try fixture(chain: [try leaf(intermediate), intermediate.der], anchors: [root])
        guard case .trusted(let anchor) = try fixture.verify().attestation.trust else {
            Issue.record("expected a trusted chain")
            return
        }
        #expect(anchor.contains("CN=Root"))
    }

    @Test func aRootInsideTheChainIsNeverTrusted() throws {
        let root = try TestPKI.root("Self-Made Root")
        let fixture = try fixture(chain: [try leaf(root), root.der], anchors: [try TestPKI.root("Configured Root")])
        let error = expectFailure(.attestationUntrusted) { try fixture.verify() }
        #expect(error?.reason.contains("Self-Made Root") == true)
    }

    @Test func everyCandidateIssuerIsTried() throws {
        // Two anchors share a subject name; only the second holds the signing key.
        let key = P256.Signing.PrivateKey()
        let impostor = try TestPKI.root("Shared Name")
        let real = try TestPKI.root("Shared Name", key: key)
        let fixture = try fixture(chain: [try leaf(real)], anchors: [impostor, real])
        #expect(try fixture.verify().attestation.trust.isTrusted)
    }

    @Test func expiredCertificatesBreakThePath() throws {
        let root = try TestPKI.root("Root")
        var fixture = try fixture(chain: [try leaf(root, notBefore: TestPKI.now - 30 * TestPKI.day, notAfter: TestPKI.now - TestPKI.day)], anchors: [root])
        let error = expectFailure(.attestationUntrusted) { try fixture.verify() }
        #expect(error?.reason.contains("not valid at 2026-01-01T00:00:00Z") == true)
        // The same chain verifies at a time inside the validity period.
        fixture.time = TestPKI.now - 2 * TestPKI.day
        #expect(try fixture.verify().attestation.trust.isTrusted)
    }

    @Test func anExpiredAnchorBreaksThePath() throws {
        let root = try TestPKI.root("Old Root", notBefore: TestPKI.now - 3650 * TestPKI.day, notAfter: TestPKI.now - TestPKI.day)
        let fixture = try fixture(chain: [try leaf(root, notBefore: TestPKI.now - 30 * TestPKI.day)], anchors: [root])
        expectFailure(.attestationUntrusted) { try fixture.verify() }
    }

    @Test func issuersMustBeCertificateAuthorities() throws {
        let root = try TestPKI.root("Root")
        let notCA = try TestPKI.intermediate("Not A CA", issuer: root, isCertificateAuthority: false)
        let fixture = try fixture(chain: [try leaf(notCA), notCA.der], anchors: [root])
        let error = expectFailure(.attestationUntrusted) { try fixture.verify() }
        #expect(error?.reason.contains("not a CA") == true)
    }

    @Test func pathLengthConstraintsAreEnforced() throws {
        let root = try TestPKI.root("Root")
        let first = try TestPKI.intermediate("First", issuer: root, pathLength: 0)
        let second = try TestPKI.intermediate("Second", issuer: first)
        let fixture = try fixture(chain: [try leaf(second), second.der, first.der], anchors: [root])
        let error = expectFailure(.attestationUntrusted) { try fixture.verify() }
        #expect(error?.reason.contains("allows 0 intermediate") == true)
    }

    @Test func unhandledCriticalExtensionsBreakThePath() throws {
        let root = try TestPKI.root("Root")
        let leaf = try TestPKI.leaf(subject: AttestationBuilders.packedSubject, publicKey: .init(batchKey.publicKey), issuer: root) {
            Critical(BasicConstraints.notCertificateAuthority)
            TestPKI.custom([1, 2, 3, 4, 5], critical: true, value: [0x05, 0x00])
        }
        let fixture = try fixture(chain: [leaf], anchors: [root])
        let error = expectFailure(.attestationUntrusted) { try fixture.verify() }
        #expect(error?.reason.contains("1.2.3.4.5") == true)
    }

    /// A CRL revokes what it lists only when the issuer the path found signed it: the
    /// intermediate's own list revokes the leaf, a list with the same issuer name signed by
    /// another key does not, and neither does one that lists other serial numbers.
    @Test func revocationListsOnThePathRevoke() throws {
        let root = try TestPKI.root("Root")
        let intermediate = try TestPKI.intermediate("Intermediate", issuer: root)
        let leafDER = try leaf(intermediate)
        let leafSerial = try AttestationCertificate(derEncoded: leafDER).serialNumber
        var fixture = try fixture(chain: [leafDER, intermediate.der], anchors: [root])

        let genuine = try CertificateRevocationList(derEncoded: try TestPKI.revocationList(issuer: intermediate, revoking: [[0x05], leafSerial]))
        #expect(genuine.revokedSerialNumbers.contains(leafSerial))
        fixture.policy.attestation.revocationLists = [genuine]
        let error = expectFailure(.certificateRevoked) { try fixture.verify() }
        #expect(error?.reason.contains("revocation list") == true)

        let forged = try CertificateRevocationList(derEncoded: try TestPKI.revocationList(
            issuer: intermediate, revoking: [leafSerial], signedBy: P256.Signing.PrivateKey()
        ))
        fixture.policy.attestation.revocationLists = [forged]
        #expect(try fixture.verify().attestation.trust.isTrusted)

        let unrelated = try CertificateRevocationList(derEncoded: try TestPKI.revocationList(issuer: intermediate, revoking: [[0x05]]))
        fixture.policy.attestation.revocationLists = [unrelated]
        #expect(try fixture.verify().attestation.trust.isTrusted)

        // The root's list revokes the intermediate, and with it the path.
        let intermediateSerial = intermediate.anchor.serialNumber
        fixture.policy.attestation.revocationLists = [
            try CertificateRevocationList(derEncoded: try TestPKI.revocationList(issuer: root, revoking: [intermediateSerial]))
        ]
        expectFailure(.certificateRevoked) { try fixture.verify() }
    }

    @Test(arguments: [[UInt8](), [0x30, 0x00], [0x30, 0x03, 0x02, 0x01, 0x01]])
    func malformedRevocationListsAreRefused(bytes: [UInt8]) {
        #expect(throws: WebAuthnError.self) { try CertificateRevocationList(derEncoded: bytes) }
    }

    @Test func revokedCertificatesAreRejected() throws {
        let root = try TestPKI.root("Root")
        let leafDER = try leaf(root)
        var fixture = try fixture(chain: [leafDER], anchors: [root])
        fixture.policy.attestation.revokedCertificates = [RevokedCertificate(try AttestationCertificate(derEncoded: leafDER))]
        expectFailure(.certificateRevoked) { try fixture.verify() }
    }

    @Test func untrustedChainsAreAcceptedUnderRequirementAny() throws {
        let root = try TestPKI.root("Root")
        var fixture = try fixture(chain: [try leaf(root)], anchors: [try TestPKI.root("Other")])
        fixture.policy.attestation.requirement = .any
        #expect(try fixture.verify().attestation.trust.isTrusted == false)
        fixture.policy.attestation.requirement = .trusted
        fixture.policy.attestation.trustAnchors = [:]
        expectFailure(.attestationUntrusted) { try fixture.verify() }
    }

    @Test func pemAnchorsParse() throws {
        let root = try TestPKI.root("PEM Root")
        let pem = "-----BEGIN CERTIFICATE-----\n" + Data(root.der).base64EncodedString(options: .lineLength64Characters) + "\n-----END CERTIFICATE-----\n"
        let parsed = try AttestationCertificate.parsePEM(pem + pem)
        #expect(parsed.count == 2)
        #expect(parsed[0].subject.description.contains("CN=PEM Root"))
        #expect(throws: WebAuthnError.self) { try AttestationCertificate.parsePEM("not a certificate") }
    }
}
