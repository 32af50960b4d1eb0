public import Foundation
import LatchkeyWire

/// What the Admin API reads and changes beyond the faces' own stores: admin API keys, the
/// user directory, a user's sessions, and the audit trail by filter.
public protocol AdministrationStore: Sendable {
    /// Stores a new admin API key.
    func saveAdminKey(_ key: AdminAPIKey) async throws
    /// The key with this SHA-256, revoked or not.
    func adminKey(hash: [UInt8]) async throws -> AdminAPIKey?
    /// Every key, oldest first.
    func adminKeys() async throws -> [AdminAPIKey]
    /// Revokes a key. - Returns: `false` when there is no such key or it was revoked before.
    func revokeAdminKey(id: String, at time: Date) async throws -> Bool
    /// Records that a key was used at `time`.
    func recordAdminKeyUse(id: String, at time: Date) async throws

    /// Creates an account with no way to sign in yet (an administrator's, ahead of the
    /// person's first sign-in).
    /// - Throws: ``StoreConflict`` `.identifier` when an identifier or the handle is taken.
    func createUser(_ user: User) async throws
    /// Users in creation order (then by ID), after `query.after`, at most `query.limit`.
    func users(_ query: UserQuery) async throws -> [User]
    /// Turns an account off or on. Turning it off revokes every session of the account in
    /// the same transaction; either way `updated_at` moves, so that a sign-in verified
    /// against the account as it was is refused as stale (``StaleRead``).
    /// - Returns: The account as changed; `nil` when there is none.
    func setUserDisabled(id: UserID, disabled: Bool, at time: Date) async throws -> User?
    /// Deletes an account with every credential, password, session, token, code and
    /// consent it has. Its audit events stay. Its login sessions are revoked at `time` first,
    /// so that the apps told of ended sessions (back-channel logout) hear of these.
    /// - Returns: `false` when there is no such account.
    func deleteUser(id: UserID, at time: Date) async throws -> Bool
    /// A user's sessions, revoked and expired ones included, newest first.
    func sessions(userID: UserID) async throws -> [SessionSummary]
    /// Revokes one session of a user. - Returns: `false` when the user has no such session
    /// still active.
    func revokeSession(id: String, userID: UserID, at time: Date) async throws -> Bool
    /// Audit events matching `query`, newest first.
    func events(_ query: AuditQuery) async throws -> [LoggedEvent]
}

/// A page of the user directory.
public struct UserQuery: Sendable, Hashable {
    /// An email address, phone number or username that must match exactly.
    public var identifier: String?
    /// A start that an email address, phone number or username must have.
    public var identifierPrefix: String?
    /// The last user of the page before: the page starts after it.
    public var after: UserCursor?
    /// At most this many users.
    public var limit: Int

    public init(identifier: String? = nil, identifierPrefix: String? = nil, after: UserCursor? = nil, limit: Int) {
        self.identifier = identifier
        self.identifierPrefix = identifierPrefix
        self.after = after
        self.limit = limit
    }

    /// Whether `user` matches the identifier filters (the in-memory store's reading).
    public func matches(_ user: User) -> Bool {
        let identifiers = user.profile.identifiers.map(\.value)
        if let identifier, !identifiers.contains(identifier) { return false }
        if let identifierPrefix, !identifiers.contains(where: { $0.utf8.starts(with: identifierPrefix.utf8) }) { return false }
        if let after, !after.precedes(user) { return false }
        return true
    }
}

/// A position in the user directory: a user's creation time and ID. Made from a user (or,
/// inside the core, from a page token), never from loose values.
public struct UserCursor: Sendable, Hashable {
    public let createdAt: Date
    public let id: UserID
}

extension UserCursor {
    /// The cursor of the user a page ended with.
    public init(_ user: User) { self.init(createdAt: user.createdAt, id: user.id) }

    /// Whether `user` comes after this position.
    public func precedes(_ user: User) -> Bool {
        if user.createdAt != createdAt { return user.createdAt > createdAt }
        return id.rawValue.utf8.lexicographicallyPrecedes(user.id.rawValue.utf8)
    }

    /// The directory's order: by creation time, then by the ID's bytes.
    public static func directoryOrder(_ a: User, _ b: User) -> Bool {
        UserCursor(a).precedes(b)
    }
}

