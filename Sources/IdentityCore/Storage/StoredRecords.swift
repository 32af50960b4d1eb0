public import Foundation
import WebAuthn

// The models read back from their tables' columns, the same in every backend (the backends
// give the columns the same names; see `StoredRow`).

extension User {
    /// Reads a user from a row, whose users columns may carry a prefix (`u_` in joins).
    public init(stored row: some StoredRow, prefix: String = "") throws {
        self.init(
            id: UserID(rawValue: try row.text(prefix + "id")),
            userHandle: try row.bytes(prefix + "user_handle"),
            profile: UserProfile(
                email: try row.optionalText(prefix + "email"),
                phoneNumber: try row.optionalText(prefix + "phone_number"),
                username: try row.optionalText(prefix + "username"),
                name: try row.optionalText(prefix + "name"),
                givenName: try row.optionalText(prefix + "given_name"),
                familyName: try row.optionalText(prefix + "family_name"),
                nickname: try row.optionalText(prefix + "nickname"),
                picture: try row.optionalText(prefix + "picture")
            ),
            createdAt: try row.date(prefix + "created_at"),
            updatedAt: try row.date(prefix + "updated_at"),
            emailVerifiedAt: try row.optionalDate(prefix + "email_verified_at"),
            phoneNumberVerifiedAt: try row.optionalDate(prefix + "phone_number_verified_at"),
            disabledAt: try row.optionalDate(prefix + "disabled_at"),
            externalID: try row.optionalText(prefix + "external_id"),
            metadata: try row.optionalText(prefix + "metadata")
        )
    }
}

extension PasskeyCredential {
    /// Reads a passkey from a `credentials` row.
    public init(stored row: some StoredRow) throws {
        let aaguidText = try row.text("aaguid")
        guard let aaguid = AAGUID(uuidString: aaguidText) else {
            throw row.unreadable("credentials.aaguid is not a UUID: \(aaguidText.prefix(40))")
        }
        let storedCount = try row.integer("sign_count")
        guard let signCount = UInt32(exactly: storedCount) else {
            throw row.unreadable("credentials.sign_count is out of range: \(storedCount)")
        }
        self.init(
            credentialID: try row.bytes("id"),
            userID: UserID(rawValue: try row.text("user_id")),
            publicKey: try row.bytes("public_key"),
            algorithm: COSEAlgorithmIdentifier(rawValue: try row.integer("algorithm")),
            signCount: signCount,
            isBackupEligible: try row.bool("backup_eligible"),
            isBackedUp: try row.bool("backed_up"),
            isUserVerified: try row.bool("user_verified"),
            transports: try row.strings("transports"),
            aaguid: aaguid,
            attestationFormat: try row.text("attestation_format"),
            isAttestationTrusted: try row.bool("attestation_trusted"),
            attestationMetadata: try row.optionalText("metadata_entry").map { entry in
                MetadataMatch(entry: entry, description: try row.optionalText("metadata_description"), status: try row.optionalText("metadata_status"))
            },
            relyingPartyID: try row.text("relying_party_id"),
            name: try row.optionalText("name"),
            createdAt: try row.date("created_at"),
            lastUsedAt: try row.optionalDate("last_used_at"),
            hasSignCountRegressed: try row.bool("sign_count_regressed"),
            recordID: try row.text("record_id"),
            isDisabled: try row.bool("disabled"),
            isDisabledByAdministrator: try row.bool("disabled_by_admin"),
            origin: try row.optionalText("origin")
        )
    }
}

extension RefreshTokenRecord {
    /// Reads a refresh token from a `refresh_tokens` row.
    public init(stored row: some StoredRow) throws {
        self.init(
            tokenHash: try row.bytes("token_hash"),
            familyID: try row.text("family_id"),
            userID: UserID(rawValue: try row.text("user_id")),
            clientID: try row.text("client_id"),
            scopes: try row.strings("scopes"),
            audience: try row.text("audience"),
            authenticatedAt: try row.date("authenticated_at"),
            userVerified: try row.bool("user_verified"),
            isPasswordSignIn: try row.bool("password_sign_in"),
            issuedAt: try row.date("issued_at"),
            expiresAt: try row.date("expires_at")
        )
    }
}

