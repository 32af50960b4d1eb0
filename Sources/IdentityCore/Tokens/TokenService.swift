import Crypto
public import Foundation
import WebAuthn
public import LatchkeyWire

/// Lifetimes and names for issued tokens.
public struct TokenConfiguration: Sendable {
    /// The issuer (`iss`), the public URL with a trailing slash.
    public var issuer: String
    /// How long an access token is valid (`tokens.access_token_lifetime`).
    public var accessTokenLifetime: TimeInterval
    /// How long an ID token is valid (`tokens.id_token_lifetime`).
    public var idTokenLifetime: TimeInterval
    /// Refresh token lifetime; each rotation starts a new one.
    public var refreshTokenLifetime: TimeInterval
    /// How long a login session may be kept alive by refreshing at all, from the sign-in
    /// (`tokens.refresh_token_absolute_lifetime`): no rotation reaches past it.
    public var refreshTokenAbsoluteLifetime: TimeInterval
    /// Audiences of the relying party's own APIs that clients may request.
    public var apiAudiences: [String]
    /// What access tokens for an API are signed with, when not ES256 (Auth0's resource
    /// server `signing_alg`): a resource server whose library verifies only RSA asks for RS256.
    public var accessTokenAlgorithms: [String: SigningAlgorithm]

    /// Adds a trailing slash to `issuer` when it lacks one, and raises
    /// `refreshTokenAbsoluteLifetime` to at least `refreshTokenLifetime`.
    public init(
        issuer: String,
        accessTokenLifetime: TimeInterval = 3600,
        idTokenLifetime: TimeInterval = 3600,
        refreshTokenLifetime: TimeInterval = 30 * 86400,
        refreshTokenAbsoluteLifetime: TimeInterval = 90 * 86400,
        apiAudiences: [String] = [],
        accessTokenAlgorithms: [String: SigningAlgorithm] = [:]
    ) {
        self.accessTokenAlgorithms = accessTokenAlgorithms
        self.refreshTokenAbsoluteLifetime = max(refreshTokenAbsoluteLifetime, refreshTokenLifetime)
        self.issuer = issuer.hasSuffix("/") ? issuer : issuer + "/"
        self.accessTokenLifetime = accessTokenLifetime
        self.idTokenLifetime = idTokenLifetime
        self.refreshTokenLifetime = refreshTokenLifetime
        self.apiAudiences = apiAudiences
    }

    /// The audience of the My Account API, and of tokens issued without an audience.
    public var myAccountAudience: String { issuer + "me/" }

    /// The longest lifetime of a signed token, for how long retired keys stay published.
    public var longestSignedTokenLifetime: TimeInterval { max(accessTokenLifetime, idTokenLifetime) }
}

/// The token endpoint's successful response (RFC 6749 §5.1, OpenID Connect Core §3.1.3.3):
/// the wire type apps decode.
public typealias IssuedTokens = TokenResponse

/// Tokens decided by ``TokenService/prepare(for:client:scopes:audience:userVerified:authenticatedAt:sessionID:nonce:method:credentialID:)``
/// and not yet signed.
public struct PendingTokens: Sendable {
    /// The login session to write before signing.
    public let session: TokenSessionStart
    /// The refresh token, shown once; only its hash is in ``session``.
    let refreshToken: String?
    let scopes: [String]
    let audience: String
    let authenticatedAt: Date
    let userVerified: Bool
    let method: SignInMethod
    let nonce: String?
    /// What the ID token (if one is asked for) is signed with: the client's choice.
    let idTokenAlgorithm: SigningAlgorithm
    /// The `acr` claim: how strongly the sign-in authenticated.
    let acr: String?
}

/// What a valid access token allows.
public struct AccessGrant: Sendable, Hashable {
    public let userID: UserID
    /// The client it was issued to.
    public let clientID: String
    /// The granted scopes.
    public let scopes: Set<String>
    /// The login session.
    public let sessionID: String
    /// When the user signed in to start the session (`auth_time`).
    public let authenticatedAt: Date
    /// How they signed in (`amr`, RFC 8176): `pwd` for a password, `pop` (with `user`
    /// when verified) for a passkey.
    public let methods: [String]
    /// How they signed in, as the `amr` claim says.
    public var method: SignInMethod { SignInMethod(authenticationMethodReferences: methods) }

