/// The body of `POST /me/v1/authentication-methods`: start enrolling a passkey.
public struct CreateAuthenticationMethodRequest: Codable, Sendable, Hashable {
    /// Always `passkey`.
    public var type: String
    /// The database connection, when the user has several.
    public var connection: String?
    /// The linked identity to enroll for.
    public var identityUserID: String?
    /// `conditional` for an automatic passkey upgrade right after a password sign-in.
    public var mediation: String?

    /// Sets `type` to `passkey`, the only type this endpoint enrolls.
    public init(connection: String? = nil, identityUserID: String? = nil, mediation: String? = nil) {
        self.type = "passkey"
        self.connection = connection
        self.identityUserID = identityUserID
        self.mediation = mediation
    }

    private enum CodingKeys: String, CodingKey {
        case type
        case connection
        case identityUserID = "identity_user_id"
        case mediation
    }
}

/// The body of `POST /me/v1/authentication-methods/passkey%7Cnew/verify`: finish enrolling.
public struct VerifyAuthenticationMethodRequest: Codable, Sendable, Hashable {
    /// The session from the enrollment challenge.
    public var authSession: String?
    /// The authenticator's registration.
    public var authnResponse: RegistrationResponseJSON?

    public init(authSession: String?, authnResponse: RegistrationResponseJSON?) {
        self.authSession = authSession
        self.authnResponse = authnResponse
    }

    private enum CodingKeys: String, CodingKey {
        case authSession = "auth_session"
        case authnResponse = "authn_response"
    }
}

/// The body of `PATCH /me/v1/authentication-methods/{id}`.
public struct UpdateAuthenticationMethodRequest: Codable, Sendable, Hashable {
    /// The new friendly name, unique among the user's passkeys.
    public var name: String?

    public init(name: String?) { self.name = name }

    private enum CodingKeys: String, CodingKey {
        case name
    }
}

/// One of the user's authentication methods, as My Account lists it. Passkeys have
/// `type == "passkey"` and an ``id`` of the form `passkey|<base64url credential ID>`.
///
/// Only ``id`` and ``type`` are required, so that methods of other types still decode.
/// Timestamps stay in their wire form (ISO 8601, for example `2025-01-15T10:30:00.000Z`).
public struct AuthenticationMethod: Codable, Sendable, Hashable {
    /// The method ID, for example `passkey|dGVzdA`.
    public var id: String
    /// `passkey` for passkeys.
    public var type: String
    /// The friendly name.
    public var name: String?
    /// The passkey provider named by the AAGUID, for example `iCloud Keychain`.
    public var providerName: String?
    /// `multi_device` for a synced passkey, `single_device` for a device-bound one.
    public var credentialDeviceType: String?
    /// Whether the passkey is currently backed up (the BS flag).
    public var credentialBackedUp: Bool?
    /// The user ID of the identity the method belongs to.
    public var identityUserID: String?
    /// The credential ID, base64url.
    public var keyID: String?
    /// The COSE public key, base64url.
    public var publicKey: String?
    /// The transports the authenticator reported.
    public var transports: [String]?
    /// The user agent that enrolled the passkey.
    public var userAgent: String?
    /// The WebAuthn user handle, base64url.
    public var userHandle: String?
    /// The authenticator model, as a UUID.
    public var aaguid: String?
    /// The RP ID the credential is scoped to.
    public var relyingPartyID: String?
    /// What the method may be used for, for example `["primary"]`.
    public var usage: [String]?
    /// When the method was enrolled.
    public var createdAt: String?
    /// When the method was last used to sign in.
    public var lastAuthAt: String?
    /// Whether its signature counter ever went backwards (a possible clone).
    public var signCountRegressed: Bool?
    /// The attestation format it was registered with.
    public var attestationFormat: String?
    /// Whether its attestation chained to a trust anchor.
    public var attestationTrusted: Bool?