extension BrowserSession {
    /// Reads a session from a `browser_sessions` row.
    public init(stored row: some StoredRow) throws {
        self.init(
            tokenHash: try row.bytes("token_hash"), userID: UserID(rawValue: try row.text("user_id")),
            authenticatedAt: try row.date("authenticated_at"), userVerified: try row.bool("user_verified"),
            expiresAt: try row.date("expires_at"), credentialID: try row.optionalBytes("credential_id"),
            method: try row.enumeration(SignInMethod.self, "method"), isRecovery: try row.bool("recovery")
        )
    }
}

extension PasswordRecord {
    /// Reads a password from a `passwords` row.
    public init(stored row: some StoredRow) throws {
        self.init(
            userID: UserID(rawValue: try row.text("user_id")),
            hash: try row.optionalText("hash"),
            createdAt: try row.date("created_at"),
            lastUsedAt: try row.optionalDate("last_used_at"),
            removedAt: try row.optionalDate("removed_at")
        )
    }
}

extension AuthorizationCode {
    /// Reads a code from an `authorization_codes` row.
    public init(stored row: some StoredRow) throws {
        self.init(
            codeHash: try row.bytes("code_hash"),
            clientID: try row.text("client_id"),
            userID: UserID(rawValue: try row.text("user_id")),
            redirectURI: try row.text("redirect_uri"),
            codeChallenge: try row.text("code_challenge"),
            scopes: try row.strings("scopes"),
            audience: try row.text("audience"),
            nonce: try row.optionalText("nonce"),
            sessionID: try row.text("session_id"),
            authenticatedAt: try row.date("authenticated_at"),
            userVerified: try row.bool("user_verified"),
            expiresAt: try row.date("expires_at"),
            credentialID: try row.optionalBytes("credential_id"),
            method: try row.enumeration(SignInMethod.self, "method"),
            browserSession: try row.optionalBytes("browser_session"),
            acr: try row.optionalText("acr")
        )
    }
}

extension InteractiveFlow {
    /// Reads a flow from an `interactive_flows` row.
    public init(stored row: some StoredRow) throws {
        self.init(
            id: try row.text("id"), kind: try row.enumeration(Kind.self, "kind"), isBrowser: try row.bool("is_browser"),
            ceremonyID: try row.text("ceremony_id"), options: try row.bytes("options"),
            userID: try row.optionalText("user_id").map(UserID.init(rawValue:)), csrfToken: try row.optionalText("csrf_token"),
            requestURL: try row.text("request_url"), issuedAt: try row.date("issued_at"), expiresAt: try row.date("expires_at"),
            completedAt: try row.optionalDate("completed_at")
        )
    }
}

extension AuditEvent {
    /// Reads an event from an `audit_events` row, whose columns may carry a prefix (`e_` in
    /// joins).
    public init(stored row: some StoredRow, prefix: String = "") throws {
        self.init(
            time: try row.date(prefix + "time"), kind: try row.enumeration(Kind.self, prefix + "kind"),
            userID: try row.optionalText(prefix + "user_id").map(UserID.init(rawValue:)),
            clientID: try row.optionalText(prefix + "client_id"), credentialID: try row.optionalText(prefix + "credential_id"),
            detail: try row.text(prefix + "detail"), actor: try row.optionalText(prefix + "actor"),
            origin: RequestOrigin.stored(
                ip: try row.optionalText(prefix + "ip"), userAgent: try row.optionalText(prefix + "user_agent"), face: try row.optionalText(prefix + "face")
            )
        )
    }

