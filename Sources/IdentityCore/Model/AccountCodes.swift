public import Foundation

/// What a one-time code is for.
public enum OneTimeCodePurpose: String, Sendable, Hashable, CaseIterable {
    /// Proving that an email address is the person's.
    case emailVerification = "email_verification"
    /// Getting back into an account whose passkeys are lost, through its verified email.
    case recovery
    /// Proving a new email address before it replaces the account's current one.
    case emailChange = "email_change"
    /// An administrator's one-use enrollment link: adding a passkey without signing in.
    case enrollment
}

/// A short code sent to an address (verification, recovery by email): stored as a keyed
/// hash only, single use, with a lifetime and a limit on wrong guesses. A user has at most
/// one per purpose; a new one replaces the old.
public struct OneTimeCode: Sendable, Hashable {
    /// Whose.
    public let userID: UserID
    /// What for.
    public let purpose: OneTimeCodePurpose
    /// The keyed hash of the code (HMAC-SHA256 with the instance's key).
    public let hash: [UInt8]
    /// The address it was sent to: a code proves that address, not a later one.
    public let address: String
    /// When it was made.
    public let createdAt: Date
    /// When it stops working.
    public let expiresAt: Date
    /// Wrong guesses so far.
    public let attempts: Int

    /// Creates the record.
    public init(userID: UserID, purpose: OneTimeCodePurpose, hash: [UInt8], address: String, createdAt: Date, expiresAt: Date, attempts: Int = 0) {
        self.userID = userID
        self.purpose = purpose
        self.hash = hash
        self.address = address
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.attempts = attempts
    }
}

/// One of a set of saved recovery codes (NIST SP 800-63B-4 §3.1.2's "saved recovery
/// codes"): shown once, stored as a password hash, single use.
public struct RecoveryCode: Sendable, Hashable {
    /// The code's ID within its set.
    public let id: String
    /// Whose.
    public let userID: UserID
    /// The PHC string of the code's hash.
    public let hash: String
    /// When its set was made.
    public let createdAt: Date
    /// When it was used; `nil` while it is still good.
    public let usedAt: Date?

    /// Creates the record.
    public init(id: String, userID: UserID, hash: String, createdAt: Date, usedAt: Date? = nil) {
        self.id = id
        self.userID = userID
        self.hash = hash
        self.createdAt = createdAt
        self.usedAt = usedAt
    }
}
