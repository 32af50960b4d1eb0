public import WebAuthn

/// Which passkeys an application accepts and what its ceremonies ask for
/// (`clients[].passkeys`, each key falling back to the global `passkeys:`). It decides the
/// options every face sends (user verification, resident key, algorithms, hints,
/// attestation) and refuses, at registration and at every sign-in, a passkey it does not
/// accept: one registered through a laxer application does not sign in to a stricter one.
public struct PasskeyPolicy: Sendable, Hashable {
    /// Which kinds of passkey are accepted.
    public enum Acceptance: String, Sendable, Hashable, CaseIterable {
        /// Every passkey.
        case any
        /// Synced passkeys only: backup eligible (BE set).
        case synced
        /// Device-bound passkeys only: not backup eligible.
        case deviceBound = "device_bound"
        /// Passkeys whose attestation verified against a trust anchor or FIDO metadata.
        case attested
    }

    /// The `hints` values of WebAuthn Level 3 (§5.8.7), in the order a client prefers them.
    public static let knownHints: Set<String> = ["security-key", "client-device", "hybrid"]

    public var accept: Acceptance
    /// When set, only these authenticator models (`aaguids_allowed`).
    public var aaguidsAllowed: Set<AAGUID>?
    /// Authenticator models refused (`aaguids_blocked`).
    public var aaguidsBlocked: Set<AAGUID>
    /// Asked for in every ceremony and, when `.required`, enforced.
    public var userVerification: UserVerificationRequirement
    /// The creation options' `residentKey`: `required`, `preferred` or `discouraged`.
    public var residentKey: String
    /// Offered in `pubKeyCredParams`, most preferred first.
    public var algorithms: [COSEAlgorithmIdentifier]
    /// Whether a passkey of an algorithm not in ``algorithms`` is refused at sign-in too: when
    /// an operator named the algorithms. The default list only says what new passkeys are
    /// offered; passkeys of other algorithms (imported, or registered before) still sign in.
    public var acceptsOnlyListedAlgorithms: Bool
    /// Sent as the options' `hints`; empty leaves the member out.
    public var hints: [String]
    /// Sent as the creation options' `attestationFormats` (WebAuthn Level 3 §5.4), the
    /// attestation statement formats preferred, most preferred first; empty leaves it out.
    public var attestationFormats: [String]

    public init(
        accept: Acceptance = .any, aaguidsAllowed: Set<AAGUID>? = nil, aaguidsBlocked: Set<AAGUID> = [], userVerification: UserVerificationRequirement = .preferred,
        residentKey: String = "required", algorithms: [COSEAlgorithmIdentifier] = [.edDSA, .es256, .rs256], acceptsOnlyListedAlgorithms: Bool = false,
        hints: [String] = [], attestationFormats: [String] = []
    ) {
        self.attestationFormats = attestationFormats
        self.acceptsOnlyListedAlgorithms = acceptsOnlyListedAlgorithms
        self.accept = accept
        self.aaguidsAllowed = aaguidsAllowed
        self.aaguidsBlocked = aaguidsBlocked
        self.userVerification = userVerification
        self.residentKey = residentKey
        self.algorithms = algorithms
        self.hints = hints
    }

    /// Why a passkey with these properties is not accepted, or `nil` when it is.
    public func refusal(isBackupEligible: Bool, isAttestationTrusted: Bool, aaguid: AAGUID, algorithm: COSEAlgorithmIdentifier) -> String? {
        switch accept {
        case .any: break
        case .synced where !isBackupEligible: return "the passkey is device-bound, and this application accepts synced passkeys only"
        case .deviceBound where isBackupEligible: return "the passkey is synced (backup eligible), and this application accepts device-bound passkeys only"
        case .attested where !isAttestationTrusted: return "the passkey's attestation was not verified, and this application accepts attested passkeys only"
        case .synced, .deviceBound, .attested: break
        }
        if aaguidsBlocked.contains(aaguid) { return "authenticator model \(aaguid.uuidString.lowercased()) is blocked for this application" }
        if let aaguidsAllowed, !aaguidsAllowed.contains(aaguid) {
            return "authenticator model \(aaguid.uuidString.lowercased()) is not among the models this application accepts"
        }
        if acceptsOnlyListedAlgorithms && !algorithms.contains(algorithm) { return "the passkey's algorithm (\(algorithm)) is not one this application accepts" }
        return nil
    }

    /// Why `credential` is not accepted, or `nil` when it is.
    public func refusal(of credential: PasskeyCredential) -> String? {
        refusal(
            isBackupEligible: credential.isBackupEligible, isAttestationTrusted: credential.isAttestationTrusted, aaguid: credential.aaguid, algorithm: credential.algorithm
        )
    }

    /// Whether registrations must carry an attestation to be judged by.
    var needsAttestation: Bool { accept == .attested || aaguidsAllowed != nil || !aaguidsBlocked.isEmpty }
}
