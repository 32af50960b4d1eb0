/// The one error type of `LatchkeyClient`: a failure the server reported, or an exchange
/// that never produced a usable answer.
///
/// The server speaks two envelopes, and both decode into this type:
///
/// - `/passkey/*` and `/oauth/*`: `{"error", "error_description", "reason"?, "credential_id"?}`
///   (Auth0's Authentication API shape; `code`/`description` are read as a fallback, as
///   Auth0.swift does).
/// - `/me/v1/*` (My Account): RFC 7807-like `{"type", "status", "title", "detail",
///   "validation_errors"?}`.
///
/// Match on ``code`` and ``reason``; ``detail`` is for people.
public struct LatchkeyAPIError: Error, Sendable, Hashable, Decodable, CustomStringConvertible {
    /// A stable error code: the OAuth `error`, the My Account `type`, or one of the
    /// client-side codes ``transportFailed`` and ``invalidResponse``.
    public struct Code: RawRepresentable, Sendable, Hashable, Decodable, CustomStringConvertible, ExpressibleByStringLiteral {
        /// The code as it appears on the wire.
        public let rawValue: String

        /// Wraps a code.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Wraps a code literal.
        public init(stringLiteral value: String) { self.rawValue = value }

        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(String.self)
        }

        public var description: String { rawValue }

        /// The request is malformed, or names an account that already exists.
        public static let invalidRequest: Code = "invalid_request"
        /// Client authentication failed.
        public static let invalidClient: Code = "invalid_client"
        /// The client may not use this grant or endpoint.
        public static let unauthorizedClient: Code = "unauthorized_client"
        /// The `auth_session`, ceremony response or refresh token was refused; ``reason``
        /// says which check failed.
        public static let invalidGrant: Code = "invalid_grant"
        /// The request was refused.
        public static let accessDenied: Code = "access_denied"
        /// The bearer token is missing, malformed, expired or revoked.
        public static let invalidToken: Code = "invalid_token"
        /// The bearer token lacks a scope the endpoint needs.
        public static let insufficientScope: Code = "insufficient_scope"

        /// Client-side: no HTTP response arrived (bad URL, connection refused, timeout,
        /// cancellation).
        public static let transportFailed: Code = "transport_failed"
        /// Client-side: the server answered with a body this client cannot read, or an
        /// error status without an error envelope.
        public static let invalidResponse: Code = "invalid_response"
    }

    /// One entry of a My Account `validation_errors` array.
    public struct ValidationError: Sendable, Hashable, Decodable {
        /// What is wrong.
        public var detail: String?
        /// The request field at fault.
        public var field: String?
        /// A JSON pointer to the field at fault.
        public var pointer: String?
        /// Where the field was: body, query or header.
        public var source: String?

        /// Creates an entry.
        public init(detail: String? = nil, field: String? = nil, pointer: String? = nil, source: String? = nil) {
            self.detail = detail
            self.field = field
            self.pointer = pointer
            self.source = source
        }

        private enum CodingKeys: String, CodingKey {
            case detail, field, pointer, source
        }
    }

    /// The HTTP status; `nil` when no response arrived.
    public var status: Int?
    /// The stable error code.
    public var code: Code
    /// The human-readable explanation: `error_description` or `detail`.
    public var detail: String?
    /// The My Account `title`, a short summary of the status.
    public var title: String?
    /// A machine-readable detail: a WebAuthn verification code such as
    /// `challenge_mismatch`, or a Latchkey code such as `unknown_credential`.
    public var reason: String?
    /// The credential the failure is about (base64url), for example one the server does not
    /// know, which a client should signal to the platform so that it stops offering it.
    public var credentialID: String?
    /// My Account field-level problems.
    public var validationErrors: [ValidationError]

    /// Creates an error.
    public init(
        status: Int?,
        code: Code,
        detail: String? = nil,
        title: String? = nil,
        reason: String? = nil,
        credentialID: String? = nil,
        validationErrors: [ValidationError] = []
    ) {
        self.status = status
        self.code = code
        self.detail = detail
        self.title = title
        self.reason = reason
        self.credentialID = credentialID
        self.validationErrors = validationErrors
    }

    private enum CodingKeys: String, CodingKey {
        case error
        case errorDescription = "error_description"
        case code
        case description
        case type
        case status
        case title
        case detail
        case reason
        case credentialID = "credential_id"
        case validationErrors = "validation_errors"
    }

    /// Decodes either envelope. `status` is taken from a My Account body when present; the
    /// client overrides it with the HTTP status it received.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let error = try container.decodeIfPresent(Code.self, forKey: .error) {
            code = error
            detail = try container.decodeIfPresent(String.self, forKey: .errorDescription)
        } else if let type = try container.decodeIfPresent(Code.self, forKey: .type) {
            code = type
            detail = try container.decodeIfPresent(String.self, forKey: .detail)
        } else if let fallback = try container.decodeIfPresent(Code.self, forKey: .code) {
            code = fallback
            detail = try container.decodeIfPresent(String.self, forKey: .description)
        } else {
            throw DecodingError.keyNotFound(
                CodingKeys.error,
                .init(codingPath: container.codingPath, debugDescription: "neither \"error\" nor \"type\" is present")
            )
        }
        status = try container.decodeIfPresent(Int.self, forKey: .status)
        title = try container.decodeIfPresent(String.self, forKey: .title)
        reason = try container.decodeIfPresent(String.self, forKey: .reason)
        credentialID = try container.decodeIfPresent(String.self, forKey: .credentialID)
        validationErrors = try container.decodeIfPresent([ValidationError].self, forKey: .validationErrors) ?? []
    }

    /// One line: status, code, explanation and reason.
    public var description: String {
        var text = status.map { "HTTP \($0) " } ?? ""
        text += code.rawValue
        if let detail, !detail.isEmpty { text += ": \(detail)" } else if let title { text += ": \(title)" }
        if let reason { text += " (reason: \(reason))" }
        return text
    }
}
