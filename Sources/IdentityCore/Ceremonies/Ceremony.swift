public import Foundation
public import WebAuthn

/// A WebAuthn ceremony in progress. It travels with the client, sealed into its opaque
/// handle (see ``CeremonySeal``), so starting one writes nothing; finishing it marks
/// its ``key`` used, once, in the same transaction as everything the ceremony writes.
public struct Ceremony: Sendable, Hashable {
    /// What the ceremony is for.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// Create an account with its first passkey.
        case signup
        /// Sign in with a passkey.
        case login
        /// Add a passkey to a signed-in account.
        case enrollment
        /// Add a passkey right after a password sign-in without asking (a conditional
        /// create, the automatic passkey upgrade): the only ceremony that accepts a
        /// registration without user presence.
        case conditionalEnrollment = "conditional enrollment"
    }

    /// What makes the ceremony single-use: the mark a store keeps once it is finished.
    public let key: CeremonyKey
    /// What the ceremony is for.
    public let kind: Kind
    /// The client that started it; only it may finish it.
    public let clientID: String
    /// The challenge sent in the options.
    public let challenge: [UInt8]
    /// The user verification requirement sent in the options.
    public var userVerification: UserVerificationRequirement
    /// For signup: the account to create once the passkey verifies.
    public let pendingUser: User?
    /// For enrollment: the signed-in user.
    public let userID: UserID?
    /// For login with a username: the credentials offered in `allowCredentials`.
    public let allowedCredentialIDs: [[UInt8]]
    /// When it was started.
    public let createdAt: Date
    public var expiresAt: Date { key.expiresAt }

    public init(
        key: CeremonyKey,
        kind: Kind,
        clientID: String,
        challenge: [UInt8],
        userVerification: UserVerificationRequirement,
        pendingUser: User? = nil,
        userID: UserID? = nil,
        allowedCredentialIDs: [[UInt8]] = [],
        createdAt: Date
    ) {
        self.key = key
        self.kind = kind
        self.clientID = clientID
        self.challenge = challenge
        self.userVerification = userVerification
        self.pendingUser = pendingUser
        self.userID = userID
        self.allowedCredentialIDs = allowedCredentialIDs
        self.createdAt = createdAt
    }
}

/// The single-use mark of a ceremony: 16 bytes, the big-endian millisecond of its expiry
/// followed by 8 random bytes.
///
/// Putting the expiry first orders marks by expiry, so a store keeps them in one index that
/// new marks append to (ceremonies finish soon after they start) and purges expired marks
/// with one range delete from its low end (``purgeBound(expiredBefore:)``).
public struct CeremonyKey: Sendable, Hashable, CustomStringConvertible {
    /// The 16 bytes.
    public let bytes: [UInt8]

    /// A key for a ceremony expiring at `expiresAt`.
    /// - Parameter random: 8 random bytes.
    public init(expiresAt: Date, random: [UInt8]) {
        precondition(random.count == 8, "a ceremony key takes 8 random bytes")
        bytes = Self.millisecondBytes(expiresAt) + random
    }

    /// The key these 16 bytes are, or `nil` when they are not 16 bytes.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// When the ceremony expires, to the millisecond.
    public var expiresAt: Date {
        Date(timeIntervalSince1970: Double(bytes.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }) / 1000)
    }

    /// Every key that sorts (bytewise) before these 8 bytes expired before `time`.
    public static func purgeBound(expiredBefore time: Date) -> [UInt8] {
        millisecondBytes(time)
    }

    public var description: String { UUIDText.hex(bytes) }

    private static func millisecondBytes(_ time: Date) -> [UInt8] {
        // Rounded down, so that a ceremony never lives longer than it was given.
        let milliseconds = UInt64(max(0, (time.timeIntervalSince1970 * 1000).rounded(.down)))
        return (0..<8).map { UInt8(truncatingIfNeeded: milliseconds >> (56 - 8 * UInt64($0))) }
    }
}

/// Who a finished sign-up or login signed in.
public struct SignedIn: Sendable {
    public let user: User
    /// Whether the authenticator verified the user.
    public let userVerified: Bool
    /// The passkey used.
    public let credentialID: [UInt8]
    /// Whether the ceremony created the account.
    public let isNewAccount: Bool
    /// How strongly the sign-in authenticated the person (the tokens' `acr`).
    public var level: AuthenticationLevel = .basic
    /// Whether the passkey was on another device, reached over the hybrid transport (a phone
    /// showing a QR code's prompt): the moment to offer a passkey on this device.
    public var isCrossDevice: Bool = false

    /// Whether an assertion came from a passkey on another device: the browser says the
    /// authenticator was cross-platform, and the passkey was registered as one reached over
    /// hybrid (a security key on USB or NFC is cross-platform too, and already in hand).
    public static func isCrossDevice(attachment: String?, transports: [String]) -> Bool {
        attachment == "cross-platform" && transports.contains("hybrid")
    }
}