    /// The `audit_events` columns under an `e_` prefix, for joins (the table aliased `e`).
    public static let prefixedColumns = ["id", "time", "kind", "user_id", "client_id", "credential_id", "detail", "actor", "ip", "user_agent", "face"]
        .map { "e.\($0) AS e_\($0)" }.joined(separator: ", ")
}

extension LoggedEvent {
    /// Reads an event with its position from an `audit_events` row (columns prefixed as
    /// for ``AuditEvent/init(stored:prefix:)``).
    public init(stored row: some StoredRow, prefix: String = "") throws {
        self.init(id: try row.integer(prefix + "id"), event: try AuditEvent(stored: row, prefix: prefix))
    }
}

extension WebhookDelivery {
    /// Reads a delivery from a `webhook_deliveries` row joined with its event's columns
    /// under the `e_` prefix.
    public init(stored row: some StoredRow) throws {
        self.init(
            position: try row.integer("position"), id: try row.text("id"), endpointID: try row.text("endpoint_id"),
            event: try LoggedEvent(stored: row, prefix: "e_"), delivery: try DeliveryAttempts(stored: row),
            createdAt: try row.date("created_at"), deliveredAt: try row.optionalDate("delivered_at")
        )
    }
}

extension BackchannelLogout {
    /// Reads a notice from a `backchannel_logouts` row.
    public init(stored row: some StoredRow) throws {
        self.init(
            position: try row.integer("position"), clientID: try row.text("client_id"), sessionID: try row.text("session_id"),
            userID: UserID(rawValue: try row.text("user_id")), delivery: try DeliveryAttempts(stored: row), createdAt: try row.date("created_at")
        )
    }
}

extension DeliveryAttempts {
    /// Reads the attempt columns both outboxes share.
    init(stored row: some StoredRow) throws {
        self.init(
            status: try row.enumeration(WebhookDeliveryStatus.self, "status"), attempts: Int(try row.integer("attempts")),
            nextAttemptAt: try row.date("next_attempt_at"), lastStatus: try row.optionalText("last_status").flatMap { Int($0) },
            lastError: try row.optionalText("last_error")
        )
    }
}

extension WebhookAttemptOutcome {
    /// What the stores write for it: the status, when it is due again (a retry), the last
    /// answer and error.
    public var stored: (status: WebhookDeliveryStatus, retryAt: Date?, lastStatus: Int?, error: String?) {
        switch self {
        case .delivered(let status): (.delivered, nil, status, nil)
        case .retry(let status, let error, let retryAt): (.pending, retryAt, status, String(error.prefix(500)))
        case .failed(let status, let error): (.failed, nil, status, String(error.prefix(500)))
        }
    }
}

extension Consent {
    /// Reads a consent from a `consents` row.
    public init(stored row: some StoredRow) throws {
        self.init(
            userID: UserID(rawValue: try row.text("user_id")), clientID: try row.text("client_id"), scopes: try row.strings("scopes"),
            grantedAt: try row.date("granted_at")
        )
    }
}

extension CredentialShape {
    /// Reads allow-list shapes from rows of `user_id`, `id_length` and `transports`, one
    /// list per run of rows of one user.
    public static func grouped(_ rows: [some StoredRow]) throws -> [[CredentialShape]] {
        var lists: [[CredentialShape]] = []
        var current: String?
        for row in rows {
            let user = try row.text("user_id")
            if user != current {
                lists.append([])
                current = user
            }
            lists[lists.count - 1].append(CredentialShape(idLength: Int(try row.integer("id_length")), transports: try row.strings("transports")))
        }
        return lists
    }
}

extension OutboxMail {
    /// Reads a message from a `mail_outbox` row.
    public init(stored row: some StoredRow) throws {
        self.init(
            id: try row.text("id"), kind: try row.enumeration(MailKind.self, "kind"), recipient: try row.text("recipient"),
            recipientName: try row.optionalText("recipient_name"), subject: try row.text("subject"), text: try row.text("text_body"),
            html: try row.text("html_body"), createdAt: try row.date("created_at"), attempts: Int(try row.integer("attempts"))
        )
    }
}