    /// The `amr` value of a recovery token (RFC 8176's "recovery email or security question";
    /// here a saved or emailed recovery code).
    public static let recoveryMethod = "rec"

    /// Whether this token came from recovery, not a sign-in: it may only enroll a passkey.
    public var isRecovery: Bool { methods.contains(Self.recoveryMethod) }
}

/// Issues, refreshes, revokes and checks tokens.
public struct TokenService: Sendable {
    private let configuration: TokenConfiguration
    private let keys: SigningKeyRing
    private let users: any UserStore
    private let refreshTokens: any RefreshTokenStore
    private let audit: any AuditLog
    private let clock: any WallClock
    private let random: any RandomSource
    private let securityEvents: SecurityEventFeed?

    /// - Parameter securityEvents: Where refreshes, which are not stored as audit events, are
    ///   announced.
    public init(
        configuration: TokenConfiguration,
        keys: SigningKeyRing,
        users: any UserStore,
        refreshTokens: any RefreshTokenStore,
        audit: any AuditLog,
        clock: any WallClock,
        random: any RandomSource,
        securityEvents: SecurityEventFeed? = nil
    ) {
        self.securityEvents = securityEvents
        self.configuration = configuration
        self.keys = keys
        self.users = users
        self.refreshTokens = refreshTokens
        self.audit = audit
        self.clock = clock
        self.random = random
    }

    /// The issuer URL.
    public var issuer: String { configuration.issuer }

    /// The audience a request may name: the My Account API or a configured API.
    public func resolveAudience(_ requested: String?) throws(IdentityError) -> String {
        guard let requested, !requested.isEmpty else { return configuration.myAccountAudience }
        guard requested == configuration.myAccountAudience || configuration.apiAudiences.contains(requested) else {
            throw IdentityError(.accessDenied, "audience \"\(requested.prefix(200))\" is not an API of this server", field: "audience")
        }
        return requested
    }

    /// Issues tokens after a sign-in that is not a ceremony (a password), starting and
    /// writing a new login session.
    public func issue(for user: User, client: OAuthClient, scopes: [String], audience: String, userVerified: Bool, method: SignInMethod) async throws -> IssuedTokens {
        let pending = prepare(for: user.id, client: client, scopes: scopes, audience: audience, userVerified: userVerified, method: method)
        // Every access token belongs to a session row, with or without a refresh token, so
        // that revoking the session revokes it. Saving a refresh token starts its session in
        // the same transaction.
        try await refreshTokens.startSession(pending.session)
        return try await sign(pending, for: user)
    }

    /// The most a recovery token lives: NIST SP 800-63B-4 wants a recovered account bound
    /// to a new authenticator promptly, and the token can do nothing else.
    public static let recoveryTokenLifetime: TimeInterval = 15 * 60

    /// Issues the restricted access token that recovery (a saved or an emailed recovery
    /// code) gives: for the My Account API only, whose only scope is enrolling a passkey,
    /// `amr: ["rec"]`, at most ``recoveryTokenLifetime``, and no refresh or ID token. Its
    /// session row is written like any other, so "sign out everywhere" and an
    /// administrator's revocation end it too.
    public func issueRecoveryToken(for user: User, client: OAuthClient) async throws -> IssuedTokens {
        let started = clock.now()
        let familyID = SessionID.new(at: started, random: random)
        try await refreshTokens.startSession(
            TokenSessionStart(familyID: familyID, userID: user.id, clientID: client.clientID, startedAt: started, refreshToken: nil, credentialID: nil, method: .passkey)
        )
        let now = Int64(started.timeIntervalSince1970)
        let lifetime = Int(min(Self.recoveryTokenLifetime, configuration.accessTokenLifetime))
        let signing = try await keys.activeKey()
        let access = AccessTokenClaims(
            iss: configuration.issuer, sub: user.id.rawValue, aud: configuration.myAccountAudience, iat: now, exp: now + Int64(lifetime),
            jti: Base64URL.encode(random.bytes(16)), scope: Scopes.createAuthenticationMethods, client_id: client.clientID, sid: familyID,
            auth_time: now, amr: [AccessGrant.recoveryMethod]
        )
        return IssuedTokens(
            accessToken: try JSONWebSignature.sign(payload: access.json, header: signing.accessTokenHeader, key: signing.key),
            idToken: nil, refreshToken: nil, tokenType: "Bearer", expiresIn: lifetime, scope: Scopes.createAuthenticationMethods
        )
    }

