/// The error body of the Authentication API (`/passkey/*`, `/oauth/*`, `/dbconnections/*`,
/// `/recovery/*`), as Auth0 and its SDKs read it, with Latchkey's machine-readable additions.
public struct OAuthErrorBody: Codable, Sendable, Hashable {
    /// The OAuth error code, for example `invalid_grant`.
    public var error: String
    /// The explanation, for people.
    public var errorDescription: String?
    /// A stable detail, for example `unknown_credential` or a WebAuthn code such as
    /// `challenge_mismatch`.
    public var reason: String?
    /// The credential the error is about (base64url), for example one the app should signal
    /// as unknown.
    public var credentialID: String?

    public init(error: String, errorDescription: String?, reason: String? = nil, credentialID: String? = nil) {
        self.error = error
        self.errorDescription = errorDescription
        self.reason = reason
        self.credentialID = credentialID
    }

    private enum CodingKeys: String, CodingKey {
        case error
        case errorDescription = "error_description"
        case reason
        case credentialID = "credential_id"
    }
}

/// The error body of the My Account API (`/me/v1/*`): RFC 9457 problem details in Auth0's
/// shape, with the stable code in `type` as `urn:latchkey:error:<code>`.
public struct ProblemDetails: Codable, Sendable, Hashable {
    /// The prefix of `type` before the stable code.
    public static let typePrefix = "urn:latchkey:error:"

    /// `urn:latchkey:error:<code>`.
    public var type: String
    public var status: Int?
    /// The status's reason phrase.
    public var title: String?
    /// The explanation, for people.
    public var detail: String?
    /// A stable detail, for example `insufficient_user_authentication`.
    public var reason: String?
    /// Field-level problems.
    public var validationErrors: [ValidationError]?

    /// One field-level problem.
    public struct ValidationError: Codable, Sendable, Hashable {
        /// What is wrong with it.
        public var detail: String?
        /// The field, dotted (`user_profile.email`).
        public var field: String?
        /// The field as a JSON pointer (`/user_profile/email`).
        public var pointer: String?
        /// Where the field was (`body`, `query`), when a server says.
        public var source: String?

        public init(detail: String? = nil, field: String? = nil, pointer: String? = nil, source: String? = nil) {
            self.detail = detail
            self.field = field
            self.pointer = pointer
            self.source = source
        }
    }

    /// Writes `code` into `type` after ``typePrefix``.
    public init(code: String, status: Int, title: String, detail: String, reason: String? = nil, validationErrors: [ValidationError]? = nil) {
        self.type = Self.typePrefix + code
        self.status = status
        self.title = title
        self.detail = detail
        self.reason = reason
        self.validationErrors = validationErrors
    }

    /// The stable code: `type` without its prefix.
    public var code: String { type.hasPrefix(Self.typePrefix) ? String(type.dropFirst(Self.typePrefix.count)) : type }

    private enum CodingKeys: String, CodingKey {
        case type, status, title, detail, reason
        case validationErrors = "validation_errors"
    }
}
