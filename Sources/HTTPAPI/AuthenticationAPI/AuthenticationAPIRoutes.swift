import Foundation
public import Hummingbird
import IdentityCore
import LatchkeyWire
import WebAuthn

extension Router where Context == BasicRequestContext {
    /// Adds the Authentication API in Auth0's shapes: `/passkey/register`,
    /// `/passkey/challenge`, `/dbconnections/signup`, `/oauth/token` and `/oauth/revoke`.
    public func addAuthenticationAPI(_ services: AuthenticationAPIServices) {
        let api = face(renderer: AuthenticationAPIErrors(), limits: services.passkeys.rateLimits)
        let starts = api.starts, finishes = api.finishes
        starts.post("/passkey/register") { request, context in
            let body = try await services.body.json(SignupChallengeRequest.self, from: request)
            let client = try services.clients.authenticate(clientID: body.clientID, secret: body.clientSecret, for: .webauthn)
            let challenge = try await services.passkeys.startSignup(client: client, profile: body.userProfile?.input)
            return JSONResponse.make(PasskeyChallenge(options: challenge.options, authSession: challenge.authSession))
        }
        starts.post("/passkey/challenge") { request, context in
            let body = try await services.body.json(LoginChallengeRequest.self, from: request)
            let client = try services.clients.authenticate(clientID: body.clientID, secret: body.clientSecret, for: .webauthn)
            let challenge = try await services.passkeys.startLogin(client: client, username: body.username)
            return JSONResponse.make(PasskeyChallenge(options: challenge.options, authSession: challenge.authSession))
        }
        starts.post("/dbconnections/signup") { request, context in
            let body = try await services.body.json(PasswordSignupRequest.self, from: request)
            let client = try services.clients.authenticate(clientID: body.clientID, secret: body.clientSecret, for: .password)
            try Self.requireDatabaseConnection(body.connection, field: "connection")
            let user = try await services.passwords.signUp(client: client, email: body.email, password: body.password, name: body.name)
            return JSONResponse.make(PasswordSignupResponse(id: user.id.rawValue, email: user.profile.email ?? ""))
        }
        finishes.post("/oauth/token") { request, context in
            var body = try await services.body.jsonOrForm(TokenRequest.self, from: request, form: TokenRequest.init(form:))
            let basic = try ClientCredentials.basic(request)
            if let basic {
                guard body.clientSecret == nil, body.clientID == nil || body.clientID == basic.id else {
                    throw IdentityError(.invalidRequest, "use one client authentication method, not several")
                }
                (body.clientID, body.clientSecret) = (basic.id, basic.secret)
            }
            return JSONResponse.make(try await Self.grant(body, services: services))
        }
        // "Lost your passkey?": the same 202 whatever the address (see AccountRecoveryService).
        starts.post("/recovery/start") { request, context in
            let body = try await services.body.json(RecoveryStartRequest.self, from: request)
            _ = try services.clients.authenticate(clientID: body.clientID, secret: body.clientSecret, for: .webauthn)
            guard let email = body.email, !email.isEmpty else { throw IdentityError(.invalidRequest, "email is required", reason: .required, field: "email") }
            try await services.recovery.startRecovery(email: email)
            return JSONResponse.make(EmptyObject(), status: .accepted)
        }
        api.all.post("/oauth/revoke") { request, context in
            var body = try await services.body.jsonOrForm(RevocationRequest.self, from: request, form: RevocationRequest.init(form:))
            if let basic = try ClientCredentials.basic(request) { (body.clientID, body.clientSecret) = (basic.id, basic.secret) }
            let client = try services.clients.authenticate(clientID: body.clientID, secret: body.clientSecret)
            guard let token = body.token, !token.isEmpty else {
                throw IdentityError(.invalidRequest, "token is required", field: "token")
            }
            try await services.tokens.revoke(token, client: client)
            return Response(status: .ok, headers: [.cacheControl: "no-store"])
        }
    }

    private static let passwordRealmGrantType = "http://auth0.com/oauth/grant-type/password-realm"