    /// Decides the tokens of a new login session without writing or signing anything: the
    /// caller writes ``PendingTokens/session`` (with the ceremony that signed the user in,
    /// in one transaction) and then calls ``sign(_:for:)``.
    /// - Parameters:
    ///   - authenticatedAt: When the user authenticated; now when `nil`.
    ///   - sessionID: The login session's ID, when the caller decided it up front (an
    ///     authorization code does, so that replaying the code can revoke these tokens).
    ///   - nonce: The OpenID Connect `nonce` to echo in the ID token.
    ///   - method: How the user signed in: a password makes the tokens say `amr: ["pwd"]`,
    ///     which a conditional passkey creation requires, and removing the password ends the
    ///     session.
    ///   - credentialID: The passkey that signed the user in: removing it ends the session.
    public func prepare(
        for userID: UserID,
        client: OAuthClient,
        scopes: [String],
        audience: String,
        userVerified: Bool,
        authenticatedAt: Date? = nil,
        sessionID: String? = nil,
        nonce: String? = nil,
        method: SignInMethod,
        credentialID: [UInt8]? = nil,
        acr: String? = nil
    ) -> PendingTokens {
        let now = clock.now()
        let authenticatedAt = authenticatedAt ?? now
        let familyID = sessionID ?? SessionID.new(at: now, random: random)
        var refreshToken: (token: String, record: RefreshTokenRecord)?
        if scopes.contains(Scopes.offlineAccess) && client.grantTypes.contains(.refreshToken) {
            let token = TimeOrderedToken.new(at: now, random: random)
            refreshToken = (token, RefreshTokenRecord(
                tokenHash: TimeOrderedToken.storageKey(of: token), familyID: familyID, userID: userID, clientID: client.clientID, scopes: scopes,
                audience: audience, authenticatedAt: authenticatedAt, userVerified: userVerified, isPasswordSignIn: method == .password,
                issuedAt: now, expiresAt: now.addingTimeInterval(configuration.refreshTokenLifetime)
            ))
        }
        return PendingTokens(
            session: TokenSessionStart(
                familyID: familyID, userID: userID, clientID: client.clientID, startedAt: now, refreshToken: refreshToken?.record,
                credentialID: credentialID.flatMap { $0.isEmpty ? nil : $0 }, method: method
            ),
            refreshToken: refreshToken?.token, scopes: scopes, audience: audience, authenticatedAt: authenticatedAt,
            userVerified: userVerified, method: method, nonce: nonce, idTokenAlgorithm: client.idTokenSigningAlgorithm, acr: acr
        )
    }

    /// Signs the access and ID tokens of a prepared session, once its session is written.
    public func sign(_ pending: PendingTokens, for user: User) async throws -> IssuedTokens {
        try await signedTokens(
            user: user, clientID: pending.session.clientID, scopes: pending.scopes, audience: pending.audience, sessionID: pending.session.familyID,
            authenticatedAt: pending.authenticatedAt, userVerified: pending.userVerified, method: pending.method,
            refreshToken: pending.refreshToken, nonce: pending.nonce, idTokenAlgorithm: pending.idTokenAlgorithm, acr: pending.acr
        )
    }

