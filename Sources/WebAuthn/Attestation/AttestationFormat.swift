/// An attestation statement format identifier (WebAuthn L3 §8, IANA registry).
public struct AttestationFormat: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The identifier as it appears in `fmt`.
    public let rawValue: String

    /// Accepts any identifier, including ones this verifier does not implement (see ``all``).
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `packed` (§8.2).
    public static let packed = Self(rawValue: "packed")
    /// `tpm` (§8.3).
    public static let tpm = Self(rawValue: "tpm")
    /// `android-key` (§8.4).
    public static let androidKey = Self(rawValue: "android-key")
    /// `android-safetynet` (§8.5).
    public static let androidSafetyNet = Self(rawValue: "android-safetynet")
    /// `fido-u2f` (§8.6).
    public static let fidoU2F = Self(rawValue: "fido-u2f")
    /// `none` (§8.7).
    public static let none = Self(rawValue: "none")
    /// `apple` (§8.8).
    public static let apple = Self(rawValue: "apple")
    /// `compound` (§8.9).
    public static let compound = Self(rawValue: "compound")

    /// Every format this verifier implements.
    public static let all: [AttestationFormat] = [.packed, .tpm, .androidKey, .androidSafetyNet, .fidoU2F, .none, .apple, .compound]

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// The attestation types of WebAuthn L3 §6.5.4.
public enum AttestationType: String, Sendable, Hashable, Codable {
    /// No attestation statement.
    case none
    /// Signed with the credential's own key.
    case `self`
    /// Signed with a batch attestation key (packed x5c, fido-u2f, android-key, SafetyNet).
    case basic
    /// Signed with a key certified by an attestation CA (tpm).
    case attCA
    /// Certified per credential by an anonymization CA (apple).
    case anonCA
    /// Several statements; see each one's result.
    case compound
}

/// What the relying party can conclude about the attestation's origin.
public enum AttestationTrust: Sendable, Hashable {
    /// The certificate path ends at a configured trust anchor, named by its subject.
    case trusted(anchor: String)
    /// The statement is valid but nothing vouches for the authenticator; the reason says why.
    case untrusted(reason: String)
    /// There is nothing to trust (`none`, or self attestation).
    case notApplicable

    /// Whether the attestation chains to an anchor.
    public var isTrusted: Bool {
        if case .trusted = self { return true }
        return false
    }
}

/// The verified outcome of one attestation statement.
public struct AttestationResult: Sendable {
    /// The statement's format.
    public let format: AttestationFormat
    /// Its attestation type.
    public let type: AttestationType
    /// Whether it chains to a trust anchor.
    public let trust: AttestationTrust
    /// The certificates the statement carried, leaf first (empty for none and self).
    public let certificates: [AttestationCertificate]
    /// For `compound`: the result of each sub-statement.
    public let components: [AttestationResult]
}
