/// How strongly a sign-in authenticated the person, and the `acr` values (OpenID Connect Core
/// §2) that say so: the OpenID Enhanced Authentication Profile's `phr` and `phrh`, and the
/// NIST SP 800-63B-4 assurance levels AAL2 and AAL3.
public enum AuthenticationLevel: Int, Sendable, Hashable, Comparable, CaseIterable {
    /// A password, or a passkey that did not verify the user: one factor (AAL1). No `acr`
    /// value names it.
    case basic = 1
    /// A passkey that verified the user: phishing-resistant, and two factors in one (`phr`,
    /// AAL2). A synced passkey is enough.
    case phishingResistant = 2
    /// A passkey that verified the user, bound to one device (not backup eligible), whose
    /// attestation was verified against a trusted root: its key is known to live in hardware
    /// and never leave it (`phrh`, AAL3).
    case hardwareProtected = 3

    /// `phr`: phishing-resistant (OpenID EAP ACR Values 1.0).
    public static let phishingResistantValue = "phr"
    /// `phrh`: phishing-resistant and hardware-protected.
    public static let hardwareProtectedValue = "phrh"
    /// NIST SP 800-63B-4 AAL2, as the identifier the U.S. federal profiles use.
    public static let aal2Value = "http://idmanagement.gov/ns/assurance/aal/2"
    /// NIST SP 800-63B-4 AAL3.
    public static let aal3Value = "http://idmanagement.gov/ns/assurance/aal/3"

    /// Every `acr` value this server can assert, strongest first: discovery's
    /// `acr_values_supported`.
    public static let supportedValues = [hardwareProtectedValue, phishingResistantValue, aal3Value, aal2Value]

    /// The level an `acr` value asks for; `nil` for a value this server does not know.
    public static func required(by value: String) -> AuthenticationLevel? {
        switch value {
        case phishingResistantValue, aal2Value: return .phishingResistant
        case hardwareProtectedValue, aal3Value: return .hardwareProtected
        default: return nil
        }
    }

    /// The level of a sign-in: a password is basic whatever else; a passkey counts by whether
    /// it verified the user and what is known of where its key lives.
    public init(method: SignInMethod, userVerified: Bool, isBackupEligible: Bool, isAttestationTrusted: Bool) {
        guard method == .passkey, userVerified else {
            self = .basic
            return
        }
        self = !isBackupEligible && isAttestationTrusted ? .hardwareProtected : .phishingResistant
    }

    /// The level of a sign-in with `credential` (`nil` when no passkey signed in, or it is
    /// gone).
    public init(method: SignInMethod, userVerified: Bool, credential: PasskeyCredential?) {
        self.init(
            method: credential == nil ? .password : method, userVerified: userVerified,
            isBackupEligible: credential?.isBackupEligible ?? true, isAttestationTrusted: credential?.isAttestationTrusted ?? false
        )
    }

    /// The `acr` claim for a sign-in at this level. With `requested` (`acr_values`, in the
    /// client's order of preference) the first one this level reaches, or `nil` when it
    /// reaches none (``ACRRequest/isMet(by:)`` says so first); without, the strongest OpenID
    /// EAP value it reaches (`phrh` or `phr`), and nothing for a basic sign-in.
    public func acr(requested: ACRRequest?) -> String? {
        if let requested, !requested.values.isEmpty {
            return requested.values.first { Self.required(by: $0).map { $0 <= self } ?? false }
        }
        switch self {
        case .basic: return nil
        case .phishingResistant: return Self.phishingResistantValue
        case .hardwareProtected: return Self.hardwareProtectedValue
        }
    }

    public static func < (lhs: AuthenticationLevel, rhs: AuthenticationLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A client's `acr_values` (OpenID Connect Core §3.1.2.1): the authentication context classes
/// it asks for, in order of preference. Values this server does not know are dropped, as the
/// request is voluntary; when none it knows remain, nothing is required.
public struct ACRRequest: Sendable, Hashable {
    /// The known values, in the client's order.
    public let values: [String]

    /// Reads a space-separated `acr_values`; `nil` when it names no value this server knows.
    public init?(_ parameter: String?) {
        let known = (parameter ?? "").split(separator: " ").map(String.init).filter { AuthenticationLevel.required(by: $0) != nil }
        guard !known.isEmpty else { return nil }
        values = known
    }

    /// The weakest level that satisfies the request: any one of the values will do.
    public var minimumLevel: AuthenticationLevel {
        values.compactMap(AuthenticationLevel.required(by:)).min() ?? .basic
    }

    /// Whether a sign-in at `level` reaches one of the values.
    public func isMet(by level: AuthenticationLevel) -> Bool { level >= minimumLevel }
}
