import Authenticator
import CBOR
import Crypto
import Testing
import PKITestSupport
import WebAuthn

/// Each test starts from a valid registration and changes one field (WebAuthn L3 §7.1).
@Suite("Registration pipeline: one field changed at a time")
struct RegistrationPipelineTests {
    @Test(arguments: [COSEAlgorithmIdentifier.es256, .es384, .es512, .edDSA, .ed25519, .rs256, .ps256, .mldsa65, .mldsa87])
    func validRegistrationsVerify(algorithm: COSEAlgorithmIdentifier) throws {
        var fixture = try RegistrationFixture(algorithm: algorithm)
        fixture.usePackedSelfAttestation()
        let result = try fixture.verify()
        #expect(result.credentialID == fixture.credentialID)
        #expect(result.publicKey.algorithm == algorithm)
        #expect(result.attestation.type == .self)
        #expect(result.attestation.trust == .notApplicable)
        #expect(result.aaguid == fixture.aaguid)
        #expect(result.relyingPartyID == "example.com")
        #expect(result.origin == "https://example.com")
        #expect(result.transports == ["usb"])
    }

    @Test func noneAttestationVerifies() throws {
        let result = try RegistrationFixture().verify()
        #expect(result.attestation.format == .none)
        #expect(result.attestation.type == .none)
    }

    @Test func wrongChallenge() throws {
        var fixture = try RegistrationFixture()
        fixture.ceremony.challenge = randomBytes(32)
        expectFailure(.challengeMismatch) { try fixture.verify() }
    }

    @Test func wrongType() throws {
        var fixture = try RegistrationFixture()
        fixture.clientData.type = "webauthn.get"
        let error = expectFailure(.clientDataTypeMismatch) { try fixture.verify() }
        #expect(error?.reason.contains("\"webauthn.get\"") == true)
        #expect(error?.reason.contains("\"webauthn.create\"") == true)
    }

    @Test func wrongOrigin() throws {
        var fixture = try RegistrationFixture()
        fixture.clientData.origin = "https://evil.example"
        let error = expectFailure(.originNotAllowed) { try fixture.verify() }
        #expect(error?.reason.contains("https://evil.example") == true)
        #expect(error?.reason.contains("https://example.com") == true)
    }

    @Test func crossOriginIsRejectedUnlessAllowed() throws {
        var fixture = try RegistrationFixture()
        fixture.clientData.crossOrigin = true
        fixture.clientData.topOrigin = "https://embedder.example"
        expectFailure(.crossOriginNotAllowed) { try fixture.verify() }

        fixture.policy.crossOrigin = .allowed(topOrigins: OriginPolicy(["https://other.example"]))
        expectFailure(.crossOriginNotAllowed) { try fixture.verify() }

        fixture.policy.crossOrigin = .allowed(topOrigins: OriginPolicy(["https://embedder.example"]))
        #expect(try fixture.verify().topOrigin == "https://embedder.example")
    }

    @Test func topOriginWithoutCrossOriginIsRejected() throws {
        var fixture = try RegistrationFixture()
        fixture.clientData.topOrigin = "https://embedder.example"
        fixture.policy.crossOrigin = .allowed(topOrigins: nil)
        expectFailure(.crossOriginNotAllowed) { try fixture.verify() }
    }

    @Test func wrongRelyingPartyIDHash() throws {
        var fixture = try RegistrationFixture()
        fixture.relyingPartyID = "evil.example"
        expectFailure(.rpIDHashMismatch) { try fixture.verify() }
    }

    @Test func userPresenceIsRequiredExceptForConditionalCreate() throws {
        var fixture = try RegistrationFixture()
        fixture.flags = [.userVerified]
        expectFailure(.userPresenceRequired) { try fixture.verify() }
        fixture.ceremony.isConditionalCreate = true
        #expect(try fixture.verify().flags.isUserPresent == false)
    }

    @Test func userVerificationWhenRequired() throws {
        var fixture = try RegistrationFixture()
        fixture.flags = [.userPresent]
        fixture.ceremony.userVerification = .required
        expectFailure(.userVerificationRequired) { try fixture.verify() }
        fixture.ceremony.userVerification = .preferred
        #expect(try fixture.verify().flags.isUserVerified == false)
    }

