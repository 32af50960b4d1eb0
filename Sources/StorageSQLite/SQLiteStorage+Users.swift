public import Foundation
public import IdentityCore
import LatchkeyWire

extension SQLiteStorage {
    /// The user with this ID.
    public func user(id: UserID) async throws -> User? {
        guard StoredText.canMatch(id.rawValue) else { return nil }
        return try database.read { db in
            try db.row("SELECT * FROM users WHERE id = ?", [id.rawValue]).map { try User(stored: $0) }
        }
    }

    /// The user an identifier belongs to.
    public func user(identifier: Identifier) async throws -> User? {
        // The column comes from this fixed switch, never from input.
        let column: String
        switch identifier {
        case .email: column = "email"
        case .phoneNumber: column = "phone_number"
        case .username: column = "username"
        }
        guard StoredText.canMatch(identifier.value) else { return nil }
        return try database.read { db in
            try db.row("SELECT * FROM users WHERE \(column) = ?", [identifier.value]).map { try User(stored: $0) }
        }
    }

    /// The user whose WebAuthn user handle this is.
    public func user(handle: [UInt8]) async throws -> User? {
        try database.read { db in
            try db.row("SELECT * FROM users WHERE user_handle = ?", [handle]).map { try User(stored: $0) }
        }
    }

    /// Creates a user together with their first passkey, in one transaction.
    /// - Throws: `StoreConflict(.identifier)` when the email, phone number, username or user
    ///   handle is taken; `StoreConflict(.credentialID)` when the credential ID is; nothing
    ///   is written then. ``SQLiteStorageError`` `.invalidArgument` when the credential names
    ///   another user.
    public func createUser(_ user: User, credential: PasskeyCredential) async throws {
        try database.write { db in
            try Self.insertAccount(user, credential: credential, db)
        }
    }

    /// Sets a user's display name and `updated_at`.
    public func updateName(userID: UserID, name: String?, at time: Date) async throws -> User? {
        try StoredText.requireStorable(name, in: "updateName")
        guard StoredText.canMatch(userID.rawValue) else { return nil }
        return try database.write { db in
            try db.row("UPDATE users SET name = ?, updated_at = ? WHERE id = ? RETURNING *", [name, time.databaseSeconds, userID.rawValue])
                .map { try User(stored: $0) }
        }
    }

    /// Inserts an account and its first passkey inside the caller's transaction.
    /// - Throws: `StoreConflict(.identifier)` when the email, phone number, username or user
    ///   handle is taken; `StoreConflict(.credentialID)` when the credential ID is.
    ///   ``SQLiteStorageError`` `.invalidArgument` when the credential names another user.
    static func insertAccount(_ user: User, credential: PasskeyCredential, _ db: SQLiteConnection) throws {
        // Otherwise the passkey would be attached to whichever account that ID names.
        guard credential.userID == user.id else {
            throw SQLiteStorageError(.invalidArgument, "the credential belongs to \(credential.userID), not to the new user \(user.id)")
        }
        try user.requireStorable(in: "createUser")
        try credential.requireStorable()
        try insertUserReportingConflicts(user, db)
        try insertCredential(credential, db)
    }

    /// Inserts a user inside the caller's transaction.
    /// - Throws: `StoreConflict(.identifier)` when an identifier or the user handle is taken.
    static func insertUserReportingConflicts(_ user: User, _ db: SQLiteConnection) throws {
        try reportingConflicts({ $0.columns.isDisjoint(with: uniqueUserColumns) ? nil : .identifier }) {
            try insertUser(user, db)
        }
    }

    /// The columns whose collision means "this identifier is taken". The user handle is
    /// random, but reporting its collision the same way lets the caller retry sign-up.
    /// An imported account keeps its source's ID, which can meet an account made here.
    private static let uniqueUserColumns: Set<String> = ["users.id", "users.email", "users.phone_number", "users.username", "users.user_handle"]

    static func insertUser(_ user: User, _ db: SQLiteConnection) throws {
        let profile = user.profile
        try db.execute(
            """
                INSERT INTO users (
                    id, user_handle, email, phone_number, username, name, given_name, family_name,
                    nickname, picture, created_at, updated_at, email_verified_at, disabled_at, external_id, metadata
                ) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            [
                user.id.rawValue, user.userHandle, profile.email, profile.phoneNumber, profile.username,
                profile.name, profile.givenName, profile.familyName, profile.nickname, profile.picture,
                user.createdAt.databaseSeconds, user.updatedAt.databaseSeconds, user.emailVerifiedAt?.databaseSeconds, user.disabledAt?.databaseSeconds,
                user.externalID, user.metadata,
            ])
    }
}

extension User {
    /// The users columns under a `u_` prefix, for joins (the table aliased `u`).
    static let prefixedColumns = ["id", "user_handle", "email", "phone_number", "username", "name", "given_name", "family_name", "nickname", "picture", "created_at", "updated_at",
        "email_verified_at", "phone_number_verified_at", "disabled_at", "external_id", "metadata"]
        .map { "u.\($0) AS u_\($0)" }.joined(separator: ", ")

}