    /// The `refresh_token` grant: rotates the token. Presenting a token that was already
    /// rotated revokes its whole family, because one of the two holders is an attacker.
    public func refresh(_ token: String, client: OAuthClient, scope: String?, audience: String?, origin: RequestOrigin?) async throws -> IssuedTokens {
        let now = clock.now()
        let hash = TimeOrderedToken.storageKey(of: token)
        // A malformed request must not use up the token, so the request is checked against
        // the stored grant before the token is presented. The grant never changes, so this
        // read cannot race with the rotation that follows.
        var requested: (scopes: [String]?, audience: String?) = (nil, nil)
        var newExpiresAt = now.addingTimeInterval(configuration.refreshTokenLifetime)
        if let stored = try await refreshTokens.refreshToken(hash: hash), stored.clientID == client.clientID {
            // The session's absolute end, from its sign-in, which no rotation changes.
            let sessionEnd = stored.authenticatedAt.addingTimeInterval(configuration.refreshTokenAbsoluteLifetime)
            guard now < sessionEnd else {
                throw IdentityError(
                    .invalidGrant,
                    "the session began more than \(Int(configuration.refreshTokenAbsoluteLifetime / 86400)) days ago and can no longer be refreshed; sign in again"
                )
            }
            newExpiresAt = min(newExpiresAt, sessionEnd)
            // An empty or blank scope is no scope: "as before" (RFC 6749 §6), as Auth0 reads
            // it (its SDKs send `scope=""` by default).
            if let scope, !scope.allSatisfy(\.isWhitespace) {
                let asked = Scopes.grant(scope)
                guard Set(asked).isSubset(of: Set(stored.scopes)) else {
                    throw IdentityError(.invalidRequest, "scope may not exceed what was originally granted", field: "scope")
                }
                // The new refresh token keeps the original grant (RFC 6749 §6); a narrower
                // scope applies to the access and ID tokens issued now.
                requested.scopes = asked
            }
            if audience != nil { requested.audience = try resolveAudience(audience) }
        }
        let newToken = TimeOrderedToken.new(at: now, random: random)
        let outcome = try await refreshTokens.rotateRefreshToken(
            hash: hash, clientID: client.clientID, newHash: TimeOrderedToken.storageKey(of: newToken),
            newExpiresAt: newExpiresAt, at: now
        )
        switch outcome {
        case .invalid:
            throw IdentityError(.invalidGrant, "the refresh token is unknown, expired, revoked, or was issued to another client")
        case .reused(let familyID, let userID):
            try await audit.record(AuditEvent(time: now, kind: .refreshTokenReused, userID: userID, clientID: client.clientID, detail: "session \(familyID) revoked", origin: origin))
            throw IdentityError(.invalidGrant, "the refresh token was already used; its session is revoked", reason: .refreshTokenReused)
        case .rotated(let previous):
            guard let user = try await users.user(id: previous.userID) else {
                throw IdentityError(.invalidGrant, "the account no longer exists")
            }
            securityEvents?.announce(AuditEvent(time: now, kind: .tokenRefreshed, userID: user.id, clientID: client.clientID, detail: "session \(previous.familyID)", origin: origin))
            return try await signedTokens(
                user: user, clientID: client.clientID, scopes: requested.scopes ?? previous.scopes,
                audience: requested.audience ?? previous.audience, sessionID: previous.familyID,
                authenticatedAt: previous.authenticatedAt, userVerified: previous.userVerified, method: previous.method,
                refreshToken: newToken, nonce: nil, idTokenAlgorithm: client.idTokenSigningAlgorithm
            )
        }
    }

    /// Revokes the session of a refresh token (RFC 7009). Unknown tokens are not an error.
    public func revoke(_ token: String, client: OAuthClient, origin: RequestOrigin?) async throws {
        let now = clock.now()
        if let userID = try await refreshTokens.revokeRefreshTokenFamily(hash: TimeOrderedToken.storageKey(of: token), clientID: client.clientID, at: now) {
            try await audit.record(AuditEvent(time: now, kind: .tokensRevoked, userID: userID, clientID: client.clientID, origin: origin))
        }
    }

