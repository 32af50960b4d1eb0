import Crypto
import Testing
import PKITestSupport
import WebAuthn
import X509

/// Attestation statements of every format, built with certificates generated here.
@Suite("Attestation formats")
struct AttestationFormatTests {
    /// A fixture whose policy trusts `root` for `format`.
    private func fixture(trusting root: TestIssuer, for format: AttestationFormat, attest: @escaping RegistrationFixture.Attest) throws -> RegistrationFixture {
        var fixture = try RegistrationFixture()
        fixture.policy.attestation.trustAnchors = [format: [root.anchor]]
        fixture.attest = attest
        return fixture
    }

    // MARK: packed

    @Test func packedWithCertificateChainIsTrusted() throws {
        let root = try TestPKI.root("Packed Root")
        let batchKey = P256.Signing.PrivateKey()
        let fixtureBase = try RegistrationFixture()
        let leaf = try TestPKI.leaf(subject: AttestationBuilders.packedSubject, publicKey: .init(batchKey.publicKey), issuer: root) {
            Critical(BasicConstraints.notCertificateAuthority)
            AttestationBuilders.aaguidExtension(fixtureBase.aaguid)
        }
        var fixture = fixtureBase
        fixture.policy.attestation.trustAnchors = [.packed: [root.anchor]]
        fixture.attest = AttestationBuilders.packed(chain: [leaf], key: batchKey)
        let result = try fixture.verify()
        #expect(result.attestation.type == .basic)
        #expect(result.attestation.trust.isTrusted)
        #expect(result.attestation.certificates.count == 1)

        // Without anchors the same statement is valid but untrusted.
        fixture.policy.attestation.trustAnchors = [:]
        guard case .untrusted(let reason) = try fixture.verify().attestation.trust else {
            Issue.record("expected an untrusted result")
            return
        }
        #expect(reason.contains("no trust anchors"))
    }

    @Test func packedRequirementsOnTheCertificate() throws {
        let root = try TestPKI.root("Packed Root")
        let batchKey = P256.Signing.PrivateKey()
        let wrongUnit = try TestPKI.leaf(subject: TestPKI.name("Key", unit: "Something Else"), publicKey: .init(batchKey.publicKey), issuer: root)
        var fixture = try fixture(trusting: root, for: .packed, attest: AttestationBuilders.packed(chain: [wrongUnit], key: batchKey))
        let error = expectFailure(.attestationInvalid) { try fixture.verify() }
        #expect(error?.reason.contains("Authenticator Attestation") == true)

        let caLeaf = try TestPKI.leaf(subject: AttestationBuilders.packedSubject, publicKey: .init(batchKey.publicKey), issuer: root) {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
        }
        fixture.attest = AttestationBuilders.packed(chain: [caLeaf], key: batchKey)
        expectFailure(.attestationInvalid) { try fixture.verify() }

        // §8.2.1: the certificate "MUST have" Basic Constraints with cA false; absent is refused.
        let noConstraints = try TestPKI.leaf(subject: AttestationBuilders.packedSubject, publicKey: .init(batchKey.publicKey), issuer: root)
        fixture.attest = AttestationBuilders.packed(chain: [noConstraints], key: batchKey)
        let missing = expectFailure(.attestationInvalid) { try fixture.verify() }
        #expect(missing?.reason.contains("no basicConstraints extension") == true, "\(missing?.reason ?? "accepted")")
    }

