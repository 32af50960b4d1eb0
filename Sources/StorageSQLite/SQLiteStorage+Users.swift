public import Foundation
import GRDB
public import IdentityCore

extension SQLiteStorage {
    /// The user with this ID.
    public func user(id: UserID) async throws -> User? {
        guard TextBinding.canMatch(id.rawValue) else { return nil }
        return try await writer.read { db in
            try Row.fetchOneCached(db, sql: "SELECT * FROM users WHERE id = ?", arguments: [id.rawValue]).map(User.init(databaseRow:))
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
        guard TextBinding.canMatch(identifier.value) else { return nil }
        return try await writer.read { db in
            try Row.fetchOneCached(db, sql: "SELECT * FROM users WHERE \(column) = ?", arguments: [identifier.value])
                .map(User.init(databaseRow:))
        }
    }

    /// The user whose WebAuthn user handle this is.
    public func user(handle: [UInt8]) async throws -> User? {
        try await writer.read { db in
            try Row.fetchOneCached(db, sql: "SELECT * FROM users WHERE user_handle = ?", arguments: [handle.databaseBlob]).map(User.init(databaseRow:))
        }
    }

    /// Creates a user together with their first passkey, in one transaction.
    /// - Throws: `StoreConflict(.identifier)` when the email, phone number, username or user
    ///   handle is taken; `StoreConflict(.credentialID)` when the credential ID is; nothing
    ///   is written then. ``SQLiteStorageError`` `.invalidArgument` when the credential names
    ///   another user.
    public func createUser(_ user: User, credential: PasskeyCredential) async throws {
        // Otherwise the passkey would be attached to whichever account that ID names.
        guard credential.userID == user.id else {
            throw SQLiteStorageError(.invalidArgument, "the credential belongs to \(credential.userID), not to the new user \(user.id)")
        }
        let profile = user.profile
        try TextBinding.requireStorable(
            user.id.rawValue, profile.email, profile.phoneNumber, profile.username, profile.name, profile.givenName,
            profile.familyName, profile.nickname, profile.picture, in: "createUser"
        )
        try Self.requireStorable(credential)
        try await writer.write { db in
            try reportingConflicts({ $0.columns.isDisjoint(with: Self.uniqueUserColumns) ? nil : .identifier }) {
                try Self.insertUser(user, db)
            }
            try Self.insertCredential(credential, db)
        }
    }

    /// Sets a user's display name and `updated_at`.
    public func updateName(userID: UserID, name: String?, at time: Date) async throws -> User? {
        try TextBinding.requireStorable(name, in: "updateName")
        guard TextBinding.canMatch(userID.rawValue) else { return nil }
        return try await writer.write { db in
            try db.executeCached(
                sql: "UPDATE users SET name = ?, updated_at = ? WHERE id = ?",
                arguments: [name, time.databaseSeconds, userID.rawValue]
            )
            return try Row.fetchOneCached(db, sql: "SELECT * FROM users WHERE id = ?", arguments: [userID.rawValue]).map(User.init(databaseRow:))
        }
    }

    /// The columns whose collision means "this identifier is taken". The user handle is
    /// random, but reporting its collision the same way lets the caller retry sign-up.
    private static let uniqueUserColumns: Set<String> = ["users.email", "users.phone_number", "users.username", "users.user_handle"]

    private static func insertUser(_ user: User, _ db: Database) throws {
        let profile = user.profile
        try db.executeCached(
            sql: """
                INSERT INTO users (
                    id, user_handle, email, phone_number, username, name, given_name, family_name,
                    nickname, picture, created_at, updated_at
                ) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                user.id.rawValue, user.userHandle.databaseBlob, profile.email, profile.phoneNumber, profile.username,
                profile.name, profile.givenName, profile.familyName, profile.nickname, profile.picture,
                user.createdAt.databaseSeconds, user.updatedAt.databaseSeconds,
            ]
        )
    }
}

extension User {
    init(databaseRow row: Row) throws {
        self.init(
            id: UserID(rawValue: try row.text("id")),
            userHandle: try row.bytes("user_handle"),
            profile: UserProfile(
                email: try row.optionalText("email"),
                phoneNumber: try row.optionalText("phone_number"),
                username: try row.optionalText("username"),
                name: try row.optionalText("name"),
                givenName: try row.optionalText("given_name"),
                familyName: try row.optionalText("family_name"),
                nickname: try row.optionalText("nickname"),
                picture: try row.optionalText("picture")
            ),
            createdAt: try row.date("created_at"),
            updatedAt: try row.date("updated_at")
        )
    }
}
