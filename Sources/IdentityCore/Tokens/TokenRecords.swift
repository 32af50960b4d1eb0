public import Foundation

/// A refresh token as stored: only its SHA-256 is kept. Tokens issued by rotation share a
/// family; presenting a rotated token again revokes the whole family.
public struct RefreshTokenRecord: Sendable, Hashable {
    /// SHA-256 of the token.
    public let tokenHash: [UInt8]
    /// The family (the login session) this token belongs to; also the `sid` claim.
    public let familyID: String
    public let userID: UserID
    /// The client the token was issued to.
    public let clientID: String
    /// The granted scopes.
    public let scopes: [String]
    /// The audience of access tokens issued from it.
    public let audience: String
    /// When the user authenticated to start this family (the `auth_time` claim).
    public let authenticatedAt: Date
    /// Whether that authentication verified the user.
    public let userVerified: Bool
    /// Whether that authentication was a password rather than a passkey (`amr` `pwd`).
    public let isPasswordSignIn: Bool
    /// How the person signed in.
    public var method: SignInMethod { isPasswordSignIn ? .password : .passkey }
    public let issuedAt: Date
    public let expiresAt: Date

    public init(
        tokenHash: [UInt8],
        familyID: String,
        userID: UserID,
        clientID: String,
        scopes: [String],
        audience: String,
        authenticatedAt: Date,
        userVerified: Bool,
        isPasswordSignIn: Bool = false,
        issuedAt: Date,
        expiresAt: Date
    ) {
        self.isPasswordSignIn = isPasswordSignIn
        self.tokenHash = tokenHash
        self.familyID = familyID
        self.userID = userID
        self.clientID = clientID
        self.scopes = scopes
        self.audience = audience
        self.authenticatedAt = authenticatedAt
        self.userVerified = userVerified
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
    }

    /// The token that replaces this one on rotation: the same session, with a new hash and
    /// lifetime.
    public func replacement(hash: [UInt8], issuedAt: Date, expiresAt: Date) -> RefreshTokenRecord {
        RefreshTokenRecord(
            tokenHash: hash, familyID: familyID, userID: userID, clientID: clientID, scopes: scopes, audience: audience,
            authenticatedAt: authenticatedAt, userVerified: userVerified, isPasswordSignIn: isPasswordSignIn, issuedAt: issuedAt, expiresAt: expiresAt
        )
    }
}

/// What presenting a refresh token led to.
public enum RefreshOutcome: Sendable, Hashable {
    /// The token was current; it is now used and `replacement` is stored in its place.
    case rotated(previous: RefreshTokenRecord)
    /// The token had already been rotated: its family is now revoked.
    case reused(familyID: String, userID: UserID)
    /// Unknown, expired, revoked, or issued to another client.
    case invalid
}

/// A token signing key as stored.
public struct SigningKeyRecord: Sendable, Hashable {
    /// The key ID (`kid`).
    public let keyID: String
    /// The private key: a P-256 key's raw representation (ES256), or an RSA key's PKCS#1 DER
    /// (RS256, PS256).
    public let privateKey: [UInt8]
    public let createdAt: Date
    /// When a newer key of its algorithm replaced it for signing; it stays published until
    /// its tokens expire.
    public let retiredAt: Date?
    /// What it signs with: each algorithm has its own key, rotated on its own.
    public let algorithm: SigningAlgorithm

    public init(keyID: String, privateKey: [UInt8], createdAt: Date, retiredAt: Date?, algorithm: SigningAlgorithm = .es256) {
        self.keyID = keyID
        self.privateKey = privateKey
        self.createdAt = createdAt
        self.retiredAt = retiredAt
        self.algorithm = algorithm
    }

    /// The same key, retired at `time`.
    public func retired(at time: Date?) -> SigningKeyRecord {
        SigningKeyRecord(keyID: keyID, privateKey: privateKey, createdAt: createdAt, retiredAt: time, algorithm: algorithm)
    }

    /// The same key with another stored private key (sealed, or resealed).
    public func storing(_ privateKey: [UInt8]) -> SigningKeyRecord {
        SigningKeyRecord(keyID: keyID, privateKey: privateKey, createdAt: createdAt, retiredAt: retiredAt, algorithm: algorithm)
    }
}

/// The JWS algorithms tokens are signed with (RFC 7518): ES256 for access tokens and for the
/// ID tokens of clients that ask for it; RS256, which OpenID Connect makes mandatory (and
/// which Auth0's SDKs expect), and PS256 for ID tokens.
public enum SigningAlgorithm: String, Sendable, Hashable, CaseIterable, Codable {
    /// ECDSA with P-256 and SHA-256.
    case es256 = "ES256"
    /// RSASSA-PKCS1-v1_5 with SHA-256, RSA-2048.
    case rs256 = "RS256"
    /// RSASSA-PSS with SHA-256 (MGF1 SHA-256, a 32-byte salt), RSA-2048.
    case ps256 = "PS256"

    /// Whether its keys are RSA keys.
    public var isRSA: Bool { self != .es256 }
}

/// An event as the audit trail holds it, with its position there.
public struct LoggedEvent: Sendable, Hashable {
    /// Its position in the trail: a later event has a higher one.
    public let id: Int64
    public let event: AuditEvent

    public init(id: Int64, event: AuditEvent) {
        self.id = id
        self.event = event
    }
}

