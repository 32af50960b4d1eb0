import Foundation
@testable import IdentityCore
import Testing
import WebAuthn
@testable import HTTPAPI

/// The login path's bodies, written without `JSONEncoder`, are byte for byte what the
/// encoder writes: same members, `nil` ones left out, sorted keys, the same escapes.
@Suite struct JSONWritableTests {
    private func expectSameBytes(_ value: some JSONWritable, sourceLocation: SourceLocation = #_sourceLocation) throws {
        var writer = JSONWriter()
        value.write(to: &writer)
        let encoded = try JSONResponse.encoder.encode(value)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == String(decoding: encoded, as: UTF8.self), sourceLocation: sourceLocation)
    }

    @Test func tokenResponses() throws {
        try expectSameBytes(IssuedTokens(
            access_token: "eyJ.a/b+c", id_token: "eyJ.\"quoted\"\\", refresh_token: "r\u{1}\n\t", token_type: "Bearer", expires_in: 3600, scope: "openid é 👍"
        ))
        try expectSameBytes(IssuedTokens(access_token: "a", id_token: nil, refresh_token: nil, token_type: "Bearer", expires_in: 0, scope: ""))
    }

    @Test func loginChallenges() throws {
        let challenge = Base64URLBytes((0..<32).map { UInt8($0 * 7 % 256) })
        try expectSameBytes(ChallengeResponse(
            authn_params_public_key: PublicKeyCredentialRequestOptionsJSON(challenge: challenge, timeout: 300_000, rpId: "example.com", userVerification: "preferred"),
            auth_session: "sealed-session"
        ))
        try expectSameBytes(ChallengeResponse(
            authn_params_public_key: PublicKeyCredentialRequestOptionsJSON(
                challenge: challenge, timeout: UInt32.max, rpId: "例え.jp",
                allowCredentials: [CredentialDescriptor(id: Base64URLBytes([1, 2, 3]), transports: ["internal", "hybrid"]), CredentialDescriptor(id: Base64URLBytes([]))],
                userVerification: "required", hints: ["security-key"], extensions: ExtensionInputs(credProps: true)
            ),
            auth_session: "s"
        ))
        try expectSameBytes(ChallengeResponse(
            authn_params_public_key: PublicKeyCredentialRequestOptionsJSON(challenge: challenge, allowCredentials: [], extensions: ExtensionInputs()),
            auth_session: ""
        ))
    }

    @Test func signUpChallenges() throws {
        let user = PublicKeyCredentialCreationOptionsJSON.UserEntity(id: Base64URLBytes([9, 8, 7]), name: "ada@example.com", displayName: "Ada \"Countess\" Lovelace")
        try expectSameBytes(ChallengeResponse(
            authn_params_public_key: PublicKeyCredentialCreationOptionsJSON(
                rp: .init(id: "example.com", name: "Example / Demo"), user: user, challenge: Base64URLBytes([1, 2]),
                pubKeyCredParams: [.init(alg: .es256), .init(alg: .edDSA), .init(alg: .rs256)], timeout: 300_000,
                excludeCredentials: [CredentialDescriptor(id: Base64URLBytes([5]), transports: ["usb"])],
                authenticatorSelection: .init(residentKey: "required", requireResidentKey: true, userVerification: "preferred"),
                extensions: ExtensionInputs(credProps: true)
            ),
            auth_session: "s"
        ))
        try expectSameBytes(PublicKeyCredentialCreationOptionsJSON(
            rp: .init(id: nil, name: ""), user: .init(id: Base64URLBytes([]), name: "", displayName: ""), challenge: Base64URLBytes([]),
            pubKeyCredParams: [], hints: ["client-device"], attestation: "direct", attestationFormats: ["packed"]
        ))
    }
}