    /// Passwords live in one database connection, named as Auth0 names its default one.
    private static func requireDatabaseConnection(_ name: String?, field: String) throws {
        guard let name, name != "Username-Password-Authentication" else { return }
        throw IdentityError(.invalidRequest, "\(field) must be Username-Password-Authentication, the only database connection here", field: field)
    }

    private static func grant(_ body: TokenRequest, services: AuthenticationAPIServices) async throws -> IssuedTokens {
        guard let grantType = body.grantType, !grantType.isEmpty else {
            throw IdentityError(.invalidRequest, "grant_type is required", field: "grant_type")
        }
        if grantType == TokenRequest.recoveryGrantType {
            // The app that signs people in with passkeys is the one that enrolls the new one.
            let client = try services.clients.authenticate(clientID: body.clientID, secret: body.clientSecret, for: .webauthn)
            guard let email = body.email, !email.isEmpty else { throw IdentityError(.invalidRequest, "email is required", reason: .required, field: "email") }
            let user = try await services.recovery.recover(email: email, code: body.code, recoveryCode: body.recoveryCode, clientID: client.clientID)
            return try await services.tokens.issueRecoveryToken(for: user, client: client)
        }
        // Auth0's password-realm grant is the password grant naming its connection.
        let isPasswordRealm = grantType == Self.passwordRealmGrantType
        switch isPasswordRealm ? .password : GrantType(rawValue: grantType) {
        case .password:
            let client = try services.clients.authenticate(clientID: body.clientID, secret: body.clientSecret, for: .password)
            if isPasswordRealm && body.realm == nil {
                throw IdentityError(.invalidRequest, "realm is required with the password-realm grant", field: "realm")
            }
            try requireDatabaseConnection(body.realm, field: "realm")
            let scopes = try Scopes.grant(body.scope, to: client)
            let audience = try services.tokens.resolveAudience(body.audience)
            let user = try await services.passwords.signIn(client: client, username: body.username, password: body.password)
            return try await services.tokens.issue(for: user, client: client, scopes: scopes, audience: audience, userVerified: false, method: .password)
        case .webauthn:
            let client = try services.clients.authenticate(clientID: body.clientID, secret: body.clientSecret, for: .webauthn)
            guard let authSession = body.authSession, !authSession.isEmpty else {
                throw IdentityError(.invalidRequest, "auth_session is required", field: "auth_session")
            }
            guard let response = body.authnResponse else {
                throw IdentityError(.invalidRequest, "authn_response is required and must be sent in a JSON body", field: "authn_response")
            }
            return try await services.passkeys.finishWebAuthnGrant(
                client: client, authSession: authSession, response: response, profile: body.userProfile?.input, scope: body.scope, audience: body.audience
            )
        case .refreshToken:
            let client = try services.clients.authenticate(clientID: body.clientID, secret: body.clientSecret, for: .refreshToken)
            guard let token = body.refreshToken, !token.isEmpty else {
                throw IdentityError(.invalidRequest, "refresh_token is required", field: "refresh_token")
            }
            return try await services.tokens.refresh(token, client: client, scope: body.scope, audience: body.audience)
        case .authorizationCode:
            let client = try services.clients.authenticate(clientID: body.clientID, secret: body.clientSecret, for: .authorizationCode)
            return try await services.authorization.exchange(code: body.code, client: client, redirectURI: body.redirectURI, codeVerifier: body.codeVerifier)
        case nil:
            throw IdentityError(.unsupportedGrantType, "grant_type \(grantType.prefix(100)) is not supported here")
        }
    }
}

/// HTTP Basic client authentication (RFC 6749 §2.3.1).
enum ClientCredentials {
    static func basic(_ request: Request) throws -> (id: String, secret: String)? {
        guard let header = request.headers[.authorization], header.lowercased().hasPrefix("basic ") else { return nil }
        guard let decoded = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
            let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else {
            throw IdentityError(.invalidClient, "the Basic authorization header is malformed")
        }
        func decode(_ part: Substring) -> String { part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(part) }
        return (decode(text[..<colon]), decode(text[text.index(after: colon)...]))
    }
}
