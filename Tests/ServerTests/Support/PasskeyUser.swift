import Authenticator
import Foundation
import LatchkeyClient
import WebAuthn

/// A person with a software authenticator and an app that speaks Latchkey's API: what the
/// end-to-end tests drive.
struct PasskeyUser {
    let client: LatchkeyAPIClient
    var authenticator = SoftwareAuthenticator()
    var origin = "http://localhost:8080"
    var credentials: [SoftwareCredential] = []

    static let allScopes = (["openid", "profile", "email", "offline_access"] + LatchkeyAPIClient.myAccountScopes).joined(separator: " ")

    init(server: URL, clientID: String = "demo", clientSecret: String? = nil, credentials: [SoftwareCredential] = [], transport: any LatchkeyTransport = URLSessionTransport()) {
        client = LatchkeyAPIClient(baseURL: server, clientID: clientID, clientSecret: clientSecret, transport: transport)
        self.credentials = credentials
    }

    /// A person whose app reaches `server` the way the server is reached.
    init(_ server: some TestServer, clientID: String = "demo", clientSecret: String? = nil, credentials: [SoftwareCredential] = []) {
        client = LatchkeyAPIClient(baseURL: server.baseURL, clientID: clientID, clientSecret: clientSecret, transport: server.transport)
        self.credentials = credentials
    }

    /// The My Account audience the server was configured with (its public URL).
    var audience: String { "http://localhost:8080/me/" }

    /// Signs up with a new passkey and returns the tokens.
    @discardableResult
    mutating func signUp(_ profile: SignupProfile, algorithm: COSEAlgorithmIdentifier? = nil, scope: String = allScopes) async throws -> TokenResponse {
        let (options, authSession) = try await client.signupChallenge(profile: profile)
        let (response, credential) = try authenticator.makeCredential(options, origin: origin, algorithm: algorithm)
        credentials.append(credential)
        return try await client.finishSignup(authSession: authSession, response: response, scope: scope, audience: audience)
    }

    /// Signs in with the first stored passkey (or the one at `index`).
    @discardableResult
    mutating func signIn(username: String? = nil, index: Int = 0, scope: String = allScopes) async throws -> TokenResponse {
        let (options, authSession) = try await client.loginChallenge(username: username)
        let response = try authenticator.getAssertion(options, origin: origin, credential: &credentials[index])
        return try await client.finishLogin(authSession: authSession, response: response, scope: scope, audience: audience)
    }

    /// Adds a passkey through the My Account API.
    @discardableResult
    mutating func enroll(accessToken: String, algorithm: COSEAlgorithmIdentifier? = nil) async throws -> AuthenticationMethod {
        let (options, authSession, _) = try await client.startEnrollment(accessToken: accessToken)
        let (response, credential) = try authenticator.makeCredential(options, origin: origin, algorithm: algorithm)
        credentials.append(credential)
        return try await client.finishEnrollment(accessToken: accessToken, authSession: authSession, response: response)
    }
}

/// The claims of a JWT, without verifying it (the tests verify through the JWKS separately).
func claims(of jwt: String) -> [String: Any] {
    let parts = jwt.split(separator: ".")
    guard parts.count == 3, let payload = Base64URL.decode(parts[1]),
        let object = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any]
    else { return [:] }
    return object
}