    /// Whether this is a synced (multi-device) passkey.
    public var isSynced: Bool { credentialDeviceType == "multi_device" }

    public init(
        id: String,
        type: String,
        name: String? = nil,
        providerName: String? = nil,
        credentialDeviceType: String? = nil,
        credentialBackedUp: Bool? = nil,
        identityUserID: String? = nil,
        keyID: String? = nil,
        publicKey: String? = nil,
        transports: [String]? = nil,
        userAgent: String? = nil,
        userHandle: String? = nil,
        aaguid: String? = nil,
        relyingPartyID: String? = nil,
        usage: [String]? = nil,
        createdAt: String? = nil,
        lastAuthAt: String? = nil,
        signCountRegressed: Bool? = nil,
        attestationFormat: String? = nil,
        attestationTrusted: Bool? = nil
    ) {
        self.signCountRegressed = signCountRegressed
        self.attestationFormat = attestationFormat
        self.attestationTrusted = attestationTrusted
        self.id = id
        self.type = type
        self.name = name
        self.providerName = providerName
        self.credentialDeviceType = credentialDeviceType
        self.credentialBackedUp = credentialBackedUp
        self.identityUserID = identityUserID
        self.keyID = keyID
        self.publicKey = publicKey
        self.transports = transports
        self.userAgent = userAgent
        self.userHandle = userHandle
        self.aaguid = aaguid
        self.relyingPartyID = relyingPartyID
        self.usage = usage
        self.createdAt = createdAt
        self.lastAuthAt = lastAuthAt
    }

    private enum CodingKeys: String, CodingKey {
        case id
        case type
        case name
        case providerName = "provider_name"
        case credentialDeviceType = "credential_device_type"
        case credentialBackedUp = "credential_backed_up"
        case identityUserID = "identity_user_id"
        case keyID = "key_id"
        case publicKey = "public_key"
        case transports
        case userAgent = "user_agent"
        case userHandle = "user_handle"
        case aaguid
        case relyingPartyID = "relying_party_id"
        case usage
        case createdAt = "created_at"
        case lastAuthAt = "last_auth_at"
        case signCountRegressed = "sign_count_regressed"
        case attestationFormat = "attestation_format"
        case attestationTrusted = "attestation_trusted"
    }
}

/// The answer of `GET /me/v1/authentication-methods`.
public struct AuthenticationMethodList: Codable, Sendable, Hashable {
    /// The user's methods.
    public var authenticationMethods: [AuthenticationMethod]

    public init(authenticationMethods: [AuthenticationMethod]) {
        self.authenticationMethods = authenticationMethods
    }

    private enum CodingKeys: String, CodingKey {
        case authenticationMethods = "authentication_methods"
    }
}

/// An account as credential managers need it (`GET /me/v1/signals`).
public struct AccountSignals: Codable, Sendable, Hashable {
    /// The passkeys' relying party ID.
    public var rpID: String
    /// The WebAuthn user handle, base64url: `userID` in the signal and report methods.
    public var userID: String
    /// Every passkey the account accepts, base64url: what
    /// `reportAllAcceptedPublicKeyCredentials` and `signalAllAcceptedCredentials` take.
    public var allAcceptedCredentialIDs: [String]
    /// The account name (WebAuthn `user.name`).
    public var name: String
    public var displayName: String
    /// Set once the account has no password any more: what
    /// `reportUnusedPasswordCredential(domain:userName:)` takes.
    public var unusedPassword: UnusedPassword?

    /// A password the account no longer accepts.
    public struct UnusedPassword: Codable, Sendable, Hashable {
        /// The domain it was saved for.
        public var domain: String
        /// The user name it was saved under.
        public var username: String

        public init(domain: String, username: String) {
            self.domain = domain
            self.username = username
        }
    }