    @Test func packedAAGUIDExtensionMustMatch() throws {
        let root = try TestPKI.root("Packed Root")
        let batchKey = P256.Signing.PrivateKey()
        let other = AAGUID(uuidString: "00000000-1111-2222-3333-444444444444")!
        let leaf = try TestPKI.leaf(subject: AttestationBuilders.packedSubject, publicKey: .init(batchKey.publicKey), issuer: root) {
            Critical(BasicConstraints.notCertificateAuthority)
            AttestationBuilders.aaguidExtension(other)
        }
        var fixture = try fixture(trusting: root, for: .packed, attest: AttestationBuilders.packed(chain: [leaf], key: batchKey))
        let error = expectFailure(.attestationInvalid) { try fixture.verify() }
        #expect(error?.reason.contains("1.3.6.1.4.1.45724.1.1.4") == true)

        let critical = try TestPKI.leaf(subject: AttestationBuilders.packedSubject, publicKey: .init(batchKey.publicKey), issuer: root) {
            Critical(BasicConstraints.notCertificateAuthority)
            AttestationBuilders.aaguidExtension(fixture.aaguid, critical: true)
        }
        fixture.attest = AttestationBuilders.packed(chain: [critical], key: batchKey)
        let criticalError = expectFailure(.attestationInvalid) { try fixture.verify() }
        #expect(criticalError?.reason.contains("must not be critical") == true, "\(criticalError?.reason ?? "accepted")")
    }

    @Test func packedSignatureByAnotherKey() throws {
        let root = try TestPKI.root("Packed Root")
        let leaf = try TestPKI.leaf(subject: AttestationBuilders.packedSubject, publicKey: .init(P256.Signing.PrivateKey().publicKey), issuer: root)
        var fixture = try fixture(trusting: root, for: .packed, attest: AttestationBuilders.packed(chain: [leaf], key: P256.Signing.PrivateKey()))
        expectFailure(.attestationInvalid) { try fixture.verify() }
        fixture.policy.attestation.trustAnchors = [:]
        expectFailure(.attestationInvalid) { try fixture.verify() }
    }

    // MARK: fido-u2f

    @Test func fidoU2F() throws {
        let root = try TestPKI.root("U2F Root")
        let batchKey = P256.Signing.PrivateKey()
        let certificate = try TestPKI.leaf(subject: TestPKI.name("U2F EE"), publicKey: .init(batchKey.publicKey), issuer: root)
        var fixture = try fixture(trusting: root, for: .fidoU2F, attest: AttestationBuilders.fidoU2F(certificate: certificate, key: batchKey))
        let result = try fixture.verify()
        #expect(result.attestation.format == .fidoU2F)
        #expect(result.attestation.trust.isTrusted)

        // Another credential ID in the signed message breaks the signature.
        fixture.attest = { authData, clientDataHash, fixture in
            var other = fixture
            other.credentialID = randomBytes(16)
            return try AttestationBuilders.fidoU2F(certificate: certificate, key: batchKey)(authData, clientDataHash, other)
        }
        expectFailure(.attestationInvalid) { try fixture.verify() }
    }

    @Test func fidoU2FNeedsAP256Credential() throws {
        let root = try TestPKI.root("U2F Root")
        let batchKey = P256.Signing.PrivateKey()
        let certificate = try TestPKI.leaf(subject: TestPKI.name("U2F EE"), publicKey: .init(batchKey.publicKey), issuer: root)
        var fixture = try RegistrationFixture(algorithm: .edDSA)
        fixture.attest = { authData, clientDataHash, fixture in
            let signature = try batchKey.signature(for: authData + clientDataHash).derRepresentation
            return ("fido-u2f", ["sig": .bytes(Array(signature)), "x5c": [.bytes(certificate)]])
        }
        let error = expectFailure(.attestationInvalid) { try fixture.verify() }
        #expect(error?.reason.contains("P-256") == true)
    }

    // MARK: apple

    @Test func apple() throws {
        let root = try TestPKI.root("Apple WebAuthn Root CA (test)")
        let intermediate = try TestPKI.intermediate("Apple WebAuthn CA 1 (test)", issuer: root)
        var fixture = try fixture(trusting: root, for: .apple, attest: AttestationBuilders.apple(issuer: intermediate))
        let result = try fixture.verify()
        #expect(result.attestation.type == .anonCA)
        #expect(result.attestation.trust.isTrusted)

        fixture.attest = AttestationBuilders.apple(issuer: intermediate, nonceOverride: randomBytes(32))
        expectFailure(.attestationInvalid) { try fixture.verify() }

        fixture.attest = AttestationBuilders.apple(issuer: intermediate, certifiedKey: P256.Signing.PrivateKey().publicKey)
        let error = expectFailure(.attestationInvalid) { try fixture.verify() }
        #expect(error?.reason.contains("not the credential public key") == true)
    }

