public import LatchkeyWire
import Crypto
public import Foundation
import WebAuthn

/// The authorization code flow with PKCE (OAuth 2.1 §4.1): validates authorization
/// requests, issues codes for a signed-in browser session, and exchanges codes for the same
/// tokens the native API issues.
public struct AuthorizationService: Sendable {
    /// What it keeps: accounts, codes, consents and the audit trail.
    public typealias Storage = UserStore & CredentialStore & AuthorizationCodeStore & ConsentStore & AuditLog

    private let clients: ClientRegistry
    private let tokens: TokenService
    private let storage: any Storage
    private let clock: any WallClock
    private let random: any RandomSource
    /// How long a code may wait for its exchange.
    public let codeLifetime: TimeInterval

    public init(
        clients: ClientRegistry, tokens: TokenService, storage: any Storage, clock: any WallClock, random: any RandomSource,
        codeLifetime: TimeInterval = 60
    ) {
        self.clients = clients
        self.tokens = tokens
        self.storage = storage
        self.clock = clock
        self.random = random
        self.codeLifetime = codeLifetime
    }

    /// Checks an authorization request. The client and redirect URI are checked first: until
    /// both are known good, failures carry no redirect.
    public func validate(_ request: AuthorizationRequest) throws(AuthorizationFailure) -> ValidatedAuthorization {
        func page(_ error: String, _ description: String) -> AuthorizationFailure {
            AuthorizationFailure(error: error, description: description, redirect: nil)
        }
        guard let clientID = request.clientID, !clientID.isEmpty else {
            throw page("invalid_request", "The request does not say which application is asking (client_id is missing).")
        }
        guard let client = clients.client(id: clientID) else {
            throw page("invalid_client", "No application named \"\(clientID.prefix(100))\" is registered here.")
        }
        guard let redirectURI = request.redirectURI, !redirectURI.isEmpty else {
            throw page("invalid_request", "The request does not say where to return (redirect_uri is missing).")
        }
        guard client.redirectURIs.contains(redirectURI) else {
            throw page("invalid_request", "The return address \(redirectURI.prefix(200)) is not registered for \(client.name), so you were not sent there.")
        }
        // State and nonce are echoed into the redirect and the ID token: one holding control
        // characters is refused on a page, never sent back.
        for (name, value) in [("state", request.state), ("nonce", request.nonce)] {
            if let value, value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                throw page("invalid_request", "The sign-in link's \(name) contains control characters, so it was not followed.")
            }
        }
        let redirect = AuthorizationFailure.Redirect(uri: redirectURI, state: request.state)
        func back(_ error: String, _ description: String) -> AuthorizationFailure {
            AuthorizationFailure(error: error, description: description, redirect: redirect)
        }
        guard client.grantTypes.contains(.authorizationCode) else {
            throw back("unauthorized_client", "the client may not use the authorization code grant")
        }
        guard request.responseType == "code" else {
            throw back("unsupported_response_type", "response_type must be code")
        }
        guard let challenge = request.codeChallenge, !challenge.isEmpty else {
            throw back("invalid_request", "code_challenge is required: PKCE with S256")
        }
        guard request.codeChallengeMethod == "S256" else {
            throw back("invalid_request", "code_challenge_method must be S256")
        }
        guard challenge.utf8.count == 43, Base64URL.decode(challenge)?.count == 32 else {
            throw back("invalid_request", "code_challenge must be the base64url SHA-256 of the code_verifier (43 characters)")
        }
        var prompt: ValidatedAuthorization.Prompt?
        if let text = request.prompt, !text.isEmpty {
            guard let parsed = ValidatedAuthorization.Prompt(rawValue: text) else {
                throw back("invalid_request", "prompt must be none or login")
            }
            prompt = parsed
        }
        for (name, value) in [("state", request.state), ("nonce", request.nonce)] where (value?.utf8.count ?? 0) > 512 {
            throw back("invalid_request", "\(name) is longer than 512 bytes")
        }
        let audience: String
        do {
            audience = try tokens.resolveAudience(request.audience)
        } catch {
            throw back("invalid_request", error.message)
        }
        let scopes: [String]
        do {
            scopes = try Scopes.grant(request.scope, to: client)
        } catch {
            throw back("invalid_scope", error.message)
        }
        return ValidatedAuthorization(
            client: client, redirectURI: redirectURI, scopes: scopes, audience: audience,
            state: request.state, nonce: request.nonce, codeChallenge: challenge, prompt: prompt, acr: ACRRequest(request.acrValues)
        )
    }

    /// How strongly the sign-in behind a browser session authenticated: from its passkey,
    /// read again (a passkey removed since counts as none).
    public func level(of session: BrowserSession) async throws -> AuthenticationLevel {
        var credential: PasskeyCredential?
        if let id = session.credentialID { credential = try await storage.credential(id: id) }
        return AuthenticationLevel(method: session.method, userVerified: session.userVerified, credential: credential)
    }

    /// Issues a code for a signed-in session and returns the URL to send the browser to,
    /// with `code`, `state` and `iss` (RFC 9207, against mix-up attacks). A session whose
    /// sign-in does not reach the request's `acr_values` gets no code: the URL returns
    /// `unmet_authentication_requirements` (the caller offers a stronger sign-in first).
    public func issueCode(_ request: ValidatedAuthorization, session: BrowserSession) async throws -> String {
        let level = try await level(of: session)
        if let asked = request.acr, !asked.isMet(by: level) { return unmetRequirementsRedirect(request) }
        let code = Base64URL.encode(random.bytes(32))
        try await storage.saveAuthorizationCode(AuthorizationCode(
            codeHash: TokenService.hash(code), clientID: request.client.clientID, userID: session.userID,
            redirectURI: request.redirectURI, codeChallenge: request.codeChallenge, scopes: request.scopes,
            audience: request.audience, nonce: request.nonce, sessionID: SessionID.new(at: clock.now(), random: random),
            authenticatedAt: session.authenticatedAt, userVerified: session.userVerified,
            expiresAt: clock.now().addingTimeInterval(codeLifetime), credentialID: session.credentialID, method: session.method,
            browserSession: request.scopes.contains(Scopes.offlineAccess) ? nil : session.tokenHash, acr: level.acr(requested: request.acr)
        ))
        return Self.url(request.redirectURI, adding: [("code", code), ("state", request.state), ("iss", tokens.issuer)])
    }

    /// The URL that returns an error to the client.
    public func errorRedirect(_ failure: AuthorizationFailure) -> String? {
        guard let redirect = failure.redirect else { return nil }
        return Self.url(redirect.uri, adding: [
            ("error", failure.error), ("error_description", failure.description), ("state", redirect.state), ("iss", tokens.issuer),
        ])
    }

    /// The URL that tells the client the sign-in does not reach the `acr_values` it asked
    /// for (OpenID Connect Core §3.1.2.6).
    public func unmetRequirementsRedirect(_ request: ValidatedAuthorization) -> String {
        let needed = request.acr?.minimumLevel == .hardwareProtected
            ? "a passkey bound to one device whose maker is verified, that verified the person"
            : "a passkey that verified the person"
        return errorRedirect(AuthorizationFailure(
            error: "unmet_authentication_requirements", description: "the sign-in does not reach the requested acr_values: it needs \(needed)",
            redirect: .init(uri: request.redirectURI, state: request.state)
        )) ?? request.redirectURI
    }

    /// The URL that tells the client nobody is signed in (`prompt=none`).
    public func loginRequiredRedirect(_ request: ValidatedAuthorization) -> String {
        errorRedirect(AuthorizationFailure(
            error: "login_required", description: "nobody is signed in", redirect: .init(uri: request.redirectURI, state: request.state)
        )) ?? request.redirectURI
    }

    /// Whether the person must be asked before `request`'s client gets a code: never for a
    /// first-party client, and not again once they allowed that client these scopes.
    public func needsConsent(_ request: ValidatedAuthorization, userID: UserID) async throws -> Bool {
        guard !request.client.isFirstParty else { return false }
        return !(try await storage.consent(userID: userID, clientID: request.client.clientID)?.covers(request.scopes) ?? false)
    }

    /// Records that the person allowed the request's client its scopes, added to any they
    /// allowed it before.
    public func grantConsent(_ request: ValidatedAuthorization, userID: UserID, origin: RequestOrigin?) async throws {
        let earlier = try await storage.consent(userID: userID, clientID: request.client.clientID)?.scopes ?? []
        let now = clock.now()
        try await storage.saveConsent(Consent(userID: userID, clientID: request.client.clientID, scopes: earlier + request.scopes, grantedAt: now))
        try await storage.record(AuditEvent(
            time: now, kind: .consentGranted, userID: userID, clientID: request.client.clientID, detail: request.scopes.joined(separator: " "), origin: origin
        ))
    }

    /// A client's name as people see it; `nil` for a client no longer configured.
    public func clientName(of clientID: String) -> String? { clients.client(id: clientID)?.name }

    /// The clients the person allowed, with their names, by client ID.
    public func consents(of userID: UserID) async throws -> [(consent: Consent, clientName: String)] {
        try await storage.consents(userID: userID).map { ($0, clients.client(id: $0.clientID)?.name ?? $0.clientID) }
    }

    /// Withdraws the person's consent for a client, ending that client's sessions too.
    /// - Throws: `not_found` when there was none.
    public func revokeConsent(userID: UserID, clientID: String, origin: RequestOrigin?) async throws {
        let now = clock.now()
        guard try await storage.revokeConsent(userID: userID, clientID: clientID, at: now) else {
            throw IdentityError(.notFound, "no application with this ID has your permission")
        }
        try await storage.record(AuditEvent(time: now, kind: .consentRevoked, userID: userID, clientID: clientID, origin: origin))
    }

    /// The redirect for `prompt=none` when the person has not allowed the client yet.
    public func consentRequiredRedirect(_ request: ValidatedAuthorization) -> String {
        errorRedirect(AuthorizationFailure(
            error: "consent_required", description: "the person has not allowed this application yet",
            redirect: .init(uri: request.redirectURI, state: request.state)
        )) ?? request.redirectURI
    }

    /// The redirect when the person declined.
    public func deniedRedirect(_ request: ValidatedAuthorization) -> String {
        errorRedirect(AuthorizationFailure(
            error: "access_denied", description: "the person did not allow this application", redirect: .init(uri: request.redirectURI, state: request.state)
        )) ?? request.redirectURI
    }

    /// The `authorization_code` grant: checks the code, its client, its redirect URI and the
    /// PKCE verifier, then issues tokens. A code works once; presenting it again revokes the
    /// tokens its first exchange issued.
    public func exchange(code: String?, client: OAuthClient, redirectURI: String?, codeVerifier: String?, origin: RequestOrigin?) async throws -> IssuedTokens {
        guard let code, !code.isEmpty else { throw IdentityError(.invalidRequest, "code is required", field: "code") }
        guard let redirectURI, !redirectURI.isEmpty else {
            throw IdentityError(.invalidRequest, "redirect_uri is required", field: "redirect_uri")
        }
        guard let codeVerifier, !codeVerifier.isEmpty else {
            throw IdentityError(.invalidRequest, "code_verifier is required: this server requires PKCE", field: "code_verifier")
        }
        guard (43...128).contains(codeVerifier.utf8.count),
            codeVerifier.utf8.allSatisfy({ Self.verifierCharacters.contains($0) })
        else {
            throw IdentityError(.invalidRequest, "code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~", field: "code_verifier")
        }
        guard code.utf8.count <= 128 else { throw IdentityError(.invalidGrant, "the authorization code is unknown or expired") }
        let hash = TokenService.hash(code)
        // The request is checked against the code before the code is presented: a wrong
        // client, redirect URI or PKCE verifier neither uses the code up (its rightful holder
        // may still redeem it) nor counts as a replay that would revoke its tokens.
        guard let record = try await storage.authorizationCode(hash: hash) else {
            throw IdentityError(.invalidGrant, "the authorization code is unknown or expired")
        }
        guard record.clientID == client.clientID else {
            throw IdentityError(.invalidGrant, "the authorization code was issued to another client")
        }
        guard record.redirectURI == redirectURI else {
            throw IdentityError(.invalidGrant, "redirect_uri differs from the one in the authorization request")
        }
        let digest = Base64URL.encode(Array(SHA256.hash(data: Data(codeVerifier.utf8))))
        guard Bytes.constantTimeEqual(Array(digest.utf8), Array(record.codeChallenge.utf8)) else {
            throw IdentityError(.invalidGrant, "code_verifier does not match the code_challenge", reason: .pkceMismatch)
        }
        guard let user = try await storage.user(id: record.userID) else {
            throw IdentityError(.invalidGrant, "the account no longer exists")
        }
        let pending = tokens.prepare(
            for: user.id, client: client, scopes: record.scopes, audience: record.audience, userVerified: record.userVerified,
            authenticatedAt: record.authenticatedAt, sessionID: record.sessionID, nonce: record.nonce, method: record.method,
            credentialID: record.credentialID, acr: record.acr
        )
        let now = clock.now()
        // Using the code and starting its session are one transaction, so a replay at any
        // moment finds the session and revokes it.
        switch try await storage.consumeAuthorizationCode(hash: hash, at: now, starting: pending.session) {
        case .invalid:
            throw IdentityError(.invalidGrant, "the authorization code is unknown or expired")
        case .reused(let record):
            try await storage.record(AuditEvent(
                time: now, kind: .authorizationCodeReused, userID: record.userID, clientID: client.clientID,
                detail: "session \(record.sessionID) revoked", origin: origin
            ))
            throw IdentityError(.invalidGrant, "the authorization code was already used; the tokens issued for it are revoked", reason: .codeReused)
        case .consumed:
            return try await tokens.sign(pending, for: user)
        }
    }

    /// RFC 7636 §4.1: unreserved characters.
    private static let verifierCharacters = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)

    /// Adds query parameters to a registered redirect URI, keeping its own query.
    /// `base` with `parameters` appended to its query, each value percent-encoded (`nil` ones
    /// left out): every redirect back to a client (authorization, logout).
    static func url(_ base: String, adding parameters: [(String, String?)]) -> String {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+?#")
        let query = parameters.compactMap { name, value in
            value.map { "\(name)=\($0.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }
        }.joined(separator: "&")
        return base + (base.contains("?") ? "&" : "?") + query
    }
}