    @Test func backedUpWithoutBackupEligibility() throws {
        var fixture = try RegistrationFixture()
        fixture.flags = [.userPresent, .backedUp]
        expectFailure(.backupStateInvalid) { try fixture.verify() }
        fixture.flags = [.userPresent, .backedUp, .backupEligible]
        #expect(try fixture.verify().flags.isBackedUp)
    }

    @Test func algorithmNotRequested() throws {
        var fixture = try RegistrationFixture()
        fixture.ceremony.allowedAlgorithms = [.es384, .rs256]
        let error = expectFailure(.algorithmNotAllowed) { try fixture.verify() }
        #expect(error?.reason.contains("ES256") == true)
    }

    @Test func tamperedAttestationSignature() throws {
        var fixture = try RegistrationFixture()
        fixture.attest = { authData, clientDataHash, fixture in
            var signature = try fixture.key.signature(for: authData + clientDataHash)
            signature[signature.count - 3] ^= 0x01
            return ("packed", ["alg": -7, "sig": .bytes(signature)])
        }
        expectFailure(.attestationInvalid) { try fixture.verify() }
    }

    @Test func selfAttestationAlgorithmMustMatchTheKey() throws {
        var fixture = try RegistrationFixture()
        fixture.attest = { authData, clientDataHash, fixture in
            ("packed", ["alg": -257, "sig": .bytes(try fixture.key.signature(for: authData + clientDataHash))])
        }
        expectFailure(.attestationInvalid) { try fixture.verify() }
    }

    @Test func credentialIDMustMatchBetweenIDAndRawID() throws {
        var fixture = try RegistrationFixture()
        fixture.responseID = Base64URL.encode(randomBytes(16))
        expectFailure(.credentialIDMismatch) { try fixture.verify() }
    }

    @Test func rawIDMustBeTheAttestedCredentialID() throws {
        var fixture = try RegistrationFixture()
        fixture.responseRawID = randomBytes(16)
        let error = expectFailure(.credentialIDMismatch) { try fixture.verify() }
        #expect(error?.reason.contains("not the attested credential ID") == true)
        fixture.responseRawID = fixture.credentialID
        #expect(throws: Never.self) { try fixture.verify() }
    }

    @Test(arguments: [0, 1, 15])
    func credentialIDsShorterThan16BytesAreRefused(length: Int) throws {
        var fixture = try RegistrationFixture()
        fixture.credentialID = randomBytes(length)
        let error = expectFailure(.credentialIDLength) { try fixture.verify() }
        #expect(error?.reason.contains("at least 16 bytes") == true)
    }

    @Test func credentialIDLongerThan1023BytesIsRejected() throws {
        var fixture = try RegistrationFixture()
        fixture.credentialID = randomBytes(1024)
        expectFailure(.credentialIDLength) { try fixture.verify() }
        fixture.credentialID = randomBytes(1023)
        #expect(try fixture.verify().credentialID.count == 1023)
    }

    @Test func missingAttestedCredentialData() throws {
        let fixture = try RegistrationFixture()
        var builder = fixture.authenticatorData
        builder.attestedCredential = nil
        let response = try fixture.response(authenticatorData: builder.build())
        expectFailure(.malformedAuthenticatorData) {
            try WebAuthnVerifier(policy: fixture.policy).verifyRegistration(response, for: fixture.ceremony, at: fixture.time)
        }
    }

    @Test func unknownAttestationFormat() throws {
        var fixture = try RegistrationFixture()
        fixture.attest = { _, _, _ in ("not_real_fmt", [:]) }
        expectFailure(.unsupportedAttestationFormat) { try fixture.verify() }
    }

    @Test func noneWithAStatementIsInvalid() throws {
        var fixture = try RegistrationFixture()
        fixture.attest = { _, _, _ in ("none", ["sig": .bytes([1])]) }
        expectFailure(.attestationInvalid) { try fixture.verify() }
    }