    /// Checks a bearer access token: signature, issuer, expiry, audience, required scope,
    /// and that its session has not been revoked.
    public func authorize(_ bearer: String?, audience: String? = nil, scope: String? = nil) async throws -> AccessGrant {
        guard let bearer, !bearer.isEmpty else { throw IdentityError(.invalidToken, "a bearer access token is required") }
        var verified: (keyID: String, payload: Data)?
        // Resolve the key first (the ring may need to reload), then verify synchronously.
        if let keyID = Self.keyID(of: bearer), let key = try await keys.publicKey(keyID: keyID) {
            verified = JSONWebSignature.verify(bearer) { $0 == keyID ? key : nil }
        }
        guard let payload = verified?.payload,
            let claims = try? JSONDecoder().decode(AccessTokenClaims.self, from: payload),
            claims.iss == configuration.issuer
        else {
            throw IdentityError(.invalidToken, "the access token is malformed or its signature does not verify")
        }
        guard Double(claims.exp) > clock.now().timeIntervalSince1970 else {
            throw IdentityError(.invalidToken, "the access token has expired")
        }
        if let audience, claims.aud != audience {
            throw IdentityError(.invalidToken, "the access token is for \(claims.aud), not \(audience)")
        }
        let scopes = Set(claims.scope.split(separator: " ").map(String.init))
        if let scope, !scopes.contains(scope) {
            throw IdentityError(.insufficientScope, "the access token lacks the \(scope) scope", reason: .missingScope(scope))
        }
        // The session must be the token's own user's: a token whose `sid` names another
        // account's session is refused, whatever signed it (defence in depth).
        guard try await refreshTokens.isSessionActive(familyID: claims.sid, userID: UserID(rawValue: claims.sub)) else {
            throw IdentityError(.invalidToken, "the session of this access token has been revoked")
        }
        return AccessGrant(
            userID: UserID(rawValue: claims.sub), clientID: claims.client_id, scopes: scopes, sessionID: claims.sid,
            authenticatedAt: Date(timeIntervalSince1970: Double(claims.auth_time)), methods: claims.amr ?? []
        )
    }

    /// What an `id_token_hint` (OpenID Connect RP-Initiated Logout §2) says, once its signature
    /// and issuer are checked: whose it is, for which client, and which login session. An
    /// expired hint is still read, as the specification asks.
    public func idTokenHint(_ token: String) async throws -> (userID: UserID, clientID: String, sessionID: String)? {
        // An ID token's header says `JWT`; an access token's (`at+jwt`) is never a hint.
        guard let header = Self.header(of: token), header.typ == "JWT", let keyID = header.kid, let key = try await keys.publicKey(keyID: keyID),
            let verified = JSONWebSignature.verify(token, keys: { $0 == keyID ? key : nil }),
            let claims = try? JSONDecoder().decode(IDTokenClaims.self, from: verified.payload), claims.iss == configuration.issuer
        else { return nil }
        return (UserID(rawValue: claims.sub), claims.aud, claims.sid)
    }

    /// The published signing keys: every one, or the RSA keys alone (`rsaOnly`), with an
    /// RS256 key made first if there is none yet, so that the set is never empty.
    public func keySet(rsaOnly: Bool = false) async throws -> JSONWebKeySet {
        guard rsaOnly else { return try await keys.keySet() }
        _ = try await keys.activeKey(.rs256)
        return try await keys.keySet(algorithms: [.rs256, .ps256])
    }

    /// How long a logout token is good for: long enough for the post and a retry's clock
    /// skew, short enough that a captured one is soon useless.
    public static let logoutTokenLifetime: TimeInterval = 120

