public import Foundation

/// A certificate its issuer has revoked, named by the issuer and serial number as in a CRL.
public struct RevokedCertificate: Sendable, Hashable {
    /// The DER bytes of the issuer's name.
    public let issuerName: [UInt8]
    /// The serial number's content bytes.
    public let serialNumber: [UInt8]

    /// Names a revoked certificate.
    public init(issuerName: [UInt8], serialNumber: [UInt8]) {
        self.issuerName = issuerName
        self.serialNumber = serialNumber
    }

    /// Names `certificate` as revoked.
    public init(_ certificate: AttestationCertificate) {
        self.init(issuerName: certificate.issuer.derBytes, serialNumber: certificate.serialNumber)
    }
}

/// When an attestation that does not chain to a trust anchor is acceptable.
public enum AttestationRequirement: Sendable, Hashable {
    /// Accept any valid attestation; the result says whether it is trusted.
    case any
    /// Reject an untrusted chain when anchors are configured for its format, and accept
    /// (flagged as untrusted) formats without anchors. The default.
    case trustedWhenAnchorsConfigured
    /// Reject every attestation that does not chain to an anchor, including `none` and self.
    case trusted
}

/// Policy for `android-safetynet` attestations. `basicIntegrity` must always be true: a
/// device that fails it is rooted or tampered with, and nothing it attests can be trusted.
public struct SafetyNetPolicy: Sendable, Hashable {
    /// Require `ctsProfileMatch` to be true. On by default.
    public var requiresCTSProfileMatch: Bool
    /// The oldest a `timestampMs` may be at verification time; `nil` skips the check.
    ///
    /// The timestamp is always required to fall within the signing certificate's
    /// validity. Freshness against the clock only makes sense at ceremony time; it is
    /// meaningless when re-verifying a stored or recorded response.
    public var maximumAge: TimeInterval?
    /// How far in the future `timestampMs` may be when ``maximumAge`` is set. Zero by
    /// default: the timestamp comes from Google's servers before the response reaches the
    /// relying party, so a later one means a replayed or forged response, or a broken clock.
    public var allowedClockSkew: TimeInterval

    public init(requiresCTSProfileMatch: Bool = true, maximumAge: TimeInterval? = 60, allowedClockSkew: TimeInterval = 0) {
        self.requiresCTSProfileMatch = requiresCTSProfileMatch
        self.maximumAge = maximumAge
        self.allowedClockSkew = allowedClockSkew
    }
}

/// Everything attestation verification needs from the relying party: anchors per format,
/// revocation facts, and how strict to be.
public struct AttestationPolicy: Sendable {
    /// Trust anchors per attestation format. Only these end a certificate path.
    public var trustAnchors: [AttestationFormat: [AttestationCertificate]]
    /// Certificates known to be revoked (from CRLs the caller fetched and verified).
    public var revokedCertificates: Set<RevokedCertificate>
    /// Revocation lists as published. One counts for a certificate when the issuer the
    /// certificate path found for it signed the list.
    public var revocationLists: [CertificateRevocationList]
    /// When an untrusted attestation is rejected.
    public var requirement: AttestationRequirement
    /// `android-safetynet` rules.
    public var safetyNet: SafetyNetPolicy
    /// For `android-key`: use only the TEE-enforced authorization list (hardware-backed
    /// keys only) instead of the union of TEE- and software-enforced lists.
    public var androidKeyRequiresTEEEnforced: Bool
    /// A verified FIDO metadata BLOB. The entry for the authenticator's model adds its
    /// `attestationRootCertificates` as anchors, whatever the format, and its latest status
    /// is checked against ``refusedStatuses``.
    public var metadata: MetadataBLOB?
    /// Metadata statuses that refuse a registration from that model.
    public var refusedStatuses: Set<String>

    /// The statuses refused by default: the model or its keys are known to be compromised.
    public static let defaultRefusedStatuses: Set<String> = [
        "REVOKED", "USER_KEY_REMOTE_COMPROMISE", "USER_KEY_PHYSICAL_COMPROMISE", "ATTESTATION_KEY_COMPROMISE",
    ]

    public init(
        trustAnchors: [AttestationFormat: [AttestationCertificate]] = [:],
        revokedCertificates: Set<RevokedCertificate> = [],
        revocationLists: [CertificateRevocationList] = [],
        requirement: AttestationRequirement = .trustedWhenAnchorsConfigured,
        safetyNet: SafetyNetPolicy = SafetyNetPolicy(),
        androidKeyRequiresTEEEnforced: Bool = false,
        metadata: MetadataBLOB? = nil,
        refusedStatuses: Set<String> = AttestationPolicy.defaultRefusedStatuses
    ) {
        self.trustAnchors = trustAnchors
        self.revokedCertificates = revokedCertificates
        self.revocationLists = revocationLists
        self.requirement = requirement
        self.safetyNet = safetyNet
        self.androidKeyRequiresTEEEnforced = androidKeyRequiresTEEEnforced
        self.metadata = metadata
        self.refusedStatuses = refusedStatuses
    }
}