    @Test func requiringTrustedAttestationRejectsNone() throws {
        var fixture = try RegistrationFixture()
        fixture.policy.attestation.requirement = .trusted
        expectFailure(.attestationUntrusted) { try fixture.verify() }
    }

    @Test func extraClientDataMembersAreIgnored() throws {
        var fixture = try RegistrationFixture()
        fixture.clientData.extraMembers = [("hashAlgorithm", "SHA-256")]
        #expect(throws: Never.self) { try fixture.verify() }
    }

    @Test func legacyRS1NeedsTheSwitchAndTPM() throws {
        var fixture = try RegistrationFixture(algorithm: .rs1)
        fixture.usePackedSelfAttestation()
        fixture.ceremony.allowedAlgorithms = [.rs1]
        expectFailure(.unsupportedAlgorithm) { try fixture.verify() }
        // Even with the switch on, RS1 is accepted only from TPMs.
        fixture.policy.keyPolicy.allowsLegacyRS1ForTPM = true
        expectFailure(.unsupportedAlgorithm) { try fixture.verify() }
    }

    @Test func unsupportedAlgorithmsAreNamed() throws {
        let keys: [(String, CBORItem)] = [("Ed448", [1: 1, 3: -8, -1: 7, -2: .bytes(randomBytes(57))]), ("ML-DSA-44", [1: 7, 3: -48, -1: .bytes(randomBytes(1312))])]
        for (label, key) in keys {
            var fixture = try RegistrationFixture()
            let coseKey = CBOREncoder.encode(key)
            var builder = fixture.authenticatorData
            builder.attestedCredential?.publicKey = coseKey
            fixture.attest = { _, _, _ in ("none", [:]) }
            let response = try fixture.response(authenticatorData: builder.build())
            let error = expectFailure(.unsupportedAlgorithm) {
                try WebAuthnVerifier(policy: fixture.policy).verifyRegistration(response, for: fixture.ceremony, at: fixture.time)
            }
            #expect(error?.reason.contains(label) == true)
        }
    }

    @Test func storedAttestationsCanBeReverifiedOnTheirOwn() throws {
        var fixture = try RegistrationFixture()
        fixture.usePackedSelfAttestation()
        let response = try fixture.response()
        let verifier = WebAuthnVerifier(policy: fixture.policy)
        let clientDataHash = SHA256Digest.of(response.response.clientDataJSON.bytes)
        let result = try verifier.verifyAttestation(response.response.attestationObject.bytes, clientDataHash: clientDataHash, at: fixture.time)
        #expect(result.type == .self)
        expectFailure(.attestationInvalid) {
            try verifier.verifyAttestation(response.response.attestationObject.bytes, clientDataHash: randomBytes(32), at: fixture.time)
        }
    }

    @Test func softwareAuthenticatorRegistrationsVerify() throws {
        let options = PublicKeyCredentialCreationOptionsJSON(
            rp: .init(id: "example.com", name: "Example"),
            user: .init(id: Base64URLBytes(randomBytes(32)), name: "ada@example.com", displayName: "Ada"),
            challenge: Base64URLBytes(randomBytes(32)),
            pubKeyCredParams: [.init(alg: .es256), .init(alg: .edDSA)],
            extensions: ExtensionInputs(credProps: true)
        )
        for attestation in [SoftwareAuthenticator.Attestation.none, .packedSelf] {
            let authenticator = SoftwareAuthenticator(attestation: attestation, createsSyncedCredentials: true)
            let (response, credential) = try authenticator.makeCredential(options, origin: "https://example.com")
            let verifier = WebAuthnVerifier(policy: RelyingPartyPolicy(relyingPartyIDs: ["example.com"], origins: OriginPolicy(["https://example.com"])))
            let result = try verifier.verifyRegistration(response, for: RegistrationCeremony(challenge: options.challenge.bytes), at: TestPKI.now)
            #expect(result.credentialID == credential.credentialID)
            #expect(result.flags.isBackupEligible && result.flags.isBackedUp)
            #expect(result.isDiscoverable == true)
        }
    }
}