    // MARK: android-key

    @Test func androidKey() throws {
        let root = try TestPKI.root("Android Attestation Root (test)")
        var fixture = try fixture(trusting: root, for: .androidKey, attest: AttestationBuilders.androidKey(issuer: root))
        let result = try fixture.verify()
        #expect(result.attestation.format == .androidKey)
        #expect(result.attestation.trust.isTrusted)

        fixture.attest = AttestationBuilders.androidKey(issuer: root, challengeOverride: randomBytes(32))
        expectFailure(.attestationInvalid) { try fixture.verify() }

        fixture.attest = AttestationBuilders.androidKey(issuer: root, softwareEnforced: AttestationBuilders.allApplications)
        let allApps = expectFailure(.attestationInvalid) { try fixture.verify() }
        #expect(allApps?.reason.contains("allApplications") == true)
    }

    /// §8.4: origin must equal KM_ORIGIN_GENERATED and purpose KM_PURPOSE_SIGN in the union
    /// of both lists; a field neither list states equals neither, for every algorithm.
    @Test(arguments: AttestationBuilders.androidKeyAlgorithms)
    func androidKeyOriginAndPurpose(algorithm: COSEAlgorithmIdentifier) throws {
        let root = try TestPKI.root("Android Attestation Root (test)")
        var fixture = try RegistrationFixture(algorithm: algorithm)
        fixture.policy.attestation.trustAnchors = [.androidKey: [root.anchor]]
        typealias Lists = (software: [UInt8], tee: [UInt8])
        let sign = AttestationBuilders.purpose(2), signAndVerify = AttestationBuilders.purpose(2, 3), verifyOnly = AttestationBuilders.purpose(3)
        let generated = AttestationBuilders.origin(0), imported = AttestationBuilders.origin(2)
        let accepted: [(String, Lists)] = [
            ("both in the TEE list", ([], sign + generated)),
            ("both in the software list", (sign + generated, [])),
            ("one in each list", (generated, sign)),
            ("SIGN among other purposes", ([], signAndVerify + generated)),
        ]
        for (name, lists) in accepted {
            fixture.attest = AttestationBuilders.androidKey(issuer: root, softwareEnforced: lists.software, teeEnforced: lists.tee)
            #expect(throws: Never.self, "\(algorithm), \(name)") { try fixture.verify() }
        }
        let refused: [(String, Lists, String)] = [
            ("no origin", ([], sign), "origin is absent"),
            ("no purpose", ([], generated), "purpose is absent"),
            ("empty lists", ([], []), "origin is absent"),
            ("purpose without SIGN", ([], verifyOnly + generated), "does not include KM_PURPOSE_SIGN"),
            ("an imported key", ([], sign + imported), "is not KM_ORIGIN_GENERATED"),
            ("an imported key in the software list", (imported, sign + generated), "is not KM_ORIGIN_GENERATED"),
        ]
        for (name, lists, reason) in refused {
            fixture.attest = AttestationBuilders.androidKey(issuer: root, softwareEnforced: lists.software, teeEnforced: lists.tee)
            let error = expectFailure(.attestationInvalid) { try fixture.verify() }
            #expect(error?.reason.contains(reason) == true, "\(algorithm), \(name): \(error?.reason ?? "accepted")")
        }
    }

