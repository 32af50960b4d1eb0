public import WebAuthn

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
        /// The grant (a ceremony handle or response, a refresh token) is invalid (403).
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
        /// A new password breaks the password policy (400); the message names the rule.
        case invalidPassword = "invalid_password"
        /// Too many requests from one client address (429, with `Retry-After`).
        case tooManyRequests = "too_many_requests"
        /// The route does not take this method (405): a `HEAD` of a route whose `GET` starts
        /// something, which answers nothing rather than start it unseen.
        case methodNotAllowed = "method_not_allowed"
        /// A requested scope is not one the client may receive (400, RFC 6749 §5.2).
        case invalidScope = "invalid_scope"
        /// The database is busy, locked, full or unreachable (503, with `Retry-After`):
        /// nothing was written, and the same request may succeed shortly.
        case temporarilyUnavailable = "temporarily_unavailable"
    }

    /// The kind of failure.
    public let code: Code
    /// What the message says, and about which part of the request.
    private let text: Text
    /// A machine-readable detail, for example a WebAuthn check or `unknown_credential`.
    public let reason: Reason?
    /// The credential the failure is about, when the client should act on it (for example
    /// to signal an unknown credential to the platform), base64url.
    public let credentialID: String?
    /// The request member at fault, for validation errors, in the core's own names; a face
    /// spells it with ``fieldName(_:)``.
    public let field: Field?

    /// A failure whose message names no part of the request by the core's names.
    /// - Parameter field: The request member at fault, as the face that threw it spells it.
    public init(_ code: Code, _ message: String, reason: Reason? = nil, credentialID: String? = nil, field: String? = nil) {
        self.init(code, text: .plain(message), reason: reason, credentialID: credentialID, field: field.map(Field.named))
    }

    /// A failure whose message names no part of the request, at the request member `field`.
    public init(_ code: Code, _ message: String, reason: Reason? = nil, field: Field) {
        self.init(code, text: .plain(message), reason: reason, credentialID: nil, field: field)
    }

    /// A failure about `subject`, whose message is the subject's name followed by
    /// `predicate` ("email" + "is not a valid email address"), so that each face can name
    /// the subject its own way.
    /// - Parameter isField: Whether the subject is also the request member at fault (a
    ///   validation error), or only what the message is about.
    public init(_ code: Code, about subject: Field, _ predicate: String, reason: Reason? = nil, isField: Bool = true) {
        self.init(code, text: .about(subject, predicate), reason: reason, credentialID: nil, field: isField ? subject : nil)
    }

    private init(_ code: Code, text: Text, reason: Reason?, credentialID: String?, field: Field?) {
        self.code = code
        self.text = text
        self.reason = reason
        self.credentialID = credentialID
        self.field = field
    }

    /// The message in the core's own names.
    public var message: String { message(.core) }

    /// The message, with the part of the request it is about named as a face names it.
    public func message(_ naming: FieldNaming) -> String {
        switch text {
        case .plain(let message): return message
        case .about(let subject, let predicate): return naming.name(of: subject) + " " + predicate
        }
    }

    /// The request member at fault, as a face names it.
    public func fieldName(_ naming: FieldNaming) -> String? {
        field.map(naming.name(of:))
    }

    public var description: String { "\(code.rawValue): \(message)" }

    /// What a sign-in or recovery of an account an administrator turned off gets, in every face.
    public static var accountDisabled: IdentityError {
        IdentityError(.invalidGrant, "this account has been disabled by an administrator", reason: .accountDisabled)
    }

    /// The seconds a client should wait before trying again (`Retry-After`), when the
    /// failure says so.
    public var retryAfter: Int? {
        switch reason {
        case .rateLimited(let seconds), .busy(let seconds): return seconds
        default: return nil
        }
    }

    /// Whether the reason is ``Reason/userExists(_:)``, whichever identifier it names.
    public var isUserExists: Bool {
        if case .userExists = reason { return true }
        return false
    }

    public static func == (lhs: IdentityError, rhs: IdentityError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

extension IdentityError {
    /// A part of a request, in the core's own names; each face spells it on its wire with a
    /// ``FieldNaming``.
    public enum Field: Sendable, Hashable {
        /// The new account's profile as a whole.
        case profile
        /// One member of a profile, by its key (`email`, `phone_number`, `picture`).
        case profileMember(String)
        /// The handle of an open ceremony.
        case ceremony
        /// A member a face or service named itself, spelled the same in every face.
        case named(String)
    }

    private enum Text: Sendable {
        case plain(String)
        case about(Field, String)
    }

    /// How a face spells the core's ``Field``s on its wire.
    public struct FieldNaming: Sendable {
        /// The profile as a whole.
        public let profile: String
        /// What goes before a profile member's key (`user_profile.`, `traits.`, or nothing).
        public let memberPrefix: String
        /// The ceremony's handle.
        public let ceremony: String

        public init(profile: String, memberPrefix: String, ceremony: String) {
            self.profile = profile
            self.memberPrefix = memberPrefix
            self.ceremony = ceremony
        }

        /// The core's own words, for logs and the command line.
        public static let core = FieldNaming(profile: "profile", memberPrefix: "", ceremony: "ceremony")

        /// `field` as this face spells it.
        public func name(of field: Field) -> String {
            switch field {
            case .profile: return profile
            case .profileMember(let key): return memberPrefix + key
            case .ceremony: return ceremony
            case .named(let name): return name
            }
        }
    }

    /// Why a request failed, beyond its ``Code``: what faces map to their own error ids and
    /// statuses, and what clients act on (the ``rawValue`` is the stable wire name).
    public enum Reason: Sendable, Hashable {
        /// The request body is larger than the configured limit (413).
        case bodyTooLarge
        /// The request body could not be read: a malformed chunked encoding, or a body cut
        /// off (400). The connection closes after the answer.
        case unreadableBody
        /// The request body's media type is not one the endpoint reads (415).
        case unsupportedMediaType
        /// The identifier already belongs to an account: which kind, when known.
        case userExists(ProfileValidation.IdentifierKind?)
        /// A value the request must carry is missing.
        case required
        /// The identifier a sign-in named is not an email, a phone number or a username.
        case malformedIdentifier
        /// An administrator turned the passkey off; only an administrator can turn it on.
        case disabledByAdministrator
        /// An administrator turned the account off: it cannot sign in or recover.
        case accountDisabled
        /// No user has this ID (Admin API).
        case userNotFound
        /// The user has no passkey with this ID (Admin API).
        case credentialNotFound
        /// The user has no active session with this ID (Admin API).
        case sessionNotFound
        /// No webhook delivery has this ID (Admin API).
        case deliveryNotFound
        /// No configured webhook endpoint has this ID (Admin API).
        case endpointNotFound
        /// The passkey is not registered with any account here.
        case unknownCredential
        /// The ceremony is unknown, expired, used, or another client's.
        case invalidAuthSession
        /// A registration was sent for a login ceremony, or the other way round.
        case wrongResponseKind
        /// The PKCE verifier does not match the challenge.
        case pkceMismatch
        /// The authorization code was presented twice.
        case codeReused
        /// The refresh token was presented twice.
        case refreshTokenReused
        /// Deleting this would leave the account without a way to sign in.
        case lastAuthenticationMethod
        /// A browser request failed the cross-site request forgery checks.
        case csrfCheckFailed
        /// The passkey is registered but turned off.
        case credentialDisabled
        /// Another passkey of the account already has this name.
        case credentialNameTaken
        /// The passkey belongs to another account than the one the request named.
        case userMismatch
        /// The access token lacks this scope.
        case missingScope(String)
        /// A WebAuthn verification step failed.
        case verification(WebAuthnError.Code)
        /// The sign-in is older than a sensitive action allows (RFC 9470); `maxAge` is the
        /// most seconds it may be.
        case insufficientUserAuthentication(maxAge: Int)
        /// A rate limit was passed; the window ends in `retryAfter` seconds.
        case rateLimited(retryAfter: Int)
        /// A one-time code (verification, recovery) that does not match, or none was sent.
        case invalidCode
        /// A one-time code whose lifetime is over.
        case expiredCode
        /// A one-time code that took too many wrong guesses; a new one must be sent.
        case tooManyAttempts
        /// A session that account recovery started, which may only add a passkey.
        case recoverySession
        /// The server is busy with slow work (password hashing); retry in `retryAfter` seconds.
        case busy(retryAfter: Int)

        /// The stable name clients see.
        public var rawValue: String {
            switch self {
            case .bodyTooLarge: return "body_too_large"
            case .unreadableBody: return "unreadable_body"
            case .unsupportedMediaType: return "unsupported_media_type"
            case .userExists: return "user_exists"
            case .required: return "required"
            case .malformedIdentifier: return "malformed_identifier"
            case .disabledByAdministrator: return "disabled_by_administrator"
            case .accountDisabled: return "account_disabled"
            case .userNotFound: return "user_not_found"
            case .credentialNotFound: return "credential_not_found"
            case .sessionNotFound: return "session_not_found"
            case .deliveryNotFound: return "delivery_not_found"
            case .endpointNotFound: return "endpoint_not_found"
            case .unknownCredential: return "unknown_credential"
            case .invalidAuthSession: return "invalid_auth_session"
            case .wrongResponseKind: return "wrong_response_kind"
            case .pkceMismatch: return "pkce_mismatch"
            case .codeReused: return "code_reused"
            case .refreshTokenReused: return "refresh_token_reused"
            case .lastAuthenticationMethod: return "last_authentication_method"
            case .csrfCheckFailed: return "csrf_check_failed"
            case .credentialDisabled: return "credential_disabled"
            case .credentialNameTaken: return "credential_name_taken"
            case .userMismatch: return "user_mismatch"
            case .missingScope(let scope): return scope
            case .verification(let code): return code.rawValue
            case .insufficientUserAuthentication: return "insufficient_user_authentication"
            case .rateLimited: return "rate_limited"
            case .invalidCode: return "invalid_code"
            case .expiredCode: return "expired_code"
            case .tooManyAttempts: return "too_many_attempts"
            case .recoverySession: return "recovery_session"
            case .busy: return "busy"
            }
        }
    }
}

/// A completion's passkey or owner changed since the login read them (another sign-in,
/// disabling, deleting, a profile change): nothing was written, and the login can be
/// verified again against what is stored now.
public struct StaleRead: Error, Sendable, Hashable {
    public init() {}
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

    public init(_ kind: Kind) { self.kind = kind }
}
