/// The one error type of `LatchkeyClient`: a failure the server reported, an exchange that
/// never produced a usable answer, or what only the client sees (the person cancelled, no
/// passkey on the device, nobody signed in).
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

        public init(rawValue: String) { self.rawValue = rawValue }

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

        // What only a client sees: the person, the device or the app's own state.

        /// The person dismissed the system sheet.
        public static let cancelled: Code = "cancelled"
        /// The device has no passkey for this server (or none the server allows).
        public static let noCredential: Code = "no_credential"
        /// The platform declined an automatic passkey upgrade (conditional create); nothing
        /// was shown to the person.
        public static let upgradeRefused: Code = "upgrade_refused"
        /// The device cannot create a passkey now (for example, no passcode is set).
        public static let deviceNotConfigured: Code = "device_not_configured"
        /// The person chose Sign in with Apple on the account creation sheet.
        public static let preferSignInWithApple: Code = "prefer_sign_in_with_apple"
        /// The device already holds a passkey for this account (the options excluded it).
        public static let passkeyExists: Code = "passkey_exists"
        /// The passkey provider failed for another reason; ``detail`` says which.
        public static let passkeyFailed: Code = "passkey_failed"
        /// Nobody is signed in: no session in the token store, or the server ended it.
        public static let notSignedIn: Code = "not_signed_in"
        /// The action changes how the account signs in and the sign-in is too old for it
        /// (the server's `insufficient_user_authentication`): sign in again, then retry.
        public static let stepUpRequired: Code = "step_up_required"
        /// The token store could not be read or written.
        public static let storeFailed: Code = "store_failed"
    }

    /// One entry of a My Account `validation_errors` array.
    public typealias ValidationError = ProblemDetails.ValidationError

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

    /// Auth0.swift's fallback spelling of the Authentication API body.
    private struct LegacyBody: Decodable {
        let code: Code
        let description: String?
    }

    private enum Envelope: String, CodingKey { case error, type }

    /// Decodes either envelope (``OAuthErrorBody`` or ``ProblemDetails``). `status` is taken
    /// from a My Account body when present; the client overrides it with the HTTP status it
    /// received.
    public init(from decoder: any Decoder) throws {
        let members = try decoder.container(keyedBy: Envelope.self)
        if members.contains(.error) {
            let body = try OAuthErrorBody(from: decoder)
            self.init(status: nil, code: Code(rawValue: body.error), detail: body.errorDescription, reason: body.reason, credentialID: body.credentialID)
        } else if members.contains(.type) {
            let body = try ProblemDetails(from: decoder)
            self.init(
                status: body.status, code: Code(rawValue: body.code), detail: body.detail, title: body.title, reason: body.reason,
                validationErrors: body.validationErrors ?? []
            )
        } else {
            let body = try LegacyBody(from: decoder)
            self.init(status: nil, code: body.code, detail: body.description)
        }
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
