public import Foundation

/// An account's password, as stored: only its hash.
public struct PasswordRecord: Sendable, Hashable {
    public let userID: UserID
    /// The hash in PHC string form (``PasswordHasher``); `nil` once the password was
    /// removed, so that the account can tell credential managers it is unused.
    public let hash: String?
    /// When the password was set.
    public let createdAt: Date
    /// When it last signed the user in.
    public let lastUsedAt: Date?
    /// When the account gave it up.
    public let removedAt: Date?

    public init(userID: UserID, hash: String?, createdAt: Date, lastUsedAt: Date? = nil, removedAt: Date? = nil) {
        self.userID = userID
        self.hash = hash
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.removedAt = removedAt
    }

    /// The method ID the My Account API lists it under.
    public var methodID: String { Self.methodID(of: userID) }

    /// The method ID of `userID`'s password, whether or not the account has one.
    public static func methodID(of userID: UserID) -> String { "password|" + userID.rawValue }
}

/// What removing a password did.
public enum PasswordRemoval: Sendable, Hashable {
    /// Removed; the record keeps when.
    case removed(PasswordRecord)
    /// The account has no password (any more).
    case noPassword
    /// The account has no passkey, so the password is its only way to sign in.
    case lastMethod
}