    /// A logout token (OpenID Connect Back-Channel Logout 1.0 §2.4) telling `client` that the
    /// login session `sessionID` of `userID` ended: signed with the key and algorithm of the
    /// client's ID tokens, as §2.6 has the client verify it, and typed `logout+jwt`.
    public func logoutToken(sessionID: String, userID: UserID, client: OAuthClient) async throws -> String {
        let now = Int64(clock.now().timeIntervalSince1970)
        let claims = LogoutTokenClaims(
            iss: configuration.issuer, sub: userID.rawValue, aud: client.clientID, iat: now, exp: now + Int64(Self.logoutTokenLifetime),
            jti: Base64URL.encode(random.bytes(16)), events: [LogoutTokenClaims.event: [:]], sid: sessionID
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        let signing = try await keys.activeKey(client.idTokenSigningAlgorithm)
        let header = JSONWebSignature.encodedHeader(keyID: signing.keyID, type: "logout+jwt", algorithm: signing.key.algorithm)
        return try JSONWebSignature.sign(payload: Array(try encoder.encode(claims)), header: header, key: signing.key)
    }

    /// A Security Event Token (RFC 8417) over `claims`: typed `secevent+jwt` (SSF 1.0
    /// §4.1.1) and signed with the RS256 key, as the CAEP interoperability profile asks, so a
    /// receiver verifies it against the JWKS.
    public func securityEventToken(_ claims: [UInt8]) async throws -> String {
        let signing = try await keys.activeKey(.rs256)
        let header = JSONWebSignature.encodedHeader(keyID: signing.keyID, type: "secevent+jwt", algorithm: signing.key.algorithm)
        return try JSONWebSignature.sign(payload: claims, header: header, key: signing.key)
    }

    // MARK: - Building tokens

    private func signedTokens(
        user: User,
        clientID: String,
        scopes: [String],
        audience: String,
        sessionID: String,
        authenticatedAt: Date,
        userVerified: Bool,
        method: SignInMethod,
        refreshToken: String?,
        nonce: String?,
        idTokenAlgorithm: SigningAlgorithm,
        acr: String? = nil
    ) async throws -> IssuedTokens {
        let now = Int64(clock.now().timeIntervalSince1970)
        // Access tokens are ES256 unless their API asks otherwise: this server verifies its
        // own on every call, and P-256 signs in a fraction of RSA's time. The ID token, only
        // when one is asked for, is signed as its client chose.
        let signing = try await keys.activeKey(configuration.accessTokenAlgorithms[audience] ?? .es256)
        let methods = method.authenticationMethodReferences(userVerified: userVerified)
        let access = AccessTokenClaims(
            iss: configuration.issuer, sub: user.id.rawValue, aud: audience, iat: now,
            exp: now + Int64(configuration.accessTokenLifetime), jti: Base64URL.encode(random.bytes(16)),
            scope: scopes.joined(separator: " "), client_id: clientID, sid: sessionID, auth_time: Int64(authenticatedAt.timeIntervalSince1970),
            amr: methods, acr: acr
        )
        var idToken: String?
        if scopes.contains(Scopes.openID) {
            let profile = UserInfo(user: user, scopes: scopes)
            let claims = IDTokenClaims(
                iss: configuration.issuer, sub: user.id.rawValue, aud: clientID, iat: now,
                exp: now + Int64(configuration.idTokenLifetime), auth_time: Int64(authenticatedAt.timeIntervalSince1970),
                sid: sessionID, nonce: nonce, acr: acr, amr: methods,
                name: profile.name, given_name: profile.givenName, family_name: profile.familyName, nickname: profile.nickname,
                picture: profile.picture, preferred_username: profile.preferredUsername, updated_at: profile.updatedAt,
                email: profile.email, email_verified: profile.emailVerified,
                phone_number: profile.phoneNumber, phone_number_verified: profile.phoneNumberVerified, external_id: profile.externalID
            )
            let idSigning = idTokenAlgorithm == signing.key.algorithm ? signing : try await keys.activeKey(idTokenAlgorithm)
            idToken = try JSONWebSignature.sign(payload: claims.json, header: idSigning.idTokenHeader, key: idSigning.key)
        }
        return IssuedTokens(
            accessToken: try JSONWebSignature.sign(payload: access.json, header: signing.accessTokenHeader, key: signing.key),
            idToken: idToken,
            refreshToken: refreshToken,
            tokenType: "Bearer",
            expiresIn: Int(configuration.accessTokenLifetime),
            scope: scopes.joined(separator: " ")
        )
    }

    /// Bearer secrets (codes, session and admin tokens, refresh tokens inside their
    /// ``TimeOrderedToken`` key) are stored only as SHA-256, so a database leak does not
    /// leak them.
    public static func hash(_ token: String) -> [UInt8] {
        Array(SHA256.hash(data: Data(token.utf8)))
    }

    private static func keyID(of token: String) -> String? { header(of: token)?.kid }

    private static func header(of token: String) -> JSONWebSignature.Header? {
        guard let header = token.split(separator: ".").first, let bytes = Base64URL.decode(header) else { return nil }
        return try? JSONDecoder().decode(JSONWebSignature.Header.self, from: Data(bytes))
    }
}
