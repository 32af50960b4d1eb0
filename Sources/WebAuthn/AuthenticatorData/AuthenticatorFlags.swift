/// The flags byte of authenticator data (WebAuthn L3 §6.1).
public struct AuthenticatorFlags: OptionSet, Sendable, Hashable {
    /// The raw byte.
    public let rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// UP: the user was present.
    public static let userPresent = Self(rawValue: 0x01)
    /// UV: the user was verified (biometric, PIN, …).
    public static let userVerified = Self(rawValue: 0x04)
    /// BE: the credential may be backed up (a multi-device credential).
    public static let backupEligible = Self(rawValue: 0x08)
    /// BS: the credential is currently backed up.
    public static let backedUp = Self(rawValue: 0x10)
    /// AT: attested credential data follows.
    public static let attestedCredentialData = Self(rawValue: 0x40)
    /// ED: extension data follows.
    public static let extensionData = Self(rawValue: 0x80)

    /// Whether UP is set.
    public var isUserPresent: Bool { contains(.userPresent) }
    /// Whether UV is set.
    public var isUserVerified: Bool { contains(.userVerified) }
    /// Whether BE is set.
    public var isBackupEligible: Bool { contains(.backupEligible) }
    /// Whether BS is set.
    public var isBackedUp: Bool { contains(.backedUp) }
}
