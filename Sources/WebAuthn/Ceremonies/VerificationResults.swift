public import CBOR

/// A registration that passed every check of WebAuthn L3 §7.1. Only
/// ``WebAuthnVerifier`` creates one.
public struct VerifiedRegistration: Sendable {
    /// The credential ID from the attested credential data.
    public let credentialID: [UInt8]
    public let publicKey: CredentialPublicKey
    /// The initial signature counter.
    public let signCount: UInt32
    /// The authenticator model.
    public let aaguid: AAGUID
    /// The authenticator data flags.
    public let flags: AuthenticatorFlags
    /// Transports the client reported.
    public let transports: [String]
    /// Whether the client reported the credential as discoverable (`credProps.rk`).
    public let isDiscoverable: Bool?
    /// The attestation outcome.
    public let attestation: AttestationResult
    /// The authenticator model's FIDO metadata entry, when the policy has a BLOB naming it.
    public let metadata: MetadataMatch?
    /// The RP ID whose hash the authenticator data carried.
    public let relyingPartyID: String
    /// The configured origin the client data matched.
    public let origin: String
    /// The top-level origin, for cross-origin ceremonies.
    public let topOrigin: String?
    /// Authenticator extension outputs.
    public let authenticatorExtensions: CBORNode?
    /// The attestation object as received, for storage and later re-verification.
    public let attestationObject: [UInt8]
    /// The clientDataJSON as received.
    public let clientDataJSON: [UInt8]
}

/// How an assertion's signature counter compares with the stored one.
public enum SignCountStatus: Sendable, Hashable {
    /// Both counters are zero: the authenticator keeps no counter (synced passkeys).
    case notSupported
    /// The counter increased.
    case increased
    /// The counter did not increase: a possible cloned authenticator. Reported only under
    /// ``SignCountPolicy/acceptAndFlag``.
    case regressed(stored: UInt32, received: UInt32)
}

/// An assertion that passed every check of WebAuthn L3 §7.2. Only ``WebAuthnVerifier``
/// creates one.
public struct VerifiedAuthentication: Sendable {
    /// The credential that signed.
    public let credentialID: [UInt8]
    /// The user handle the authenticator returned, if any.
    public let userHandle: [UInt8]?
    /// The counter to store.
    public let signCount: UInt32
    /// How the counter compared with the stored one.
    public let signCountStatus: SignCountStatus
    /// The authenticator data flags (UV, BE, BS to record).
    public let flags: AuthenticatorFlags
    /// The RP ID whose hash the authenticator data carried.
    public let relyingPartyID: String
    /// The configured origin the client data matched.
    public let origin: String
    /// The top-level origin, for cross-origin ceremonies.
    public let topOrigin: String?
    /// Authenticator extension outputs.
    public let authenticatorExtensions: CBORNode?
}
