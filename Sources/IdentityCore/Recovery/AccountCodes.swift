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
    public let expiresAt: Date
    /// Wrong guesses so far.
    public let attempts: Int
    /// How many codes for this purpose were issued in a row, this one included: each re-issue
    /// waits twice as long as the one before (`verification.resend_cooldown`).
    public let issued: Int

    /// Creates the record. `userID` may also be a stand-in for an address that no account
    /// can recover through (``AccountRecoveryService``'s decoys), so that such an address
    /// answers exactly as an account's does.
    public init(
        userID: UserID, purpose: OneTimeCodePurpose, hash: [UInt8], address: String, createdAt: Date, expiresAt: Date, attempts: Int = 0, issued: Int = 1
    ) {
        self.userID = userID
        self.purpose = purpose
        self.hash = hash
        self.address = address
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.attempts = attempts
        self.issued = issued
    }
}

/// What a new one-time code may replace, decided by the store in the write itself, so that
/// of two requests racing for a new code one wins and the other is told.
public enum OneTimeCodeReplacement: Sendable, Hashable {
    /// Whatever is stored (an administrator's new enrollment link replaces the old one).
    case any
    /// Nothing: stored only while the subject has no code for the purpose.
    case none
    /// The code with this hash: stored only while that code is still the stored one.
    case code(hash: [UInt8])
}

/// A per-account count over a fixed window, kept by ``AccountCodeStore``: what bounds the
/// codes an account can be mailed and guessed, whichever face the requests come through.
public enum AccountCounter: String, Sendable, Hashable, CaseIterable {
    /// Wrong one-time codes in a row, across codes and purposes; a right code resets it.
    /// NIST SP 800-63B-4 §3.2.2: at most 100 consecutive failed attempts on one account.
    case codeFailures = "code_failures"
    /// Code mails asked for (and changes of address asked), per hour.
    case codeMails = "code_mails"
    /// New sets of saved recovery codes, per hour: each costs ten slow hashes.
    case recoveryCodeSets = "recovery_code_sets"
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
    /// An HMAC of the code under the instance's key, by which a presented code finds its
    /// record, so that checking one costs one slow hash however many codes the set has.
    /// `nil` for codes made before it existed, which are checked one by one.
    public let lookupKey: [UInt8]?

    public init(id: String, userID: UserID, hash: String, createdAt: Date, usedAt: Date? = nil, lookupKey: [UInt8]? = nil) {
        self.id = id
        self.userID = userID
        self.hash = hash
        self.createdAt = createdAt
        self.usedAt = usedAt
        self.lookupKey = lookupKey
    }
}
