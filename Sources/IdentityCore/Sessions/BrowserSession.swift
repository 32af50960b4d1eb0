public import Foundation

/// A signed-in browser on the hosted pages. The cookie carries a random token; only its
/// SHA-256 is stored, so a database leak does not hand out sessions.
public struct BrowserSession: Sendable, Hashable {
    /// SHA-256 of the cookie's token.
    public let tokenHash: [UInt8]
    /// The signed-in user.
    public let userID: UserID
    /// When the user authenticated (the `auth_time` of tokens issued from this session).
    public let authenticatedAt: Date
    /// Whether that authentication verified the user.
    public let userVerified: Bool
    /// When the session ends on its own.
    public let expiresAt: Date
    /// The passkey that signed the user in, when one did: removing or turning it off ends
    /// the session.
    public let credentialID: [UInt8]?
    /// How the person signed in: removing their password ends the sessions a password started.
    public let method: SignInMethod
    /// Whether a recovery code started it: such a session may only enroll a new passkey
    /// (and sign out), for at most ``TokenService/recoveryTokenLifetime``.
    public let isRecovery: Bool

    public init(
        tokenHash: [UInt8], userID: UserID, authenticatedAt: Date, userVerified: Bool, expiresAt: Date, credentialID: [UInt8]? = nil,
        method: SignInMethod = .passkey, isRecovery: Bool = false
    ) {
        self.isRecovery = isRecovery
        self.credentialID = credentialID
        self.method = method
        self.tokenHash = tokenHash
        self.userID = userID
        self.authenticatedAt = authenticatedAt
        self.userVerified = userVerified
        self.expiresAt = expiresAt
    }
}
