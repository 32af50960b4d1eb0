import Foundation
import WebAuthn

/// The JSON Android's Credential Manager hands an app (`registrationResponseJson`,
/// `authenticationResponseJson`), written member by member in the order and form Google
/// Password Manager produces, so the tests send exactly what an Android app forwards.
enum CredentialManagerJSON {
    static func registration(_ response: RegistrationResponseJSON) -> String {
        let inner = response.response
        var members = [
            "\"clientDataJSON\":\"\(inner.clientDataJSON.base64URL)\"",
            "\"attestationObject\":\"\(inner.attestationObject.base64URL)\"",
            "\"transports\":[\"internal\",\"hybrid\"]",
        ]
        if let authenticatorData = inner.authenticatorData { members.append("\"authenticatorData\":\"\(authenticatorData.base64URL)\"") }
        if let algorithm = inner.publicKeyAlgorithm { members.append("\"publicKeyAlgorithm\":\(algorithm.rawValue)") }
        if let publicKey = inner.publicKey { members.append("\"publicKey\":\"\(publicKey.base64URL)\"") }
        return """
            {"rawId":"\(response.rawId.base64URL)","authenticatorAttachment":"platform","type":"public-key","id":"\(response.id)",\
            "response":{\(members.joined(separator: ","))},"clientExtensionResults":{"credProps":{"rk":true}}}
            """
    }

    static func authentication(_ response: AuthenticationResponseJSON) -> String {
        let inner = response.response
        return """
            {"rawId":"\(response.rawId.base64URL)","authenticatorAttachment":"platform","type":"public-key","id":"\(response.id)",\
            "response":{"clientDataJSON":"\(inner.clientDataJSON.base64URL)","authenticatorData":"\(inner.authenticatorData.base64URL)",\
            "signature":"\(inner.signature.base64URL)","userHandle":"\(inner.userHandle?.base64URL ?? "")"},"clientExtensionResults":{}}
            """
    }

    /// The body an Android app posts to finish a ceremony: the Credential Manager JSON as
    /// the `authn_response` object, as Auth0's Android SDK sends it, or as the string
    /// Credential Manager returned, forwarded untouched.
    static func tokenRequest(clientID: String, authSession: String, authnResponse: String, asString: Bool = false) -> Data {
        let value = asString ? String(decoding: try! JSONEncoder().encode(authnResponse), as: UTF8.self) : authnResponse
        return Data("""
            {"grant_type":"urn:okta:params:oauth:grant-type:webauthn","client_id":"\(clientID)","auth_session":"\(authSession)",\
            "scope":"openid email offline_access","authn_response":\(value)}
            """.utf8)
    }
}