    public init(rpID: String, userID: String, allAcceptedCredentialIDs: [String], name: String, displayName: String, unusedPassword: UnusedPassword? = nil) {
        self.rpID = rpID
        self.userID = userID
        self.allAcceptedCredentialIDs = allAcceptedCredentialIDs
        self.name = name
        self.displayName = displayName
        self.unusedPassword = unusedPassword
    }

    /// Written by hand so that `unused_password` is `null` rather than absent: the contract
    /// names the member either way.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(rpID, forKey: .rpID)
        try container.encode(userID, forKey: .userID)
        try container.encode(allAcceptedCredentialIDs, forKey: .allAcceptedCredentialIDs)
        try container.encode(name, forKey: .name)
        try container.encode(displayName, forKey: .displayName)
        try container.encode(unusedPassword, forKey: .unusedPassword)
    }

    private enum CodingKeys: String, CodingKey {
        case rpID = "rp_id"
        case userID = "user_id"
        case allAcceptedCredentialIDs = "all_accepted_credential_ids"
        case name
        case displayName = "display_name"
        case unusedPassword = "unused_password"
    }
}

/// A response that changed what credential managers hold: its `signals`.
public struct SignalsResponse: Codable, Sendable, Hashable {
    /// The account's signals after the change.
    public var signals: AccountSignals

    public init(signals: AccountSignals) { self.signals = signals }
}

/// The body of `PATCH /me/v1/profile`: a new display name, or a new email address (which a
/// code sent to it must confirm).
public struct UpdateProfileRequest: Codable, Sendable, Hashable {
    /// The new display name; empty clears it.
    public var name: String?
    /// The new email address.
    public var email: String?

    public init(name: String? = nil, email: String? = nil) {
        self.name = name
        self.email = email
    }
}

/// `PATCH /me/v1/profile {"email"}`'s answer (`202`): the address a confirmation code was
/// sent to; the account's address changes when the code comes back.
public struct PendingEmailResponse: Codable, Sendable, Hashable {
    /// The new address, not yet confirmed.
    public var pendingEmail: String

    public init(pendingEmail: String) { self.pendingEmail = pendingEmail }

    private enum CodingKeys: String, CodingKey {
        case pendingEmail = "pending_email"
    }
}

/// A body with one code: `POST /me/v1/email-verification/verify`.
public struct VerificationCodeRequest: Codable, Sendable, Hashable {
    /// The code from the message; required.
    public var code: String?

    public init(code: String?) { self.code = code }
}

/// `POST /me/v1/email-verification/verify`'s answer.
public struct EmailVerifiedResponse: Codable, Sendable, Hashable {
    /// The account's address, now verified (a pending change has taken effect).
    public var email: String
    /// Whether it is verified.
    public var emailVerified: Bool
    /// The account's signals, so that the app can tell the credential manager a new name.
    public var signals: AccountSignals

    public init(email: String, emailVerified: Bool, signals: AccountSignals) {
        self.email = email
        self.emailVerified = emailVerified
        self.signals = signals
    }

    private enum CodingKeys: String, CodingKey {
        case email
        case emailVerified = "email_verified"
        case signals
    }
}

/// `GET /me/v1/recovery-codes`' answer: how many saved codes are left.
public struct RecoveryCodeStatus: Codable, Sendable, Hashable {
    /// The unused codes.
    public var remaining: Int
    /// When the set was made (RFC 3339), when there is one.
    public var createdAt: String?

    public init(remaining: Int, createdAt: String?) {
        self.remaining = remaining
        self.createdAt = createdAt
    }

    private enum CodingKeys: String, CodingKey {
        case remaining
        case createdAt = "created_at"
    }
}

/// `POST /me/v1/recovery-codes`' answer (`201`): a new set, shown once; the old set is void.
public struct RecoveryCodesResponse: Codable, Sendable, Hashable {
    public var recoveryCodes: [String]

    public init(recoveryCodes: [String]) { self.recoveryCodes = recoveryCodes }

    private enum CodingKeys: String, CodingKey {
        case recoveryCodes = "recovery_codes"
    }
}