/// A security-relevant event, kept for operators.
public struct AuditEvent: Sendable, Hashable {
    /// Event kinds.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case signup, login, enrollment
        case loginFailed = "login_failed"
        case credentialRenamed = "credential_renamed"
        case credentialDeleted = "credential_deleted"
        case signCountRegressed = "sign_count_regressed"
        case refreshTokenReused = "refresh_token_reused"
        case tokensRevoked = "tokens_revoked"
        case authorizationCodeReused = "authorization_code_reused"
        case profileUpdated = "profile_updated"
        case signedOut = "signed_out"
        case credentialDisabled = "credential_disabled"
        case credentialEnabled = "credential_enabled"
        case adminAuthenticated = "admin_authenticated"
        case adminAuthenticationFailed = "admin_authentication_failed"
        case passwordRemoved = "password_removed"
        /// A new metadata BLOB gives the passkey's authenticator model a status the relying
        /// party refuses (a compromised or revoked model).
        case authenticatorStatusFlagged = "authenticator_status_flagged"
        /// A refresh token was rotated. Announced to the log only, never stored: it is
        /// routine, and the rotated token itself is the record.
        case tokenRefreshed = "token_refreshed"
        /// Every session of the account was ended at once ("sign out everywhere").
        case signedOutEverywhere = "signed_out_everywhere"
        /// The person allowed a client that is not first-party some scopes (the detail).
        case consentGranted = "consent_granted"
        /// The person withdrew a client's permission, ending its sessions.
        case consentRevoked = "consent_revoked"
        /// An email address was proved the person's (the detail says which).
        case emailVerified = "email_verified"
        /// A new set of saved recovery codes replaced any earlier one.
        case recoveryCodesCreated = "recovery_codes_created"
        /// A recovery code (saved or emailed, the detail says which) let the person in to
        /// enroll a new passkey.
        case accountRecovered = "account_recovered"
        /// A recovery code was wrong, expired or used up.
        case recoveryFailed = "recovery_failed"
        /// An administrator made an account (Admin API).
        case userCreated = "user_created"
        /// An administrator changed an account's profile.
        case userUpdated = "user_updated"
        /// An administrator turned an account off, ending its sessions.
        case userDisabled = "user_disabled"
        /// An administrator turned an account on again.
        case userEnabled = "user_enabled"
        /// An administrator deleted an account with everything it had.
        case userDeleted = "user_deleted"
        /// An administrator ended one session.
        case sessionRevoked = "session_revoked"
        /// A call of the Admin API: method, path and status, under the key's ID.
        case adminRequest = "admin_request"
        /// An operator made an admin API key.
        case adminKeyCreated = "admin_key_created"
        /// An operator revoked an admin API key.
        case adminKeyRevoked = "admin_key_revoked"
        /// An administrator made a one-use enrollment link for an account.
        case enrollmentLinkCreated = "enrollment_link_created"
    }

    /// The prefix of ``actor`` for an admin API key.
    public static let adminKeyActorPrefix = "admin_key:"
    /// The ``actor`` of a change made with `latchkey admin` on the database.
    public static let commandLineActor = "cli"

    /// Who acted, as the Admin API and the console name them: `admin_key` and the key's ID,
    /// `operator` and the operator's user ID, `cli`, the `user` concerned, or the `system`.
    public var actorKind: (type: String, id: String?) {
        if let actor, actor.hasPrefix(Self.adminKeyActorPrefix) { return ("admin_key", String(actor.dropFirst(Self.adminKeyActorPrefix.count))) }
        if let actor, actor.hasPrefix(Operator.actorPrefix) { return ("operator", String(actor.dropFirst(Operator.actorPrefix.count))) }
        if actor == Self.commandLineActor { return ("cli", nil) }
        if let userID { return ("user", userID.rawValue) }
        return ("system", nil)
    }

    /// The detail of a confirmed change of email address: the address it replaced, which a
    /// Shared Signals `identifier-changed` names its subject by (RISC 1.0 §2.5).
    public static func emailChangeDetail(previous: String) -> String { emailChangePrefix + previous }

    /// The address an email change replaced, from its detail.
    public var previousEmail: String? {
        guard kind == .profileUpdated, detail.hasPrefix(Self.emailChangePrefix) else { return nil }
        return String(detail.dropFirst(Self.emailChangePrefix.count))
    }

    /// The detail as log lines show it: without the address an email change replaced, which
    /// the audit trail keeps and the log has no need of.
    public var loggedDetail: String { previousEmail == nil ? detail : "email" }

    private static let emailChangePrefix = "email; was "

    /// Who acted, when not the user or the system: `admin_key:<id>` for the Admin API.
    public var actor: String?
    /// The request it came from, when it came from one.
    public var origin: RequestOrigin?

    /// When it happened.
    public let time: Date
    /// What happened.
    public let kind: Kind
    /// The user concerned, if known.
    public let userID: UserID?
    /// The client concerned, if known.
    public let clientID: String?
    /// The credential concerned, base64url, if any.
    public let credentialID: String?
    public let detail: String

    /// `origin` is the request's that the event comes from, `nil` for what the server does
    /// on its own (a purge, a metadata update, the command line).
    public init(
        time: Date, kind: Kind, userID: UserID? = nil, clientID: String? = nil, credentialID: String? = nil, detail: String = "", actor: String? = nil,
        origin: RequestOrigin?
    ) {
        self.actor = actor
        self.origin = origin
        self.time = time
        self.kind = kind
        self.userID = userID
        self.clientID = clientID
        self.credentialID = credentialID
        self.detail = detail
    }
}
