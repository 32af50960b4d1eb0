/// The one error type of `IdentityCore`. Each API face renders it in its own envelope; the
/// ``code`` decides the status and the stable error name. Equality and hashing consider
/// only the code, so callers and tests match on it.
public struct IdentityError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure this is, in OAuth vocabulary where one exists.
    public enum Code: String, Sendable, Hashable {
        /// The request is malformed or names something that cannot be done (400).
        case invalidRequest = "invalid_request"
        /// Client authentication failed (401).
        case invalidClient = "invalid_client"
        /// The client may not use this grant or endpoint (403).
        case unauthorizedClient = "unauthorized_client"
        /// The grant (auth_session, ceremony response, refresh token) is invalid (403).
        case invalidGrant = "invalid_grant"
        /// The grant type is not supported (400).
        case unsupportedGrantType = "unsupported_grant_type"
        /// The request was refused, for example an unknown audience (403).
        case accessDenied = "access_denied"
        /// The bearer token is missing, malformed, expired or revoked (401).
        case invalidToken = "invalid_token"
        /// The bearer token lacks a required scope (403).
        case insufficientScope = "insufficient_scope"
        /// The resource does not exist for this user (404).
        case notFound = "not_found"
        /// The change conflicts with the account's state (409).
        case conflict = "conflict"
    }

    /// The kind of failure.
    public let code: Code
    /// A human-readable message, safe to show to the client.
    public let message: String
    /// A machine-readable detail, for example a WebAuthn error code or `unknown_credential`.
    public let reason: String?
    /// The credential the failure is about, when the client should act on it (for example
    /// to signal an unknown credential to the platform), base64url.
    public let credentialID: String?
    /// The request field at fault, for validation errors.
    public let field: String?

    /// Creates an error.
    public init(_ code: Code, _ message: String, reason: String? = nil, credentialID: String? = nil, field: String? = nil) {
        self.code = code
        self.message = message
        self.reason = reason
        self.credentialID = credentialID
        self.field = field
    }

    public var description: String { "\(code.rawValue): \(message)" }

    public static func == (lhs: IdentityError, rhs: IdentityError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

/// A failure a store reports for a write that would break a uniqueness rule.
public struct StoreConflict: Error, Sendable, Hashable {
    /// What would have been duplicated.
    public enum Kind: String, Sendable {
        /// An email, phone number or username already belongs to a user.
        case identifier
        /// The credential ID is already registered.
        case credentialID
        /// The user already has a credential with this name.
        case credentialName
    }

    /// What would have been duplicated.
    public let kind: Kind

    /// Creates the conflict.
    public init(_ kind: Kind) { self.kind = kind }
}
