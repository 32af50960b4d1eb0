public import FaceFrame
import Foundation
import IdentityCore
import LatchkeyWire
import WebAuthn
public import Hummingbird

extension Router where Context == FaceRequestContext {
    /// Adds the Authentication API in Auth0's shapes: `/passkey/register`,
    /// `/passkey/challenge`, `/dbconnections/signup`, `/oauth/token` and `/oauth/revoke`.
    public func addAuthenticationAPI(_ services: AuthenticationAPIServices) {
        let api = face(renderer: AuthenticationAPIErrors(), limits: services.passkeys.rateLimits)
        let starts = api.starts
        starts.post("/passkey/register") { request, context in
            let body = try await services.body.json(SignupChallengeRequest.self, from: request)
            let client = try services.clients.authenticate(clientID: body.clientID, secret: body.clientSecret, for: .webauthn)
            let challenge = try await services.passkeys.startSignup(client: client, profile: body.userProfile, hints: body.hints, extensions: body.extensions)
            return JSONResponse.make(PasskeyChallenge(options: challenge.options, authSession: challenge.authSession))
        }
        starts.post("/passkey/challenge") { request, context in
            let body = try await services.body.json(LoginChallengeRequest.self, from: request)
            let client = try services.clients.authenticate(clientID: body.clientID, secret: body.clientSecret, for: .webauthn)
            let challenge = try await services.passkeys.startLogin(client: client, username: body.username, hints: body.hints, extensions: body.extensions)
            return JSONResponse.make(PasskeyChallenge(options: challenge.options, authSession: challenge.authSession))
        }
        starts.post("/dbconnections/signup") { request, context in
            let body = try await services.body.json(PasswordSignupRequest.self, from: request)
            let client = try services.clients.authenticate(clientID: body.clientID, secret: body.clientSecret, for: .password)
            try Self.requireDatabaseConnection(body.connection, field: "connection")
            let user = try await services.passwords.signUp(client: client, email: body.email, password: body.password, name: body.name, origin: context.origin)
            return JSONResponse.make(PasswordSignupResponse(id: user.id.rawValue, email: user.profile.email ?? ""))
        }
        api.completions.post("/oauth/token") { request, context in
            var body = try await services.body.jsonOrForm(TokenRequest.self, from: request, form: TokenRequest.init(form:))
            let basic = try ClientCredentials.basic(request)
            if let basic {
                guard body.clientSecret == nil, body.clientID == nil || body.clientID == basic.id else {
                    throw IdentityError(.invalidRequest, "use one client authentication method, not several")
                }
                (body.clientID, body.clientSecret) = (basic.id, basic.secret)
            }
            return JSONResponse.make(try await Self.grant(body, services: services, context: context))
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
            try await services.tokens.revoke(token, client: client, origin: context.origin)
            return Response(status: .ok, headers: [.cacheControl: "no-store"])
        }
    }

    /// Passwords live in one database connection, named as Auth0 names its default one.
    private static func requireDatabaseConnection(_ name: String?, field: String) throws {
        guard let name, name != "Username-Password-Authentication" else { return }
        throw IdentityError(.invalidRequest, "\(field) must be Username-Password-Authentication, the only database connection here", field: field)
    }

    private static func grant(_ body: TokenRequest, services: AuthenticationAPIServices, context: some OriginRequestContext) async throws -> IssuedTokens {
        let kind = try TokenGrant.Kind(body.grantType)
        let client = try services.clients.authenticate(clientID: body.clientID, secret: body.clientSecret, for: kind.clientGrant)
        let grant = try TokenGrant(kind, body)
        // Only a passkey's finish hands the failed-finish check to its completion; every other
        // grant makes it before it writes anything.
        if case .webAuthn = grant {} else { try await context.failureCheck?.makeUnlessMade() }
        switch grant {
        case .recovery(let email, let code, let recoveryCode):
            let user = try await services.recovery.recover(email: email, code: code, recoveryCode: recoveryCode, clientID: client.clientID, origin: context.origin)
            return try await services.tokens.issueRecoveryToken(for: user, client: client)
        case .password(let username, let password, let realm):
            try requireDatabaseConnection(realm, field: "realm")
            let scopes = try Scopes.grant(body.scope, to: client)
            let audience = try services.tokens.resolveAudience(body.audience)
            let user = try await services.passwords.signIn(client: client, username: username, password: password, origin: context.origin)
            return try await services.tokens.issue(for: user, client: client, scopes: scopes, audience: audience, userVerified: false, method: .password)
        case .webAuthn(let authSession, let response, let profile):
            return try await services.passkeys.finishWebAuthnGrant(
                client: client, authSession: authSession, response: response, profile: profile, scope: body.scope, audience: body.audience,
                origin: context.origin, failureCheck: context.failureCheck
            )
        case .refreshToken(let token):
            return try await services.tokens.refresh(token, client: client, scope: body.scope, audience: body.audience, origin: context.origin)
        case .authorizationCode(let code, let redirectURI, let codeVerifier):
            return try await services.authorization.exchange(code: code, client: client, redirectURI: redirectURI, codeVerifier: codeVerifier, origin: context.origin)
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
