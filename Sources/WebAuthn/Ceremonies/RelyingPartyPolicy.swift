/// Whether a ceremony may run inside a cross-origin iframe (WebAuthn L3 §7.1 step 12,
/// §7.2 step 16).
public enum CrossOriginPolicy: Sendable, Hashable {
    /// `crossOrigin: true` and any `topOrigin` are rejected. The default.
    case forbidden
    /// Cross-origin ceremonies are accepted. When `topOrigins` is given, a `topOrigin` in
    /// client data must be one of them.
    case allowed(topOrigins: OriginPolicy?)
}

/// What to do when a signature counter does not increase (WebAuthn L3 §7.2 step 25).
public enum SignCountPolicy: Sendable, Hashable {
    /// Fail the ceremony with ``WebAuthnError/Code/signCountRegressed``.
    case reject
    /// Accept the assertion and report the regression in the result, for the caller to
    /// record and act on. Synced passkeys can legitimately move counters around.
    case acceptAndFlag
}

/// The user verification requirement of a ceremony (WebAuthn L3 §5.8.6).
public enum UserVerificationRequirement: String, Sendable, Hashable, Codable {
    /// The UV flag must be set.
    case required
    /// UV is requested but not enforced.
    case preferred
    /// UV is not requested.
    case discouraged
}

/// How a relying party verifies every ceremony: its RP IDs and origins, and the limits
/// and trust it applies. One policy serves every API face.
public struct RelyingPartyPolicy: Sendable {
    /// The RP IDs whose SHA-256 may appear in authenticator data. Usually one; several when
    /// a deployment accepts credentials scoped to more than one domain.
    public var relyingPartyIDs: [String]
    /// The origins ceremonies may come from.
    public var origins: OriginPolicy
    /// Whether cross-origin iframes may run ceremonies.
    public var crossOrigin: CrossOriginPolicy
    /// Key size and legacy algorithm limits.
    public var keyPolicy: KeyPolicy
    /// Attestation trust and strictness.
    public var attestation: AttestationPolicy
    /// What a counter that does not increase means.
    public var signCountPolicy: SignCountPolicy
    /// Which authenticators may register.
    public var registration: RegistrationPolicy

    public init(
        relyingPartyIDs: [String],
        origins: OriginPolicy,
        crossOrigin: CrossOriginPolicy = .forbidden,
        keyPolicy: KeyPolicy = KeyPolicy(),
        attestation: AttestationPolicy = AttestationPolicy(),
        signCountPolicy: SignCountPolicy = .reject,
        registration: RegistrationPolicy = RegistrationPolicy()
    ) {
        self.relyingPartyIDs = relyingPartyIDs
        self.origins = origins
        self.crossOrigin = crossOrigin
        self.keyPolicy = keyPolicy
        self.attestation = attestation
        self.signCountPolicy = signCountPolicy
        self.registration = registration
    }
}

/// What the relying party asked for when it started a registration.
public struct RegistrationCeremony: Sendable {
    /// The challenge sent in the creation options.
    public var challenge: [UInt8]
    /// The user verification requirement sent in the options.
    public var userVerification: UserVerificationRequirement
    /// The algorithms sent in `pubKeyCredParams`.
    public var allowedAlgorithms: [COSEAlgorithmIdentifier]
    /// Whether this was a conditional create (an automatic passkey upgrade), the only case
    /// in which the UP flag may be clear.
    public var isConditionalCreate: Bool
    /// Accepted clientDataJSON `type` values; `webauthn.create` unless the caller extends it.
    public var acceptedClientDataTypes: [String]

    public init(
        challenge: [UInt8],
        userVerification: UserVerificationRequirement = .preferred,
        allowedAlgorithms: [COSEAlgorithmIdentifier] = COSEAlgorithmIdentifier.supported,
        isConditionalCreate: Bool = false,
        acceptedClientDataTypes: [String] = ["webauthn.create"]
    ) {
        self.challenge = challenge
        self.userVerification = userVerification
        self.allowedAlgorithms = allowedAlgorithms
        self.isConditionalCreate = isConditionalCreate
        self.acceptedClientDataTypes = acceptedClientDataTypes
    }
}

/// What the relying party asked for when it started an authentication.
public struct AuthenticationCeremony: Sendable {
    /// The challenge sent in the request options.
    public var challenge: [UInt8]
    /// The user verification requirement sent in the options.
    public var userVerification: UserVerificationRequirement
    /// The credential IDs in `allowCredentials`; empty for a discoverable login, in which
    /// case the response must carry a user handle.
    public var allowedCredentialIDs: [[UInt8]]
    /// Whether UP must be set. Always true for WebAuthn logins; exposed for callers that
    /// verify other assertion types.
    public var requiresUserPresence: Bool
    /// Accepted clientDataJSON `type` values; `webauthn.get` unless the caller extends it.
    public var acceptedClientDataTypes: [String]

    public init(
        challenge: [UInt8],
        userVerification: UserVerificationRequirement = .preferred,
        allowedCredentialIDs: [[UInt8]] = [],
        requiresUserPresence: Bool = true,
        acceptedClientDataTypes: [String] = ["webauthn.get"]
    ) {
        self.challenge = challenge
        self.userVerification = userVerification
        self.allowedCredentialIDs = allowedCredentialIDs
        self.requiresUserPresence = requiresUserPresence
        self.acceptedClientDataTypes = acceptedClientDataTypes
    }
}

/// The stored state of a credential that an assertion is checked against.
public struct CredentialRecord: Sendable {
    public var credentialID: [UInt8]
    public var publicKey: CredentialPublicKey
    /// The last signature counter seen.
    public var signCount: UInt32
    /// BE as recorded at registration; `nil` when unknown, which skips the check.
    public var isBackupEligible: Bool?
    /// The user handle of the credential's owner; `nil` when unknown, which skips the
    /// ownership check.
    public var userHandle: [UInt8]?

    public init(credentialID: [UInt8], publicKey: CredentialPublicKey, signCount: UInt32, isBackupEligible: Bool? = nil, userHandle: [UInt8]? = nil) {
        self.credentialID = credentialID
        self.publicKey = publicKey
        self.signCount = signCount
        self.isBackupEligible = isBackupEligible
        self.userHandle = userHandle
    }
}
