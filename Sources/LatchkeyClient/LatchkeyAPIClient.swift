public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif
@_exported public import LatchkeyWire

/// A typed client for Latchkey's native API: the Auth0-shaped passkey endpoints
/// (`/passkey/register`, `/passkey/challenge`, `/oauth/token` with the WebAuthn grant) and the
/// My Account passkey endpoints (`/me/v1/authentication-methods`).
///
/// The client only moves JSON: creating credentials and signing assertions is the
/// authenticator's job (a platform API, or the software authenticator in tests and the CLI).
/// Every method throws `LatchkeyAPIError`, whether the server refused the request or no
/// usable answer arrived.
///
/// ```swift
/// let client = LatchkeyAPIClient(baseURL: URL(string: "http://localhost:8080")!, clientID: "demo")
/// let (options, authSession) = try await client.signupChallenge(profile: SignupProfile(email: "a@example.com"))
/// // … create a credential for `options` …
/// let tokens = try await client.finishSignup(authSession: authSession, response: registration)
/// ```
public struct LatchkeyAPIClient: Sendable {
    /// The server's public URL; endpoint paths are appended to it.
    public let baseURL: URL
    public let clientID: String
    /// The client secret of a confidential client, sent as `client_secret` in request bodies.
    public let clientSecret: String?
    /// How requests reach the server.
    public let transport: any LatchkeyTransport

    /// The scopes that grant the whole My Account passkey API.
    public static let myAccountScopes = [
        "create:me:authentication_methods",
        "read:me:authentication_methods",
        "update:me:authentication_methods",
        "delete:me:authentication_methods",
        "update:me:profile",
    ]

    /// The ID of a passkey that is being enrolled, in the verify path.
    public static let newPasskeyMethodID = "passkey|new"

    /// Sends requests through a ``URLSessionTransport`` on `session`.
    /// - Parameters:
    ///   - baseURL: The server's public URL, for example `http://localhost:8080`. A path
    ///     prefix is kept.
    ///   - clientID: The application's client ID.
    ///   - clientSecret: The secret of a confidential client; `nil` for public clients.
    ///   - session: The URL session to use.
    public init(baseURL: URL, clientID: String, clientSecret: String? = nil, session: URLSession = .shared) {
        self.init(baseURL: baseURL, clientID: clientID, clientSecret: clientSecret, transport: URLSessionTransport(session: session))
    }

    /// Creates a client whose requests go through `transport`.
    public init(baseURL: URL, clientID: String, clientSecret: String? = nil, transport: any LatchkeyTransport) {
        self.baseURL = baseURL
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.transport = transport
    }

    /// The audience of access tokens for the My Account API: `<baseURL>/me/`.
    public var myAccountAudience: String { Self.trimmingTrailingSlash(baseURL.absoluteString) + "/me/" }

    // MARK: - Authentication API

    /// Starts a passkey signup (`POST /passkey/register`).
    /// - Parameters:
    ///   - profile: The new account's identifiers and profile; `nil` with the account
    ///     creation API, whose identifier is known only after the system sheet: the
    ///     options then carry a fresh user ID and empty names, and ``finishSignup(authSession:response:scope:audience:profile:)``
    ///     sends the identifier.
    ///   - userMetadata: Optional string metadata to store with the account.
    ///   - hints: WebAuthn Level 3 hints (`security-key`, `client-device`, `hybrid`) in
    ///     place of the ones the application's passkey policy sends.
    ///   - extensions: Client extension inputs for the authenticator (`prf` with `eval`,
    ///     `largeBlob` support, `credentialProtectionPolicy`), passed into the options.
    /// - Returns: The creation options for the authenticator and the session that finishes
    ///   the signup in ``finishSignup(authSession:response:scope:audience:profile:)``.
    public func signupChallenge(
        profile: SignupProfile?,
        userMetadata: [String: String]? = nil,
        hints: [String]? = nil,
        extensions: ExtensionInputs? = nil
    ) async throws(LatchkeyAPIError) -> (options: PublicKeyCredentialCreationOptionsJSON, authSession: String) {
        let body = SignupChallengeRequest(
            clientID: clientID, clientSecret: clientSecret, userProfile: profile, userMetadata: userMetadata, hints: hints, extensions: extensions
        )
        let (challenge, _) = try await send("POST", "/passkey/register", body: body, decoding: RegistrationChallenge.self)
        return (challenge.options, challenge.authSession)
    }