    @Test func androidKeyTEEOnlyPolicy() throws {
        let root = try TestPKI.root("Android Attestation Root (test)")
        var fixture = try fixture(
            trusting: root, for: .androidKey,
            attest: AttestationBuilders.androidKey(issuer: root, softwareEnforced: AttestationBuilders.teeGeneratedForSigning, teeEnforced: [])
        )
        #expect(try fixture.verify().attestation.trust.isTrusted)
        fixture.policy.attestation.androidKeyRequiresTEEEnforced = true
        let error = expectFailure(.attestationInvalid) { try fixture.verify() }
        #expect(error?.reason.contains("origin is absent from the TEE-enforced list") == true, "\(error?.reason ?? "accepted")")

        fixture.attest = AttestationBuilders.androidKey(issuer: root, softwareEnforced: AttestationBuilders.purpose(2), teeEnforced: AttestationBuilders.origin(0))
        let purposeError = expectFailure(.attestationInvalid) { try fixture.verify() }
        #expect(purposeError?.reason.contains("purpose is absent from the TEE-enforced list") == true, "\(purposeError?.reason ?? "accepted")")
    }

    // MARK: tpm

    @Test func tpm() throws {
        let root = try TestPKI.root("TPM Root (test)")
        var fixture = try fixture(trusting: root, for: .tpm, attest: AttestationBuilders.tpm(issuer: root))
        let result = try fixture.verify()
        #expect(result.attestation.type == .attCA)
        #expect(result.attestation.trust.isTrusted)

        var options = AttestationBuilders.TPMOptions()
        options.extraDataOverride = randomBytes(32)
        fixture.attest = AttestationBuilders.tpm(issuer: root, options: options)
        expectFailure(.attestationInvalid) { try fixture.verify() }

        options = .init()
        options.pubAreaKeyOverride = P256.Signing.PrivateKey().publicKey
        fixture.attest = AttestationBuilders.tpm(issuer: root, options: options)
        expectFailure(.attestationInvalid) { try fixture.verify() }

        options = .init()
        options.subject = TestPKI.name("not empty")
        fixture.attest = AttestationBuilders.tpm(issuer: root, options: options)
        expectFailure(.attestationInvalid) { try fixture.verify() }

        options = .init()
        options.includeEKU = false
        fixture.attest = AttestationBuilders.tpm(issuer: root, options: options)
        let error = expectFailure(.attestationInvalid) { try fixture.verify() }
        #expect(error?.reason.contains("2.23.133.8.3") == true)

        // §8.3.1: the AIK certificate "MUST have" Basic Constraints with cA false.
        options = .init()
        options.includeBasicConstraints = false
        fixture.attest = AttestationBuilders.tpm(issuer: root, options: options)
        let missing = expectFailure(.attestationInvalid) { try fixture.verify() }
        #expect(missing?.reason.contains("no basicConstraints extension") == true, "\(missing?.reason ?? "accepted")")
    }

    // MARK: android-safetynet

    @Test func safetyNet() throws {
        let root = try TestPKI.root("GlobalSign (test)")
        var fixture = try fixture(trusting: root, for: .androidSafetyNet, attest: AttestationBuilders.safetyNet(issuer: root))
        #expect(try fixture.verify().attestation.trust.isTrusted)

        var options = AttestationBuilders.SafetyNetOptions()
        options.nonceOverride = "AAAA"
        fixture.attest = AttestationBuilders.safetyNet(issuer: root, options: options)
        expectFailure(.attestationInvalid) { try fixture.verify() }

        options = .init()
        options.hostname = "attest.example.com"
        fixture.attest = AttestationBuilders.safetyNet(issuer: root, options: options)
        expectFailure(.attestationInvalid) { try fixture.verify() }

        options = .init()
        options.ctsProfileMatch = false
        fixture.attest = AttestationBuilders.safetyNet(issuer: root, options: options)
        expectFailure(.attestationInvalid) { try fixture.verify() }
        fixture.policy.attestation.safetyNet.requiresCTSProfileMatch = false
        #expect(throws: Never.self) { try fixture.verify() }

        // basicIntegrity has no waiver: false or missing fails whatever ctsProfileMatch says.
        for value in [false, nil] as [Bool?] {
            options = .init()
            options.basicIntegrity = value
            fixture.attest = AttestationBuilders.safetyNet(issuer: root, options: options)
            let error = expectFailure(.attestationInvalid) { try fixture.verify() }
            #expect(error?.reason.contains("basicIntegrity") == true)
        }
    }

