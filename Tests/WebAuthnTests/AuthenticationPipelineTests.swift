import Authenticator
import Testing
import WebAuthn

/// Each test starts from a valid assertion and changes one field (WebAuthn L3 §7.2).
@Suite("Authentication pipeline: one field changed at a time")
struct AuthenticationPipelineTests {
    @Test(arguments: [COSEAlgorithmIdentifier.es256, .es384, .es512, .edDSA, .ed25519, .rs256, .rs384, .rs512, .ps256, .ps384, .ps512, .mldsa65, .mldsa87])
    func validAssertionsVerify(algorithm: COSEAlgorithmIdentifier) throws {
        let fixture = try AuthenticationFixture(algorithm: algorithm)
        let result = try fixture.verify()
        #expect(result.credentialID == fixture.credentialID)
        #expect(result.userHandle == fixture.userHandle)
        #expect(result.signCount == 5)
        #expect(result.signCountStatus == .increased)
        #expect(result.flags.isUserVerified)
    }

    @Test func wrongChallenge() throws {
        var fixture = try AuthenticationFixture()
        fixture.ceremony.challenge = randomBytes(32)
        expectFailure(.challengeMismatch) { try fixture.verify() }
    }

    @Test func wrongOrigin() throws {
        var fixture = try AuthenticationFixture()
        fixture.clientData.origin = "https://example.com.evil.example"
        expectFailure(.originNotAllowed) { try fixture.verify() }
    }

    @Test func wrongType() throws {
        var fixture = try AuthenticationFixture()
        fixture.clientData.type = "webauthn.create"
        expectFailure(.clientDataTypeMismatch) { try fixture.verify() }
    }

    @Test func wrongRelyingPartyIDHash() throws {
        var fixture = try AuthenticationFixture()
        fixture.authenticatorData = AuthenticatorDataBuilder(relyingPartyID: "other.example", signCount: 5)
        expectFailure(.rpIDHashMismatch) { try fixture.verify() }
    }

    @Test func acceptsAnyConfiguredRelyingPartyID() throws {
        var fixture = try AuthenticationFixture()
        fixture.authenticatorData = AuthenticatorDataBuilder(relyingPartyID: "other.example", signCount: 5)
        fixture.policy.relyingPartyIDs = ["example.com", "other.example"]
        #expect(try fixture.verify().relyingPartyID == "other.example")
    }

    @Test func userPresenceIsRequired() throws {
        var fixture = try AuthenticationFixture()
        fixture.authenticatorData.flags = [.userVerified]
        expectFailure(.userPresenceRequired) { try fixture.verify() }
    }

    @Test func userVerificationWhenRequired() throws {
        var fixture = try AuthenticationFixture()
        fixture.authenticatorData.flags = [.userPresent]
        fixture.ceremony.userVerification = .required
        expectFailure(.userVerificationRequired) { try fixture.verify() }
    }

    @Test func backupEligibilityMustNotChangeButBackupStateMay() throws {
        var fixture = try AuthenticationFixture()
        fixture.authenticatorData.flags = [.userPresent, .backupEligible]
        expectFailure(.backupStateInvalid) { try fixture.verify() }

        fixture.record.isBackupEligible = true
        #expect(try fixture.verify().flags.isBackedUp == false)
        fixture.authenticatorData.flags = [.userPresent, .backupEligible, .backedUp]
        #expect(try fixture.verify().flags.isBackedUp)

        fixture.authenticatorData.flags = [.userPresent, .backedUp]
        expectFailure(.backupStateInvalid) { try fixture.verify() }
    }

    @Test func tamperedSignature() throws {
        var fixture = try AuthenticationFixture()
        fixture.tamperSignature = { $0[$0.count - 1] ^= 0x80 }
        expectFailure(.badSignature) { try fixture.verify() }
    }

    @Test func signatureByAnotherKey() throws {
        var fixture = try AuthenticationFixture()
        fixture.key = try CredentialPrivateKey.generate(.es256)
        expectFailure(.badSignature) { try fixture.verify() }
    }

    @Test func tamperedAuthenticatorDataInvalidatesTheSignature() throws {
        let fixture = try AuthenticationFixture()
        var response = try fixture.response()
        response.response.authenticatorData.bytes[36] ^= 0x01  // the counter's low byte
        expectFailure(.badSignature) {
            try WebAuthnVerifier(policy: fixture.policy).verifyAuthentication(response, for: fixture.ceremony, credential: fixture.record)
        }
    }