    /// Starts a passkey login (`POST /passkey/challenge`).
    /// - Parameters:
    ///   - username: An account identifier, to receive that account's credentials in
    ///     `allowCredentials` (a Latchkey extension); `nil` for a discoverable login.
    ///   - hints: WebAuthn Level 3 hints in place of the ones the application's passkey
    ///     policy sends.
    ///   - extensions: Client extension inputs (`prf` with `eval` or `evalByCredential`,
    ///     `largeBlob` `read` or `write`), passed into the options; the outputs stay with the app.
    /// - Returns: The request options for the authenticator and the session that finishes
    ///   the login in ``finishLogin(authSession:response:scope:audience:)``.
    public func loginChallenge(
        username: String? = nil,
        hints: [String]? = nil,
        extensions: ExtensionInputs? = nil
    ) async throws(LatchkeyAPIError) -> (options: PublicKeyCredentialRequestOptionsJSON, authSession: String) {
        let body = LoginChallengeRequest(clientID: clientID, clientSecret: clientSecret, username: username, hints: hints, extensions: extensions)
        let (challenge, _) = try await send("POST", "/passkey/challenge", body: body, decoding: LoginChallenge.self)
        return (challenge.options, challenge.authSession)
    }

    /// Finishes a signup: exchanges the new credential for tokens (`POST /oauth/token`,
    /// WebAuthn grant).
    ///
    /// The response's WebAuthn L3 convenience members (`authenticatorData`, `publicKey`,
    /// `publicKeyAlgorithm`) are left out, as Auth0.swift sends it; the attestation object
    /// carries the same facts.
    /// - Parameters:
    ///   - authSession: The session from ``signupChallenge(profile:userMetadata:hints:extensions:)``.
    ///   - response: The authenticator's registration.
    ///   - scope: Space-separated scopes, for example `openid profile email offline_access`.
    ///   - audience: The API the access token is for, for example ``myAccountAudience``.
    ///   - profile: For a signup started without a profile: the contact identifier and
    ///     name the account creation API returned. An identifier already in use is
    ///     refused with `reason` `user_exists` and the new passkey's `credentialID`, so
    ///     the app can report that passkey unknown.
    public func finishSignup(
        authSession: String,
        response: RegistrationResponseJSON,
        scope: String? = nil,
        audience: String? = nil,
        profile: SignupProfile? = nil
    ) async throws(LatchkeyAPIError) -> TokenResponse {
        let request = TokenRequest.webAuthn(
            clientID: clientID, clientSecret: clientSecret, authSession: authSession,
            response: .registration(Self.wireForm(of: response)), scope: scope, audience: audience, profile: profile
        )
        return try await token(request)
    }

    /// Finishes a login: exchanges an assertion for tokens (`POST /oauth/token`, WebAuthn
    /// grant).
    /// - Parameters:
    ///   - authSession: The session from ``loginChallenge(username:hints:extensions:)``.
    ///   - response: The authenticator's assertion.
    ///   - scope: Space-separated scopes.
    ///   - audience: The API the access token is for.
    public func finishLogin(
        authSession: String,
        response: AuthenticationResponseJSON,
        scope: String? = nil,
        audience: String? = nil
    ) async throws(LatchkeyAPIError) -> TokenResponse {
        let request = TokenRequest.webAuthn(
            clientID: clientID, clientSecret: clientSecret, authSession: authSession,
            response: .authentication(response), scope: scope, audience: audience
        )
        return try await token(request)
    }

    /// Creates an account with an email and a password (`POST /dbconnections/signup`), for
    /// apps that still offer passwords; sign in with ``signIn(username:password:scope:audience:)``.
    /// - Returns: The new account's user ID.
    public func passwordSignup(email: String, password: String, name: String? = nil) async throws(LatchkeyAPIError) -> String {
        let body = PasswordSignupRequest(clientID: clientID, clientSecret: clientSecret, email: email, password: password, name: name)
        return try await send("POST", "/dbconnections/signup", body: body, decoding: PasswordSignupResponse.self).0.id
    }

    /// Signs in with a password (`POST /oauth/token`, `password` grant); the tokens carry
    /// `amr: ["pwd"]`. A wrong email and a wrong password get the same `403 invalid_grant`.
    public func signIn(username: String, password: String, scope: String? = nil, audience: String? = nil) async throws(LatchkeyAPIError) -> TokenResponse {
        var request = TokenRequest(grantType: "password", clientID: clientID, clientSecret: clientSecret, scope: scope, audience: audience)
        request.username = username
        request.password = password
        return try await token(request)
    }

