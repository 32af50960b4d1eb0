/// `PublicKeyCredentialCreationOptionsJSON` (WebAuthn L3 §5.1.6): registration options in
/// the shape that browsers' `PublicKeyCredential.parseCreationOptionsFromJSON()` and
/// Android Credential Manager's `CreatePublicKeyCredentialRequest` accept.
///
/// Optional members that are `nil` are left out of the JSON rather than written as `null`,
/// which WebIDL would otherwise coerce (a `null` timeout becomes 0).
public struct PublicKeyCredentialCreationOptionsJSON: Codable, Sendable, Hashable {
    /// The relying party.
    public var rp: RelyingPartyEntity
    /// The user account.
    public var user: UserEntity
    /// The challenge, base64url.
    public var challenge: Base64URLBytes
    /// The acceptable credential algorithms, most preferred first.
    public var pubKeyCredParams: [CredentialParameters]
    /// The ceremony timeout in milliseconds.
    public var timeout: UInt32?
    /// Credentials the user already has, which the authenticator must not re-create.
    public var excludeCredentials: [CredentialDescriptor]?
    /// Authenticator requirements.
    public var authenticatorSelection: AuthenticatorSelection?
    /// Hints such as `security-key`, `client-device` or `hybrid`.
    public var hints: [String]?
    /// `none`, `indirect`, `direct` or `enterprise`.
    public var attestation: String?
    /// Preferred attestation statement formats.
    public var attestationFormats: [String]?
    /// Client extension inputs.
    public var extensions: ExtensionInputs?

    public init(
        rp: RelyingPartyEntity,
        user: UserEntity,
        challenge: Base64URLBytes,
        pubKeyCredParams: [CredentialParameters],
        timeout: UInt32? = nil,
        excludeCredentials: [CredentialDescriptor]? = nil,
        authenticatorSelection: AuthenticatorSelection? = nil,
        hints: [String]? = nil,
        attestation: String? = nil,
        attestationFormats: [String]? = nil,
        extensions: ExtensionInputs? = nil
    ) {
        self.rp = rp
        self.user = user
        self.challenge = challenge
        self.pubKeyCredParams = pubKeyCredParams
        self.timeout = timeout
        self.excludeCredentials = excludeCredentials
        self.authenticatorSelection = authenticatorSelection
        self.hints = hints
        self.attestation = attestation
        self.attestationFormats = attestationFormats
        self.extensions = extensions
    }

    /// `PublicKeyCredentialRpEntity`.
    public struct RelyingPartyEntity: Codable, Sendable, Hashable {
        /// The RP ID; browsers default it to the caller's effective domain when absent.
        public var id: String?
        /// A human-palatable name.
        public var name: String

        public init(id: String?, name: String) {
            self.id = id
            self.name = name
        }
    }

    /// `PublicKeyCredentialUserEntityJSON`.
    public struct UserEntity: Codable, Sendable, Hashable {
        /// The user handle: opaque, at most 64 bytes, never personal data.
        public var id: Base64URLBytes
        /// The account identifier shown in account pickers (an email, phone or username).
        public var name: String
        /// A friendly name; may be empty.
        public var displayName: String

        public init(id: Base64URLBytes, name: String, displayName: String) {
            self.id = id
            self.name = name
            self.displayName = displayName
        }
    }

    /// `PublicKeyCredentialParameters`.
    public struct CredentialParameters: Codable, Sendable, Hashable {
        /// Always `public-key`.
        public var type: String
        /// The COSE algorithm.
        public var alg: COSEAlgorithmIdentifier

        /// Creates a `public-key` parameter for `alg`.
        public init(alg: COSEAlgorithmIdentifier) {
            self.type = "public-key"
            self.alg = alg
        }
    }

    /// `AuthenticatorSelectionCriteria`.
    public struct AuthenticatorSelection: Codable, Sendable, Hashable {
        /// `platform` or `cross-platform`.
        public var authenticatorAttachment: String?
        /// `discouraged`, `preferred` or `required`.
        public var residentKey: String?
        /// The WebAuthn L1 form of `residentKey: required`, kept for older clients.
        public var requireResidentKey: Bool?
        /// `required`, `preferred` or `discouraged`.
        public var userVerification: String?

        public init(authenticatorAttachment: String? = nil, residentKey: String? = nil, requireResidentKey: Bool? = nil, userVerification: String? = nil) {
            self.authenticatorAttachment = authenticatorAttachment
            self.residentKey = residentKey
            self.requireResidentKey = requireResidentKey
            self.userVerification = userVerification
        }
    }
}

/// `PublicKeyCredentialDescriptorJSON`: names a credential in `allowCredentials` or
/// `excludeCredentials`.
public struct CredentialDescriptor: Codable, Sendable, Hashable {
    /// Always `public-key`.
    public var type: String
    /// The credential ID.
    public var id: Base64URLBytes
    /// Transport hints such as `internal`, `hybrid`, `usb`, `nfc`, `ble`.
    public var transports: [String]?

    /// Creates a `public-key` descriptor.
    public init(id: Base64URLBytes, transports: [String]? = nil) {
        self.type = "public-key"
        self.id = id
        self.transports = transports
    }
}

/// Client extension inputs in options: `credProps`, which Latchkey asks for itself, and those
/// an application asks for through the Authentication API (PRF, largeBlob, credProtect),
/// which the server passes to the client untouched.
public struct ExtensionInputs: Codable, Sendable, Hashable {
    /// Ask the client to report whether the credential is discoverable.
    public var credProps: Bool?
    /// The PRF extension: secrets derived on the authenticator, for the app alone.
    public var prf: PRFInputs?
    /// The largeBlob extension.
    public var largeBlob: LargeBlobInputs?
    /// The credProtect extension's policy (`userVerificationOptional`,
    /// `userVerificationOptionalWithCredentialIDList`, `userVerificationRequired`), at creation.
    public var credentialProtectionPolicy: String?
    /// Whether the client must refuse an authenticator that cannot apply that policy.
    public var enforceCredentialProtectionPolicy: Bool?

    public init(
        credProps: Bool? = nil, prf: PRFInputs? = nil, largeBlob: LargeBlobInputs? = nil, credentialProtectionPolicy: String? = nil,
        enforceCredentialProtectionPolicy: Bool? = nil
    ) {
        self.credProps = credProps
        self.prf = prf
        self.largeBlob = largeBlob
        self.credentialProtectionPolicy = credentialProtectionPolicy
        self.enforceCredentialProtectionPolicy = enforceCredentialProtectionPolicy
    }
}