    @Test(arguments: [0, 1024])
    func credentialIDsOutside1To1023BytesAreRefused(length: Int) throws {
        var fixture = try AuthenticationFixture()
        fixture.responseCredentialID = randomBytes(length)
        fixture.ceremony.allowedCredentialIDs = []
        fixture.record.credentialID = fixture.responseCredentialID!
        expectFailure(.credentialIDLength) { try fixture.verify() }
    }

    @Test func credentialNotInAllowCredentials() throws {
        var fixture = try AuthenticationFixture()
        fixture.ceremony.allowedCredentialIDs = [randomBytes(16)]
        expectFailure(.credentialNotAllowed) { try fixture.verify() }
    }

    @Test func assertionForAnotherCredential() throws {
        var fixture = try AuthenticationFixture()
        fixture.responseCredentialID = randomBytes(16)
        fixture.ceremony.allowedCredentialIDs = []
        expectFailure(.credentialNotAllowed) { try fixture.verify() }
    }

    @Test func userHandleMustBelongToTheOwner() throws {
        var fixture = try AuthenticationFixture()
        fixture.responseUserHandle = randomBytes(32)
        expectFailure(.userHandleMismatch) { try fixture.verify() }
    }

    @Test func discoverableLoginNeedsAUserHandle() throws {
        var fixture = try AuthenticationFixture()
        fixture.ceremony.allowedCredentialIDs = []
        #expect(try fixture.verify().userHandle == fixture.userHandle)
        fixture.responseUserHandle = nil
        expectFailure(.userHandleMismatch) { try fixture.verify() }
    }

    @Test func emptyUserHandleCountsAsAbsent() throws {
        var fixture = try AuthenticationFixture()
        fixture.responseUserHandle = []
        #expect(try fixture.verify().userHandle == nil)
        fixture.ceremony.allowedCredentialIDs = []
        expectFailure(.userHandleMismatch) { try fixture.verify() }
    }

    @Test func signCountRegressionIsRejectedOrFlaggedByPolicy() throws {
        var fixture = try AuthenticationFixture()
        fixture.record.signCount = 5
        expectFailure(.signCountRegressed) { try fixture.verify() }

        fixture.policy.signCountPolicy = .acceptAndFlag
        let result = try fixture.verify()
        #expect(result.signCountStatus == .regressed(stored: 5, received: 5))
        #expect(result.signCount == 5)
    }

    @Test func counterDroppingToZeroIsARegression() throws {
        var fixture = try AuthenticationFixture()
        fixture.authenticatorData.signCount = 0
        expectFailure(.signCountRegressed) { try fixture.verify() }
    }

    @Test func zeroCountersMeanNoCounter() throws {
        var fixture = try AuthenticationFixture()
        fixture.authenticatorData.signCount = 0
        fixture.record.signCount = 0
        #expect(try fixture.verify().signCountStatus == .notSupported)
    }

    @Test func softwareAuthenticatorAssertionsVerifyAndCount() throws {
        let authenticator = SoftwareAuthenticator()
        let creation = PublicKeyCredentialCreationOptionsJSON(
            rp: .init(id: "example.com", name: "Example"),
            user: .init(id: Base64URLBytes(randomBytes(32)), name: "ada@example.com", displayName: "Ada"),
            challenge: Base64URLBytes(randomBytes(32)),
            pubKeyCredParams: [.init(alg: .es256)]
        )
        var (_, credential) = try authenticator.makeCredential(creation, origin: "https://example.com")
        let verifier = WebAuthnVerifier(policy: RelyingPartyPolicy(relyingPartyIDs: ["example.com"], origins: OriginPolicy(["https://example.com"])))
        var stored = CredentialRecord(
            credentialID: credential.credentialID,
            publicKey: try CredentialPublicKey(coseKey: credential.privateKey.coseKeyBytes),
            signCount: 0,
            isBackupEligible: false,
            userHandle: credential.userHandle
        )
        for expected in 1...3 {
            let options = PublicKeyCredentialRequestOptionsJSON(challenge: Base64URLBytes(randomBytes(32)), rpId: "example.com")
            let response = try authenticator.getAssertion(options, origin: "https://example.com", credential: &credential)
            let result = try verifier.verifyAuthentication(response, for: AuthenticationCeremony(challenge: options.challenge.bytes), credential: stored)
            #expect(result.signCount == UInt32(expected))
            stored.signCount = result.signCount
        }
    }
}