    /// Exchanges a refresh token for new tokens (`POST /oauth/token`, `refresh_token`
    /// grant). The refresh token rotates: keep the new one, because presenting the old one
    /// again ends the session.
    /// - Parameters:
    ///   - refreshToken: The current refresh token.
    ///   - scope: Scopes to narrow to; `nil` keeps the granted ones.
    ///   - audience: The API the access token is for.
    public func refresh(refreshToken: String, scope: String? = nil, audience: String? = nil) async throws(LatchkeyAPIError) -> TokenResponse {
        try await token(.refresh(clientID: clientID, clientSecret: clientSecret, refreshToken: refreshToken, scope: scope, audience: audience))
    }

    /// Sends any token request (`POST /oauth/token`).
    public func token(_ request: TokenRequest) async throws(LatchkeyAPIError) -> TokenResponse {
        try await send("POST", "/oauth/token", body: request, decoding: TokenResponse.self).0
    }

    /// Revokes a refresh token and so ends its session (`POST /oauth/revoke`, RFC 7009).
    /// Unknown tokens are not an error.
    public func revoke(token: String) async throws(LatchkeyAPIError) {
        let body = RevocationRequest(clientID: clientID, clientSecret: clientSecret, token: token, tokenTypeHint: "refresh_token")
        _ = try await exchange("POST", "/oauth/revoke", body: body)
    }

    /// Reads the signed-in user's claims (`GET /userinfo`).
    /// The server's OpenID Provider metadata (`/.well-known/openid-configuration`).
    public func providerMetadata() async throws(LatchkeyAPIError) -> ProviderMetadata {
        try await send("GET", "/.well-known/openid-configuration", body: NoBody?.none, decoding: ProviderMetadata.self).0
    }

    /// The My Account audience as the server names it: its issuer followed by `me/`. A
    /// server behind a proxy may have an issuer other than ``baseURL``.
    public func discoverMyAccountAudience() async throws(LatchkeyAPIError) -> String {
        let issuer = try await providerMetadata().issuer
        return (issuer.hasSuffix("/") ? issuer : issuer + "/") + "me/"
    }

    public func userInfo(accessToken: String) async throws(LatchkeyAPIError) -> UserInfo {
        try await send("GET", "/userinfo", body: NoBody?.none, accessToken: accessToken, decoding: UserInfo.self).0
    }

    // MARK: - My Account API

    /// Starts enrolling another passkey for the signed-in user
    /// (`POST /me/v1/authentication-methods`, `202 Accepted`).
    /// - Parameters:
    ///   - accessToken: An access token for ``myAccountAudience`` with
    ///     `create:me:authentication_methods`.
    ///   - conditional: For an automatic passkey upgrade (`requestStyle: .conditional`):
    ///     allowed within 5 minutes of a password sign-in, and the only ceremony whose
    ///     passkey may be created without user presence.
    /// - Returns: The creation options (with `excludeCredentials` naming the user's existing
    ///   passkeys), the session for ``finishEnrollment(accessToken:authSession:response:methodID:)``,
    ///   and the `Location` of the pending method, resolved against the request URL.
    public func startEnrollment(
        accessToken: String, conditional: Bool = false
    ) async throws(LatchkeyAPIError) -> (options: PublicKeyCredentialCreationOptionsJSON, authSession: String, location: URL?) {
        let (challenge, response) = try await send(
            "POST", "/me/v1/authentication-methods", body: CreateAuthenticationMethodRequest(mediation: conditional ? "conditional" : nil),
            accessToken: accessToken, decoding: RegistrationChallenge.self
        )
        let location = response.value(forHTTPHeaderField: "Location").flatMap { URL(string: $0, relativeTo: response.url)?.absoluteURL }
        return (challenge.options, challenge.authSession, location)
    }

