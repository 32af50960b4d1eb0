public import Foundation

/// An authorization code as stored (OAuth 2.1 §4.1): single use, short-lived, bound to its
/// client, redirect URI and PKCE challenge. Only the code's SHA-256 is kept.
public struct AuthorizationCode: Sendable, Hashable {
    /// SHA-256 of the code.
    public let codeHash: [UInt8]
    /// The client it was issued to.
    public let clientID: String
    /// The user who signed in.
    public let userID: UserID
    /// The redirect URI it was delivered to; the exchange must name the same one.
    public let redirectURI: String
    /// The PKCE `code_challenge` (S256).
    public let codeChallenge: String
    /// The granted scopes.
    public let scopes: [String]
    /// The audience of the access token.
    public let audience: String
    /// The OpenID Connect `nonce`, echoed in the ID token.
    public let nonce: String?
    /// The login session the exchanged tokens will belong to, decided up front so that a
    /// replayed code can revoke them.
    public let sessionID: String
    public let authenticatedAt: Date
    /// Whether that authentication verified the user.
    public let userVerified: Bool
    public let expiresAt: Date
    /// The passkey that started the browser session the code was issued from, when one did;
    /// the session the code starts ends with it.
    public let credentialID: [UInt8]?
    /// How the person signed in to that browser session; the tokens say the same.
    public let method: SignInMethod
    /// The SHA-256 of the browser session's token, when the grant has no `offline_access`:
    /// the login session the code starts ends with the browser session (signing out there
    /// signs the app out too, OpenID Connect Back-Channel Logout §2.7), while an offline
    /// grant outlives it.
    public let browserSession: [UInt8]?
    /// The `acr` the tokens carry: decided when the code was issued, from the sign-in and
    /// the request's `acr_values`.
    public let acr: String?

    public init(
        codeHash: [UInt8],
        clientID: String,
        userID: UserID,
        redirectURI: String,
        codeChallenge: String,
        scopes: [String],
        audience: String,
        nonce: String?,
        sessionID: String,
        authenticatedAt: Date,
        userVerified: Bool,
        expiresAt: Date,
        credentialID: [UInt8]? = nil,
        method: SignInMethod = .passkey,
        browserSession: [UInt8]? = nil,
        acr: String? = nil
    ) {
        self.acr = acr
        self.browserSession = browserSession
        self.credentialID = credentialID
        self.method = method
        self.codeHash = codeHash
        self.clientID = clientID
        self.userID = userID
        self.redirectURI = redirectURI
        self.codeChallenge = codeChallenge
        self.scopes = scopes
        self.audience = audience
        self.nonce = nonce
        self.sessionID = sessionID
        self.authenticatedAt = authenticatedAt
        self.userVerified = userVerified
        self.expiresAt = expiresAt
    }
}

/// What presenting an authorization code led to.
public enum AuthorizationCodeOutcome: Sendable, Hashable {
    /// The code was unused and unexpired; it is now used.
    case consumed(AuthorizationCode)
    /// The code had already been used: the session its first exchange started is now revoked
    /// (OAuth 2.1 §4.1.3).
    case reused(AuthorizationCode)
    /// Unknown or expired.
    case invalid
}
