import Authenticator
import Testing
import WebAuthn

/// Every input cut short at every length must fail with a `WebAuthnError`: no crash, no
/// partial result.
@Suite("Truncation of every input")
struct TruncationTests {
    @Test func registrationInputs() throws {
        var fixture = try RegistrationFixture()
        fixture.usePackedSelfAttestation()
        let response = try fixture.response()
        let verifier = WebAuthnVerifier(policy: fixture.policy)
        #expect(throws: Never.self) { try verifier.verifyRegistration(response, for: fixture.ceremony, at: fixture.time) }

        let attestationObject = response.response.attestationObject.bytes
        for length in 0..<attestationObject.count {
            var cut = response
            cut.response.attestationObject = Base64URLBytes(attestationObject.prefix(length))
            #expect(throws: WebAuthnError.self) { try verifier.verifyRegistration(cut, for: fixture.ceremony, at: fixture.time) }
        }
        let clientData = response.response.clientDataJSON.bytes
        for length in 0..<clientData.count {
            var cut = response
            cut.response.clientDataJSON = Base64URLBytes(clientData.prefix(length))
            #expect(throws: WebAuthnError.self) { try verifier.verifyRegistration(cut, for: fixture.ceremony, at: fixture.time) }
        }
        let authenticatorData = fixture.authenticatorData.build()
        for length in 0..<authenticatorData.count {
            #expect(throws: WebAuthnError.self) { try AuthenticatorData(bytes: authenticatorData.prefix(length)) }
        }
    }

    @Test func authenticationInputs() throws {
        let fixture = try AuthenticationFixture()
        let response = try fixture.response()
        let verifier = WebAuthnVerifier(policy: fixture.policy)
        let verify = { (candidate: AuthenticationResponseJSON) throws -> Void in
            _ = try verifier.verifyAuthentication(candidate, for: fixture.ceremony, credential: fixture.record)
        }
        #expect(throws: Never.self) { try verify(response) }
        for keyPath in [\AuthenticationResponseJSON.response.authenticatorData, \.response.clientDataJSON, \.response.signature] {
            let bytes = response[keyPath: keyPath].bytes
            for length in 0..<bytes.count {
                var cut = response
                cut[keyPath: keyPath] = Base64URLBytes(bytes.prefix(length))
                #expect(throws: WebAuthnError.self) { try verify(cut) }
            }
        }
        let coseKey = fixture.key.coseKeyBytes
        for length in 0..<coseKey.count {
            #expect(throws: WebAuthnError.self) { try CredentialPublicKey(coseKey: coseKey.prefix(length)) }
        }
    }
}