    /// Finishes an enrollment (`POST /me/v1/authentication-methods/passkey%7Cnew/verify`,
    /// `201 Created`).
    /// - Parameters:
    ///   - accessToken: The access token that started the enrollment.
    ///   - authSession: The session from ``startEnrollment(accessToken:conditional:)``.
    ///   - response: The authenticator's registration; its L3 convenience members are left
    ///     out, as the My Account schema allows no extra members in `response`.
    ///   - methodID: The pending method's ID; always `passkey|new` today.
    /// - Returns: The new passkey.
    public func finishEnrollment(
        accessToken: String,
        authSession: String,
        response: RegistrationResponseJSON,
        methodID: String = LatchkeyAPIClient.newPasskeyMethodID
    ) async throws(LatchkeyAPIError) -> AuthenticationMethod {
        let body = VerifyAuthenticationMethodRequest(authSession: authSession, authnResponse: Self.wireForm(of: response))
        return try await send(
            "POST", "/me/v1/authentication-methods/\(Self.pathSegment(methodID))/verify", body: body,
            accessToken: accessToken, decoding: AuthenticationMethod.self
        ).0
    }

    /// Lists the signed-in user's authentication methods (`GET /me/v1/authentication-methods`).
    /// - Parameter accessToken: An access token with `read:me:authentication_methods`.
    public func authenticationMethods(accessToken: String) async throws(LatchkeyAPIError) -> [AuthenticationMethod] {
        try await send(
            "GET", "/me/v1/authentication-methods", body: NoBody?.none,
            accessToken: accessToken, decoding: AuthenticationMethodList.self
        ).0.authenticationMethods
    }

    /// Reads one authentication method (`GET /me/v1/authentication-methods/{id}`).
    /// - Parameters:
    ///   - id: The method ID, for example `passkey|dGVzdA`; it is percent-encoded here.
    ///   - accessToken: An access token with `read:me:authentication_methods`.
    public func authenticationMethod(id: String, accessToken: String) async throws(LatchkeyAPIError) -> AuthenticationMethod {
        try await send(
            "GET", "/me/v1/authentication-methods/\(Self.pathSegment(id))", body: NoBody?.none,
            accessToken: accessToken, decoding: AuthenticationMethod.self
        ).0
    }

    /// Renames a passkey (`PATCH /me/v1/authentication-methods/{id}`).
    /// - Parameters:
    ///   - id: The method ID.
    ///   - name: The new name, unique among the user's passkeys.
    ///   - accessToken: An access token with `update:me:authentication_methods`.
    /// - Returns: The renamed method.
    public func renameAuthenticationMethod(id: String, name: String, accessToken: String) async throws(LatchkeyAPIError) -> AuthenticationMethod {
        let path = "/me/v1/authentication-methods/\(Self.pathSegment(id))"
        let (data, response) = try await exchange("PATCH", path, body: UpdateAuthenticationMethodRequest(name: name), accessToken: accessToken)
        // A server may answer 204; the method is then read back.
        if response.statusCode == 204 || data.isEmpty {
            return try await authenticationMethod(id: id, accessToken: accessToken)
        }
        return try Self.decode(AuthenticationMethod.self, from: data, response: response)
    }

    /// Deletes a passkey (`DELETE /me/v1/authentication-methods/{id}`, `204`). The server
    /// refuses with `409` when it is the account's last way to sign in.
    /// - Parameters:
    ///   - id: The method ID.
    ///   - accessToken: An access token with `delete:me:authentication_methods`.
    public func deleteAuthenticationMethod(id: String, accessToken: String) async throws(LatchkeyAPIError) {
        _ = try await exchange("DELETE", "/me/v1/authentication-methods/\(Self.pathSegment(id))", body: NoBody?.none, accessToken: accessToken)
    }

    /// Ends every session and refresh token of the account, on every device and app, this
    /// one included (`DELETE /me/v1/sessions`, `204`).
    /// - Parameter accessToken: An access token with any `*:me:authentication_methods` scope.
    public func signOutEverywhere(accessToken: String) async throws(LatchkeyAPIError) {
        _ = try await exchange("DELETE", "/me/v1/sessions", body: NoBody?.none, accessToken: accessToken)
    }

    /// Removes the account's password once it has a passkey
    /// (`DELETE /me/v1/authentication-methods/password%7C<user id>`); `409` while the
    /// password is its only way to sign in.
    /// - Parameters:
    ///   - userID: The account's user ID (`sub`).
    ///   - accessToken: An access token with `delete:me:authentication_methods`.
    /// - Returns: The signals; `unusedPassword` is what `reportUnusedPasswordCredential` takes.
    public func removePassword(userID: String, accessToken: String) async throws(LatchkeyAPIError) -> AccountSignals {
        try await send(
            "DELETE", "/me/v1/authentication-methods/\(Self.pathSegment("password|" + userID))", body: NoBody?.none, accessToken: accessToken,
            decoding: SignalsResponse.self
        ).0.signals
    }

