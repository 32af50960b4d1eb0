import FaceFrame
import Foundation
import Testing
import WebAuthn
@testable import HTTPAPI
@testable import IdentityCore

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
            accessToken: "eyJ.a/b+c", idToken: "eyJ.\"quoted\"\\", refreshToken: "r\u{1}\n\t", tokenType: "Bearer", expiresIn: 3600, scope: "openid é 👍"
        ))
        try expectSameBytes(IssuedTokens(accessToken: "a", idToken: nil, refreshToken: nil, tokenType: "Bearer", expiresIn: 0, scope: ""))
    }

    @Test func loginChallenges() throws {
        let challenge = Base64URLBytes((0..<32).map { UInt8($0 * 7 % 256) })
        try expectSameBytes(PasskeyChallenge(
            options: PublicKeyCredentialRequestOptionsJSON(challenge: challenge, timeout: 300_000, rpId: "example.com", userVerification: "preferred"),
            authSession: "sealed-session"
        ))
        try expectSameBytes(PasskeyChallenge(
            options: PublicKeyCredentialRequestOptionsJSON(
                challenge: challenge, timeout: UInt32.max, rpId: "例え.jp",
                allowCredentials: [CredentialDescriptor(id: Base64URLBytes([1, 2, 3]), transports: ["internal", "hybrid"]), CredentialDescriptor(id: Base64URLBytes([]))],
                userVerification: "required", hints: ["security-key"], extensions: ExtensionInputs(credProps: true)
            ),
            authSession: "s"
        ))
        try expectSameBytes(PasskeyChallenge(
            options: PublicKeyCredentialRequestOptionsJSON(challenge: challenge, allowCredentials: [], extensions: ExtensionInputs()),
            authSession: ""
        ))
        // Extensions an application asked for, every member set.
        try expectSameBytes(PublicKeyCredentialRequestOptionsJSON(challenge: challenge, extensions: ExtensionInputs(
            prf: PRFInputs(
                eval: PRFValues(first: Base64URLBytes([1, 2]), second: Base64URLBytes([3])),
                evalByCredential: ["zz": PRFValues(first: Base64URLBytes([4])), "AA-_": PRFValues(first: Base64URLBytes([5]), second: Base64URLBytes([6]))]
            ),
            largeBlob: LargeBlobInputs(read: nil, write: Base64URLBytes([7, 8]))
        )))
        try expectSameBytes(PublicKeyCredentialRequestOptionsJSON(challenge: challenge, extensions: ExtensionInputs(
            credProps: true, largeBlob: LargeBlobInputs(support: "required", read: true), credentialProtectionPolicy: "userVerificationRequired",
            enforceCredentialProtectionPolicy: false
        )))
    }

    @Test func signUpChallenges() throws {
        let user = PublicKeyCredentialCreationOptionsJSON.UserEntity(id: Base64URLBytes([9, 8, 7]), name: "ada@example.com", displayName: "Ada \"Countess\" Lovelace")
        try expectSameBytes(PasskeyChallenge(
            options: PublicKeyCredentialCreationOptionsJSON(
                rp: .init(id: "example.com", name: "Example / Demo"), user: user, challenge: Base64URLBytes([1, 2]),
                pubKeyCredParams: [.init(alg: .es256), .init(alg: .edDSA), .init(alg: .rs256)], timeout: 300_000,
                excludeCredentials: [CredentialDescriptor(id: Base64URLBytes([5]), transports: ["usb"])],
                authenticatorSelection: .init(residentKey: "required", requireResidentKey: true, userVerification: "preferred"),
                extensions: ExtensionInputs(credProps: true)
            ),
            authSession: "s"
        ))
        try expectSameBytes(PublicKeyCredentialCreationOptionsJSON(
            rp: .init(id: nil, name: ""), user: .init(id: Base64URLBytes([]), name: "", displayName: ""), challenge: Base64URLBytes([]),
            pubKeyCredParams: [], hints: ["client-device"], attestation: "direct", attestationFormats: ["packed"]
        ))
    }
}