    @Test func safetyNetTimestampUsesTheInjectedClock() throws {
        let root = try TestPKI.root("GlobalSign (test)")
        var options = AttestationBuilders.SafetyNetOptions()
        options.timestamp = TestPKI.now.addingTimeInterval(-120)
        var fixture = try fixture(trusting: root, for: .androidSafetyNet, attest: AttestationBuilders.safetyNet(issuer: root, options: options))
        let stale = expectFailure(.attestationInvalid) { try fixture.verify() }
        #expect(stale?.reason.contains("expired") == true)

        fixture.time = TestPKI.now.addingTimeInterval(-100)
        #expect(throws: Never.self) { try fixture.verify() }

        // A timestamp from the future, even by one second.
        fixture.time = TestPKI.now.addingTimeInterval(-121)
        let future = expectFailure(.attestationInvalid) { try fixture.verify() }
        #expect(future?.reason.contains("after the verification time") == true)
        fixture.time = TestPKI.now.addingTimeInterval(-120)
        #expect(throws: Never.self) { try fixture.verify() }

        // Without a maximum age, only the certificate's validity bounds the timestamp.
        fixture.policy.attestation.safetyNet.maximumAge = nil
        fixture.time = TestPKI.now.addingTimeInterval(30 * TestPKI.day)
        #expect(throws: Never.self) { try fixture.verify() }
        options.timestamp = TestPKI.now.addingTimeInterval(-5 * TestPKI.day)
        fixture.attest = AttestationBuilders.safetyNet(issuer: root, options: options)
        let outside = expectFailure(.attestationInvalid) { try fixture.verify() }
        #expect(outside?.reason.contains("validity") == true)
    }

    // MARK: compound

    @Test func compoundNeedsEveryMember() throws {
        let root = try TestPKI.root("Compound Root")
        var fixture = try RegistrationFixture()
        fixture.policy.attestation.trustAnchors = [.tpm: [root.anchor], .androidKey: [root.anchor]]
        fixture.attest = AttestationBuilders.compound([AttestationBuilders.tpm(issuer: root), AttestationBuilders.androidKey(issuer: root)])
        let result = try fixture.verify()
        #expect(result.attestation.type == .compound)
        #expect(result.attestation.components.map(\.format) == [.tpm, .androidKey])
        #expect(result.attestation.trust.isTrusted)

        // A self-attested member makes the whole untrusted but still valid.
        var selfAttested = try RegistrationFixture()
        selfAttested.usePackedSelfAttestation()
        fixture.attest = AttestationBuilders.compound([AttestationBuilders.tpm(issuer: root), selfAttested.attest])
        #expect(try fixture.verify().attestation.trust.isTrusted == false)

        // One invalid member fails the whole statement and is named.
        fixture.attest = AttestationBuilders.compound([
            AttestationBuilders.tpm(issuer: root),
            AttestationBuilders.androidKey(issuer: root, challengeOverride: randomBytes(32)),
        ])
        let error = expectFailure(.attestationInvalid) { try fixture.verify() }
        #expect(error?.reason.contains("attStmt[1]") == true)

        fixture.attest = AttestationBuilders.compound([AttestationBuilders.tpm(issuer: root)])
        expectFailure(.attestationInvalid) { try fixture.verify() }

        fixture.attest = AttestationBuilders.compound([
            AttestationBuilders.tpm(issuer: root),
            AttestationBuilders.compound([AttestationBuilders.tpm(issuer: root), AttestationBuilders.tpm(issuer: root)]),
        ])
        expectFailure(.attestationInvalid) { try fixture.verify() }
    }
}