    /// What credential managers need about the account (`GET /me/v1/signals`): the
    /// arguments of `ASCredentialUpdater`'s report methods and of the WebAuthn signals.
    /// - Parameter accessToken: An access token with `read:me:authentication_methods`.
    public func signals(accessToken: String) async throws(LatchkeyAPIError) -> AccountSignals {
        try await send("GET", "/me/v1/signals", body: NoBody?.none, accessToken: accessToken, decoding: AccountSignals.self).0
    }

    /// Changes the account's display name (`PATCH /me/v1/profile`); an empty name clears it.
    /// - Parameters:
    ///   - name: The new display name.
    ///   - accessToken: An access token with `update:me:profile`.
    /// - Returns: The account's signals after the change, for `reportPublicKeyCredentialUpdate`.
    public func updateProfile(name: String, accessToken: String) async throws(LatchkeyAPIError) -> AccountSignals {
        try await send("PATCH", "/me/v1/profile", body: UpdateProfileRequest(name: name), accessToken: accessToken, decoding: SignalsResponse.self).0.signals
    }

    // MARK: - Getting back in

    /// "Lost your passkey?" (`POST /recovery/start`, `202`): mails a recovery code to the
    /// address when it belongs to an account and is verified. The answer is the same whatever
    /// the address, so it tells nobody which addresses have accounts.
    public func startRecovery(email: String) async throws(LatchkeyAPIError) {
        _ = try await exchange("POST", "/recovery/start", body: RecoveryStartRequest(clientID: clientID, clientSecret: clientSecret, email: email))
    }

    /// Exchanges an emailed code or a saved recovery code for a recovery token
    /// (`POST /oauth/token`, recovery grant): an access token for My Account, valid for
    /// minutes, that may only enroll a passkey.
    /// - Parameters:
    ///   - email: The account's email address.
    ///   - code: The code from the recovery message.
    ///   - recoveryCode: A saved recovery code, instead.
    public func recover(email: String, code: String? = nil, recoveryCode: String? = nil) async throws(LatchkeyAPIError) -> TokenResponse {
        try await token(.recovery(clientID: clientID, clientSecret: clientSecret, email: email, code: code, recoveryCode: recoveryCode))
    }

    /// Sends a new verification code to the account's address (`POST /me/v1/email-verification`).
    /// - Parameter accessToken: An access token with `update:me:profile`.
    public func sendEmailVerification(accessToken: String) async throws(LatchkeyAPIError) {
        _ = try await exchange("POST", "/me/v1/email-verification", body: EmptyObject(), accessToken: accessToken)
    }

    /// Verifies the account's address, or finishes a change of address, with the code sent to
    /// it (`POST /me/v1/email-verification/verify`).
    /// - Parameters:
    ///   - code: The code from the message.
    ///   - accessToken: An access token with `update:me:profile`.
    public func verifyEmail(code: String, accessToken: String) async throws(LatchkeyAPIError) -> EmailVerifiedResponse {
        try await send(
            "POST", "/me/v1/email-verification/verify", body: VerificationCodeRequest(code: code), accessToken: accessToken,
            decoding: EmailVerifiedResponse.self
        ).0
    }

    /// Starts a change of the account's address (`PATCH /me/v1/profile {"email"}`, `202`): a
    /// code goes to the new address, and ``verifyEmail(code:accessToken:)`` makes the change.
    /// The sign-in must be recent.
    /// - Returns: The address the code was sent to.
    public func changeEmail(to email: String, accessToken: String) async throws(LatchkeyAPIError) -> String {
        try await send("PATCH", "/me/v1/profile", body: UpdateProfileRequest(email: email), accessToken: accessToken, decoding: PendingEmailResponse.self).0.pendingEmail
    }

    /// How many saved recovery codes are left (`GET /me/v1/recovery-codes`).
    public func recoveryCodeStatus(accessToken: String) async throws(LatchkeyAPIError) -> RecoveryCodeStatus {
        try await send("GET", "/me/v1/recovery-codes", body: NoBody?.none, accessToken: accessToken, decoding: RecoveryCodeStatus.self).0
    }