extension OutboxMailState {
    /// Reads a message's state from a `mail_outbox` row.
    public init(stored row: some StoredRow) throws {
        self.init(status: try row.text("status"), attempts: Int(try row.integer("attempts")), lastError: try row.optionalText("last_error"))
    }
}

extension OneTimeCode {
    /// Reads a code from a `one_time_codes` row.
    public init(stored row: some StoredRow) throws {
        self.init(
            userID: UserID(rawValue: try row.text("user_id")), purpose: try row.enumeration(OneTimeCodePurpose.self, "purpose"),
            hash: try row.bytes("code_hash"), address: try row.text("address"), createdAt: try row.date("created_at"),
            expiresAt: try row.date("expires_at"), attempts: Int(try row.integer("attempts")), issued: Int(try row.integer("issued"))
        )
    }
}

extension RecoveryCode {
    /// Reads a saved recovery code from a `recovery_codes` row.
    public init(stored row: some StoredRow) throws {
        self.init(
            id: try row.text("id"), userID: UserID(rawValue: try row.text("user_id")), hash: try row.text("code_hash"),
            createdAt: try row.date("created_at"), usedAt: try row.optionalDate("used_at"), lookupKey: try row.optionalBytes("lookup_key")
        )
    }
}

extension MailOutcome {
    /// The status, error and next due time an outcome stores (`due` is meaningful for a retry).
    public var stored: (status: String, error: String?, due: Date?) {
        switch self {
        case .sent: return ("sent", nil, nil)
        case .retry(let at, let error): return ("pending", String(error.prefix(500)), at)
        case .abandoned(let error): return ("failed", String(error.prefix(500)), nil)
        }
    }
}

extension AdminAPIKey {
    /// Reads a key from an `admin_keys` row (scopes comma-separated).
    public init(stored row: some StoredRow) throws {
        let scopesText = try row.text("scopes")
        let scopes = scopesText.split(separator: ",").compactMap { AdminScope(String($0)) }
        self.init(
            id: try row.text("id"), name: try row.text("name"), scopes: Set(scopes), keyHash: try row.bytes("key_hash"),
            createdAt: try row.date("created_at"), lastUsedAt: try row.optionalDate("last_used_at"), revokedAt: try row.optionalDate("revoked_at")
        )
    }

    /// The scopes as stored: comma-separated, sorted.
    public var storedScopes: String { scopes.sorted().map(\.description).joined(separator: ",") }
}

extension SessionSummary {
    /// Reads a session from a row of the sessions query every store runs: `kind`
    /// (`tokens` or `browser`), `family_id` or `token_hash`, `client_id`, `method`,
    /// `credential_id`, `started_at`, `expires_at`, `revoked_at`.
    public init(stored row: some StoredRow) throws {
        let kind = try row.enumeration(Kind.self, "kind")
        let id: String
        switch kind {
        case .tokens: id = try row.text("family_id")
        case .browser: id = Self.browserSessionID(tokenHash: try row.bytes("token_hash"))
        }
        self.init(
            id: id, kind: kind, clientID: try row.optionalText("client_id"), method: try row.enumeration(SignInMethod.self, "method"),
            credentialID: try row.optionalBytes("credential_id"), startedAt: try row.date("started_at"), expiresAt: try row.optionalDate("expires_at"),
            revokedAt: try row.optionalDate("revoked_at")
        )
    }
}

extension SigningKeyRecord {
    /// Reads a key from a `signing_keys` row.
    public init(stored row: some StoredRow) throws {
        self.init(
            keyID: try row.text("key_id"), privateKey: try row.bytes("private_key"), createdAt: try row.date("created_at"),
            retiredAt: try row.optionalDate("retired_at"), algorithm: try row.enumeration(SigningAlgorithm.self, "algorithm")
        )
    }
}
