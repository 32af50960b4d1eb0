public import Foundation
public import IdentityCore
import PostgresNIO
import LatchkeyWire

extension PostgresStorage {
    /// The user with this ID.
    public func user(id: UserID) async throws -> User? {
        guard !StoredText.containsNUL([id.rawValue]) else { return nil }
        return try await autocommit { db in
            try await db.rows(UserByIDStatement(key: id.rawValue), prepared: self.prepares, logger: self.logger).first.map { try User(stored: $0) }
        }
    }

    /// The user an identifier belongs to.
    public func user(identifier: Identifier) async throws -> User? {
        guard !StoredText.containsNUL([identifier.value]) else { return nil }
        // The column comes from this fixed switch, never from input.
        let column: String
        switch identifier {
        case .email: column = "email"
        case .phoneNumber: column = "phone_number"
        case .username: column = "username"
        }
        let value = identifier.value
        return try await autocommit { db in
            try await db.row("SELECT * FROM users WHERE \(unescaped: column) = \(value)", logger: self.logger).map { try User(stored: $0) }
        }
    }

    /// The user whose WebAuthn user handle this is.
    public func user(handle: [UInt8]) async throws -> User? {
        try await autocommit { db in
            try await db.row("SELECT * FROM users WHERE user_handle = \(handle.bytea)", logger: self.logger).map { try User(stored: $0) }
        }
    }

    /// Creates a user together with their first passkey, in one transaction.
    public func createUser(_ user: User, credential: PasskeyCredential) async throws {
        try Self.requireAccount(user, credential: credential)
        try await transaction { db in try await self.insertAccount(user, credential: credential, db) }
    }

    /// Sets a user's display name and `updated_at`.
    public func updateName(userID: UserID, name: String?, at time: Date) async throws -> User? {
        try StoredText.requireStorable(name, in: "updateName")
        guard !StoredText.containsNUL([userID.rawValue]) else { return nil }
        return try await autocommit { db in
            try await db.row("UPDATE users SET name = \(name), updated_at = \(time.seconds) WHERE id = \(userID.rawValue) RETURNING *", logger: self.logger)
                .map { try User(stored: $0) }
        }
    }

    /// Refuses an account whose passkey names another user, or whose text cannot be stored.
    static func requireAccount(_ user: User, credential: PasskeyCredential) throws {
        // Otherwise the passkey would be attached to whichever account that ID names.
        guard credential.userID == user.id else {
            throw PostgresStorageError(.invalidArgument, "the credential belongs to \(credential.userID), not to the new user \(user.id)")
        }
        try user.requireStorable(in: "createUser")
        try credential.requireStorable()
    }

    /// Inserts an account and its first passkey inside the caller's transaction.
    func insertAccount(_ user: User, credential: PasskeyCredential, _ db: PostgresConnection) async throws {
        try await insertUser(user, db)
        try await insertCredential(credential, db)
    }

    /// Inserts a user inside the caller's transaction.
    func insertUser(_ user: User, _ db: PostgresConnection) async throws {
        let profile = user.profile
        _ = try await db.rows(
            """
            INSERT INTO users (
                id, user_handle, email, phone_number, username, name, given_name, family_name, nickname, picture, created_at, updated_at,
                email_verified_at, disabled_at, external_id, metadata
            )
            VALUES (\(user.id.rawValue), \(user.userHandle.bytea), \(profile.email), \(profile.phoneNumber), \(profile.username), \(profile.name),
                \(profile.givenName), \(profile.familyName), \(profile.nickname), \(profile.picture), \(user.createdAt.seconds), \(user.updatedAt.seconds),
                \(user.emailVerifiedAt?.seconds), \(user.disabledAt?.seconds), \(user.externalID), \(user.metadata))
            """, logger: logger)
    }
}

extension User {
    /// The users columns under a `u_` prefix, for joins (the table aliased `u`).
    static let prefixedColumns = ["id", "user_handle", "email", "phone_number", "username", "name", "given_name", "family_name", "nickname", "picture", "created_at", "updated_at",
        "email_verified_at", "phone_number_verified_at", "disabled_at", "external_id", "metadata"]
        .map { "u.\($0) AS u_\($0)" }.joined(separator: ", ")

}