    /// Makes a new set of saved recovery codes (`POST /me/v1/recovery-codes`, `201`); the old
    /// set stops working. Show them once.
    public func createRecoveryCodes(accessToken: String) async throws(LatchkeyAPIError) -> [String] {
        try await send("POST", "/me/v1/recovery-codes", body: EmptyObject(), accessToken: accessToken, decoding: RecoveryCodesResponse.self).0.recoveryCodes
    }

    // MARK: - Transport

    /// Marks requests without a body.
    private struct NoBody: Encodable {}

    /// Sends a request and decodes a successful answer.
    private func send<Body: Encodable, Response: Decodable>(
        _ method: String,
        _ path: String,
        body: Body?,
        accessToken: String? = nil,
        decoding type: Response.Type
    ) async throws(LatchkeyAPIError) -> (Response, HTTPURLResponse) {
        let (data, response) = try await exchange(method, path, body: body, accessToken: accessToken)
        return (try Self.decode(type, from: data, response: response), response)
    }

    /// Sends a request; returns the body of a 2xx answer and throws the server's error for
    /// anything else.
    private func exchange<Body: Encodable>(
        _ method: String,
        _ path: String,
        body: Body?,
        accessToken: String? = nil
    ) async throws(LatchkeyAPIError) -> (Data, HTTPURLResponse) {
        let endpoint = Self.trimmingTrailingSlash(baseURL.absoluteString) + path
        guard let url = URL(string: endpoint) else {
            throw LatchkeyAPIError(status: nil, code: .transportFailed, detail: "\(endpoint) is not a valid URL")
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let accessToken {
            request.setValue("Bearer \(accessToken)", forHTTPHeaderField: "Authorization")
        }
        if let body {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.withoutEscapingSlashes]
            do {
                request.httpBody = try encoder.encode(body)
            } catch {
                throw LatchkeyAPIError(status: nil, code: .transportFailed, detail: "cannot encode the \(method) \(path) body: \(error)")
            }
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }

        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await transport.send(request)
        } catch {
            throw LatchkeyAPIError(status: nil, code: .transportFailed, detail: "\(method) \(url.absoluteString) failed: \(Self.describe(error))")
        }
        guard let http = response as? HTTPURLResponse else {
            throw LatchkeyAPIError(status: nil, code: .invalidResponse, detail: "\(method) \(url.absoluteString) did not get an HTTP response")
        }
        guard (200..<300).contains(http.statusCode) else {
            throw Self.serverError(status: http.statusCode, body: data)
        }
        return (data, http)
    }

    /// Decodes a successful answer, naming the member that did not fit.
    private static func decode<Response: Decodable>(_ type: Response.Type, from data: Data, response: HTTPURLResponse) throws(LatchkeyAPIError) -> Response {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw LatchkeyAPIError(
                status: response.statusCode, code: .invalidResponse,
                detail: "the \(response.statusCode) answer is not a \(type): \(describe(error))"
            )
        }
    }

    /// The error an unsuccessful answer carries, or `LatchkeyAPIError/Code/invalidResponse`
    /// with the start of the body when it carries none.
    static func serverError(status: Int, body: Data) -> LatchkeyAPIError {
        if var error = try? JSONDecoder().decode(LatchkeyAPIError.self, from: body) {
            error.status = status
            return error
        }
        let text = String(decoding: body.prefix(200), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return LatchkeyAPIError(
            status: status, code: .invalidResponse,
            detail: text.isEmpty ? "HTTP \(status) without an error body" : "HTTP \(status) without an error envelope: \(text)"
        )
    }

    /// A short description of a decoding or transport failure.
    private static func describe(_ error: any Error) -> String {
        guard let decoding = error as? DecodingError else {
            return (error as NSError).localizedDescription
        }
        return DecodingErrorDescription.describe(decoding)
    }

    /// Percent-encodes a path segment, keeping only RFC 3986 unreserved characters (so
    /// `passkey|new` becomes `passkey%7Cnew`; base64url survives unchanged).
    static func pathSegment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    private static func trimmingTrailingSlash(_ text: String) -> String {
        var text = Substring(text)
        while text.hasSuffix("/") { text = text.dropLast() }
        return String(text)
    }

    /// A registration as the Auth0 wire contract carries it: without the L3 convenience
    /// copies of data the attestation object already holds.
    static func wireForm(of registration: RegistrationResponseJSON) -> RegistrationResponseJSON {
        var registration = registration
        registration.response.authenticatorData = nil
        registration.response.publicKey = nil
        registration.response.publicKeyAlgorithm = nil
        return registration
    }
}
