public import Foundation

/// A multi-step sign-up, sign-in, settings, recovery or verification flow with a stable ID, as self-service faces
/// (Kratos's `/self-service/*`) expose them. It outlives a failed attempt: each attempt
/// consumes the flow's current ceremony, and a failure gives the flow a fresh one.
public struct InteractiveFlow: Sendable, Hashable {
    /// What the flow does.
    public enum Kind: String, Sendable, Hashable {
        /// Create an account with a passkey.
        case registration
        /// Sign in with a passkey.
        case login
        /// Manage a signed-in account's passkeys.
        case settings
        /// Get back into an account by a code sent to its verified email.
        case recovery
        /// Prove an email address by a code sent to it.
        case verification
    }

    /// The flow's ID, a UUID string.
    public let id: String
    /// What the flow does.
    public let kind: Kind
    /// Whether a browser runs it (cookies and a CSRF token) rather than a native app.
    public let isBrowser: Bool
    /// The ceremony that the next submission finishes.
    public var ceremonyID: String
    /// The options of that ceremony, encoded by the face that renders them.
    public var options: [UInt8]
    /// For settings: the signed-in user the flow belongs to.
    public let userID: UserID?
    /// For browser flows: the CSRF token the submission must carry.
    public let csrfToken: String?
    /// The URL that started the flow.
    public let requestURL: String
    /// When it started.
    public let issuedAt: Date
    /// When it stops accepting submissions.
    public let expiresAt: Date
    /// When a submission completed it; a completed flow accepts nothing more.
    public var completedAt: Date?

    public init(
        id: String, kind: Kind, isBrowser: Bool, ceremonyID: String, options: [UInt8], userID: UserID?, csrfToken: String?,
        requestURL: String, issuedAt: Date, expiresAt: Date, completedAt: Date? = nil
    ) {
        self.id = id
        self.kind = kind
        self.isBrowser = isBrowser
        self.ceremonyID = ceremonyID
        self.options = options
        self.userID = userID
        self.csrfToken = csrfToken
        self.requestURL = requestURL
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.completedAt = completedAt
    }
}