/// A filter over the audit trail.
public struct AuditQuery: Sendable, Hashable {
    /// Only events of this kind.
    public var kind: AuditEvent.Kind?
    /// Only events of this user.
    public var userID: UserID?
    /// Only events of this client.
    public var clientID: String?
    /// Only events of requests from this address.
    public var ip: String?
    /// Only events at or after this time.
    public var from: Date?
    /// Only events before this time.
    public var to: Date?
    /// Only events older than this position (the last of the page before).
    public var before: Int64?
    /// At most this many events.
    public var limit: Int

    public init(
        kind: AuditEvent.Kind? = nil, userID: UserID? = nil, clientID: String? = nil, ip: String? = nil, from: Date? = nil, to: Date? = nil,
        before: Int64? = nil, limit: Int
    ) {
        self.ip = ip
        self.kind = kind
        self.userID = userID
        self.clientID = clientID
        self.from = from
        self.to = to
        self.before = before
        self.limit = limit
    }

    /// A value a condition compares with, as the SQL stores bind it.
    public enum Value: Sendable, Hashable {
        case text(String)
        case time(Date)
        case position(Int64)
    }

    /// The conditions the filter sets, each an `audit_events` comparison with one `?`: what
    /// the SQL stores put in their `WHERE`.
    public var conditions: [(sql: String, value: Value)] {
        let all: [(String, Value?)] = [
            ("kind = ?", kind.map { .text($0.rawValue) }), ("user_id = ?", userID.map { .text($0.rawValue) }), ("client_id = ?", clientID.map(Value.text)),
            ("ip = ?", ip.map(Value.text)), ("time >= ?", from.map(Value.time)), ("time < ?", to.map(Value.time)), ("id < ?", before.map(Value.position)),
        ]
        return all.compactMap { sql, value in value.map { (sql, $0) } }
    }

    /// Whether a logged event matches (the in-memory store's reading).
    public func matches(_ logged: LoggedEvent) -> Bool {
        let event = logged.event
        if let kind, event.kind != kind { return false }
        if let userID, event.userID != userID { return false }
        if let clientID, event.clientID != clientID { return false }
        if let ip, event.origin?.ip != ip { return false }
        if let from, event.time < from { return false }
        if let to, event.time >= to { return false }
        if let before, logged.id >= before { return false }
        return true
    }
}

/// A session as an administrator sees it.
public struct SessionSummary: Sendable, Hashable {
    /// What carries it.
    public enum Kind: String, Sendable, Hashable {
        /// A refresh-token family at the token endpoint (its ID is the `sid` claim).
        case tokens
        /// A browser or self-service session (hosted pages, Kratos, IDaaS).
        case browser
    }

    /// Its ID: the family's ID, or `bs_` and the base64url SHA-256 of a browser session's token.
    public let id: String
    /// What carries it.
    public let kind: Kind
    /// The client it was started for, when it was started for one.
    public let clientID: String?
    /// How the person signed in.
    public let method: SignInMethod
    /// The passkey that signed them in, when one did.
    public let credentialID: [UInt8]?
    public let startedAt: Date
    /// When it ends by itself, when it does.
    public let expiresAt: Date?
    public let revokedAt: Date?

    public init(id: String, kind: Kind, clientID: String?, method: SignInMethod, credentialID: [UInt8]?, startedAt: Date, expiresAt: Date?, revokedAt: Date?) {
        self.id = id
        self.kind = kind
        self.clientID = clientID
        self.method = method
        self.credentialID = credentialID
        self.startedAt = startedAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
    }

    /// The ID of the browser session whose token has this SHA-256.
    public static func browserSessionID(tokenHash: [UInt8]) -> String { browserPrefix + Base64URL.encode(tokenHash) }

    /// The token hash a browser session ID names; `nil` for a family's ID.
    public static func browserTokenHash(id: String) -> [UInt8]? {
        guard id.hasPrefix(browserPrefix), let hash = Base64URL.decode(String(id.dropFirst(browserPrefix.count))), (1...64).contains(hash.count) else { return nil }
        return hash
    }

    private static let browserPrefix = "bs_"

    /// Whether it still holds at `time`.
    public func isActive(at time: Date) -> Bool { revokedAt == nil && (expiresAt.map { $0 > time } ?? true) }

    /// Newest first, then by ID: the order every store lists them in.
    public static func newestFirst(_ a: SessionSummary, _ b: SessionSummary) -> Bool {
        a.startedAt != b.startedAt ? a.startedAt > b.startedAt : a.id < b.id
    }
}
