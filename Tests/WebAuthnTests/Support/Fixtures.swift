import Authenticator
import CBOR
import Crypto
import Foundation
import Testing
import PKITestSupport
import WebAuthn

/// Random bytes for test inputs.
func randomBytes(_ count: Int) -> [UInt8] {
    (0..<count).map { _ in UInt8.random(in: .min ... .max) }
}

/// Runs `body` and returns the `WebAuthnError` it throws, recording an issue when it does
/// not throw or throws a different code.
@discardableResult
func expectFailure<T>(
    _ code: WebAuthnError.Code,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> T
) -> WebAuthnError? {
    do {
        _ = try body()
        Issue.record("expected \(code), but verification succeeded", sourceLocation: sourceLocation)
        return nil
    } catch let error as WebAuthnError {
        #expect(error.code == code, "expected \(code), got \(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected WebAuthnError \(code), got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// A valid registration built from parts, so that a test can change exactly one of them.
struct RegistrationFixture {
    /// Produces the attestation statement: `fmt` and `attStmt`, given the bytes it signs.
    typealias Attest = (_ authData: [UInt8], _ clientDataHash: [UInt8], _ fixture: RegistrationFixture) throws -> (String, CBORItem)

    var relyingPartyID = "example.com"
    var origin = "https://example.com"
    var challenge = randomBytes(32)
    var key: CredentialPrivateKey
    var credentialID = randomBytes(16)
    var aaguid = AAGUID(uuidString: "6a7b8c9d-0e1f-4a2b-9c3d-4e5f60718293")!
    var flags: AuthenticatorFlags = [.userPresent, .userVerified]
    var clientData: ClientDataBuilder
    var attest: Attest = { _, _, _ in ("none", [:]) }
    /// Applied to the encoded attestation object's map before encoding, for structural damage.
    var tamperAttestationObject: (inout CBORItem) -> Void = { _ in }
    var responseID: String?
    /// The `rawId` (and, unless ``responseID`` is set, `id`) sent instead of the attested ID.
    var responseRawID: [UInt8]?
    var policy: RelyingPartyPolicy
    var ceremony: RegistrationCeremony
    var time = TestPKI.now

    init(algorithm: COSEAlgorithmIdentifier = .es256) throws {
        key = try CredentialPrivateKey.generate(algorithm)
        clientData = ClientDataBuilder(type: "webauthn.create", challenge: [], origin: "https://example.com")
        policy = RelyingPartyPolicy(relyingPartyIDs: ["example.com"], origins: OriginPolicy(["https://example.com"]))
        ceremony = RegistrationCeremony(challenge: [])
        clientData.challenge = challenge
        ceremony.challenge = challenge
    }

    /// Uses `packed` self attestation.
    mutating func usePackedSelfAttestation() {
        attest = { authData, clientDataHash, fixture in
            let signature = try fixture.key.signature(for: authData + clientDataHash)
            return ("packed", ["alg": .int(fixture.key.algorithm.rawValue), "sig": .bytes(signature)])
        }
    }

    var authenticatorData: AuthenticatorDataBuilder {
        var builder = AuthenticatorDataBuilder(relyingPartyID: relyingPartyID, flags: flags)
        builder.attestedCredential = .init(aaguid: aaguid, credentialID: credentialID, publicKey: key.coseKeyBytes)
        return builder
    }

    func response(authenticatorData: [UInt8]? = nil) throws -> RegistrationResponseJSON {
        let authData = authenticatorData ?? self.authenticatorData.build()
        let clientDataJSON = clientData.build()
        let (format, statement) = try attest(authData, Array(SHA256.hash(data: clientDataJSON)), self)
        var object: CBORItem = ["fmt": .text(format), "attStmt": statement, "authData": .bytes(authData)]
        tamperAttestationObject(&object)
        return RegistrationResponseJSON(
            id: responseID ?? Base64URL.encode(responseRawID ?? credentialID),
            rawId: Base64URLBytes(responseRawID ?? credentialID),
            response: AuthenticatorAttestationResponseJSON(
                clientDataJSON: Base64URLBytes(clientDataJSON),
                attestationObject: Base64URLBytes(CBOREncoder.encode(object)),
                transports: ["usb"]
            )
        )
    }

    func verify() throws -> VerifiedRegistration {
        try WebAuthnVerifier(policy: policy).verifyRegistration(try response(), for: ceremony, at: time)
    }
}

/// A valid assertion built from parts, so that a test can change exactly one of them.
struct AuthenticationFixture {
    var relyingPartyID = "example.com"
    var origin = "https://example.com"
    var key: CredentialPrivateKey
    var credentialID = randomBytes(16)
    var userHandle = randomBytes(32)
    var clientData: ClientDataBuilder
    var authenticatorData: AuthenticatorDataBuilder
    var responseUserHandle: [UInt8]?
    var responseCredentialID: [UInt8]?
    var tamperSignature: (inout [UInt8]) -> Void = { _ in }
    var record: CredentialRecord
    var policy: RelyingPartyPolicy
    var ceremony: AuthenticationCeremony

    init(algorithm: COSEAlgorithmIdentifier = .es256) throws {
        key = try CredentialPrivateKey.generate(algorithm)
        let challenge = randomBytes(32)
        clientData = ClientDataBuilder(type: "webauthn.get", challenge: challenge, origin: "https://example.com")
        authenticatorData = AuthenticatorDataBuilder(relyingPartyID: "example.com", flags: [.userPresent, .userVerified], signCount: 5)
        responseUserHandle = userHandle
        record = CredentialRecord(
            credentialID: credentialID,
            publicKey: try CredentialPublicKey(coseKey: key.coseKeyBytes),
            signCount: 4,
            isBackupEligible: false,
            userHandle: userHandle
        )
        policy = RelyingPartyPolicy(relyingPartyIDs: ["example.com"], origins: OriginPolicy(["https://example.com"]))
        ceremony = AuthenticationCeremony(challenge: challenge, userVerification: .preferred, allowedCredentialIDs: [credentialID])
    }

    func response() throws -> AuthenticationResponseJSON {
        let authData = authenticatorData.build()
        let clientDataJSON = clientData.build()
        var signature = try key.signature(for: authData + Array(SHA256.hash(data: clientDataJSON)))
        tamperSignature(&signature)
        let id = responseCredentialID ?? credentialID
        return AuthenticationResponseJSON(
            id: Base64URL.encode(id),
            rawId: Base64URLBytes(id),
            response: AuthenticatorAssertionResponseJSON(
                clientDataJSON: Base64URLBytes(clientDataJSON),
                authenticatorData: Base64URLBytes(authData),
                signature: Base64URLBytes(signature),
                userHandle: responseUserHandle.map { Base64URLBytes($0) }
            )
        )
    }

    func verify() throws -> VerifiedAuthentication {
        try WebAuthnVerifier(policy: policy).verifyAuthentication(try response(), for: ceremony, credential: record)
    }
}
