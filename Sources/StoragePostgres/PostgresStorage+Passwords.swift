public import Foundation
public import IdentityCore
import PostgresNIO

extension PostgresStorage {
    /// The account's password record, removed or not.
    public func password(userID: UserID) async throws -> PasswordRecord? {
        guard !StoredText.containsNUL([userID.rawValue]) else { return nil }
        return try await autocommit { db in
            try await db.row("SELECT * FROM passwords WHERE user_id = \(userID.rawValue)", logger: self.logger).map(PasswordRecord.init(stored:))
        }
    }

    /// Creates an account with a password and no passkey, in one transaction.
    public func createUser(_ user: User, password: PasswordRecord) async throws {
        guard password.userID == user.id, let hash = password.hash else {
            throw PostgresStorageError(.invalidArgument, "the password must be set and belong to the new user \(user.id)")
        }
        try user.requireStorable(in: "createUser")
        try StoredText.requireStorable(hash, in: "createUser")
        try await transaction { db in
            try await self.insertUser(user, db)
            _ = try await db.rows(
                "INSERT INTO passwords (user_id, hash, created_at) VALUES (\(user.id.rawValue), \(hash), \(password.createdAt.seconds))", logger: self.logger)
        }
    }

    /// Records a password sign-in.
    public func recordPasswordUse(userID: UserID, at time: Date) async throws {
        guard !StoredText.containsNUL([userID.rawValue]) else { return }
        try await autocommit { db in
            _ = try await db.rows(
                "UPDATE passwords SET last_used_at = \(time.seconds) WHERE user_id = \(userID.rawValue) AND hash IS NOT NULL RETURNING 1", logger: self.logger)
        }
    }

    /// Stores `new` in place of `old` while `old` is still the account's hash.
    public func replacePasswordHash(userID: UserID, replacing old: String, with new: String) async throws -> Bool {
        try StoredText.requireStorable(new, in: "replacePasswordHash")
        guard !StoredText.containsNUL([userID.rawValue, old]) else { return false }
        return try await autocommit { db in
            try await !db.rows(
                "UPDATE passwords SET hash = \(new) WHERE user_id = \(userID.rawValue) AND hash = \(old) RETURNING 1", logger: self.logger
            ).isEmpty
        }
    }

    /// Removes the password while the account has a passkey. The user's row is locked
    /// first, so a passkey deleted at the same moment, on any instance, cannot leave the
    /// account with neither.
    public func removePassword(userID: UserID, at time: Date) async throws -> PasswordRemoval {
        guard !StoredText.containsNUL([userID.rawValue]) else { return .noPassword }
        return try await transaction { db in
            try await self.lockUser(userID, db)
            guard try await db.row("SELECT 1 FROM passwords WHERE user_id = \(userID.rawValue) AND hash IS NOT NULL", logger: self.logger) != nil else {
                return .noPassword
            }
            guard try await db.row("SELECT 1 FROM credentials WHERE user_id = \(userID.rawValue) AND NOT disabled LIMIT 1", logger: self.logger) != nil else {
                return .lastMethod
            }
            let row = try await db.row(
                "UPDATE passwords SET hash = NULL, removed_at = \(time.seconds) WHERE user_id = \(userID.rawValue) RETURNING *", logger: self.logger)
            guard let row else { return .noPassword }
            try await self.revokeSessions(.signedInWith(.password, of: userID), at: time, db)
            return .removed(try PasswordRecord(stored: row))
        }
    }
}

