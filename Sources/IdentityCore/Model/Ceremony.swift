public import Foundation
public import WebAuthn

/// A WebAuthn ceremony in progress, named to clients by its opaque `auth_session`.
/// It can be consumed once, by the client that started it, before it expires.
public struct Ceremony: Sendable, Hashable {
    /// What the ceremony is for.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// Create an account with its first passkey.
        case signup
        /// Sign in with a passkey.
        case login
        /// Add a passkey to a signed-in account.
        case enrollment
    }

    /// The opaque identifier given to the client as `auth_session`.
    public let id: String
    /// What the ceremony is for.
    public let kind: Kind
    /// The client that started it; only it may finish it.
    public let clientID: String
    /// The challenge sent in the options.
    public let challenge: [UInt8]
    /// The user verification requirement sent in the options.
    public let userVerification: UserVerificationRequirement
    /// For signup: the account to create once the passkey verifies.
    public let pendingUser: User?
    /// For enrollment: the signed-in user.
    public let userID: UserID?
    /// For login with a username: the credentials offered in `allowCredentials`.
    public let allowedCredentialIDs: [[UInt8]]
    /// When it was started.
    public let createdAt: Date
    /// When it expires.
    public let expiresAt: Date

    /// Creates a ceremony.
    public init(
        id: String,
        kind: Kind,
        clientID: String,
        challenge: [UInt8],
        userVerification: UserVerificationRequirement,
        pendingUser: User? = nil,
        userID: UserID? = nil,
        allowedCredentialIDs: [[UInt8]] = [],
        createdAt: Date,
        expiresAt: Date
    ) {
        self.id = id
        self.kind = kind
        self.clientID = clientID
        self.challenge = challenge
        self.userVerification = userVerification
        self.pendingUser = pendingUser
        self.userID = userID
        self.allowedCredentialIDs = allowedCredentialIDs
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// Who a finished sign-up or login signed in.
public struct SignedIn: Sendable {
    /// The user.
    public let user: User
    /// Whether the authenticator verified the user.
    public let userVerified: Bool
    /// The passkey used.
    public let credentialID: [UInt8]
    /// Whether the ceremony created the account.
    public let isNewAccount: Bool
}
