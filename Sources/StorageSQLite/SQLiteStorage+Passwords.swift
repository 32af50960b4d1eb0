public import Foundation
public import IdentityCore

extension SQLiteStorage {
    /// The account's password record, removed or not.
    public func password(userID: UserID) async throws -> PasswordRecord? {
        guard StoredText.canMatch(userID.rawValue) else { return nil }
        return try database.read { db in
            try db.row("SELECT * FROM passwords WHERE user_id = ?", [userID.rawValue]).map { try PasswordRecord(stored: $0) }
        }
    }

    /// Creates an account with a password and no passkey, in one transaction.
    /// - Throws: `StoreConflict(.identifier)` when an identifier is taken; nothing is written.
    public func createUser(_ user: User, password: PasswordRecord) async throws {
        guard password.userID == user.id, let hash = password.hash else {
            throw SQLiteStorageError(.invalidArgument, "the password must be set and belong to the new user \(user.id)")
        }
        try user.requireStorable(in: "createUser")
        try StoredText.requireStorable(hash, in: "createUser")
        try database.write { db in
            try Self.insertUserReportingConflicts(user, db)
            try db.execute(
                "INSERT INTO passwords (user_id, hash, created_at) VALUES (?, ?, ?)", [user.id.rawValue, hash, password.createdAt.databaseSeconds]
            )
        }
    }

    /// Records a password sign-in.
    public func recordPasswordUse(userID: UserID, at time: Date) async throws {
        guard StoredText.canMatch(userID.rawValue) else { return }
        try database.write { db in
            try db.execute("UPDATE passwords SET last_used_at = ? WHERE user_id = ? AND hash IS NOT NULL", [time.databaseSeconds, userID.rawValue])
        }
    }

    /// Removes the password while the account has a passkey, in one transaction, so a
    /// passkey deleted at the same moment cannot leave the account with neither.
    public func removePassword(userID: UserID, at time: Date) async throws -> PasswordRemoval {
        guard StoredText.canMatch(userID.rawValue) else { return .noPassword }
        return try database.write { db in
            guard try Self.hasPassword(userID, db) else { return .noPassword }
            guard try db.row("SELECT 1 FROM credentials WHERE user_id = ? AND disabled = 0", [userID.rawValue]) != nil else { return .lastMethod }
            let row = try db.row(
                "UPDATE passwords SET hash = NULL, removed_at = ? WHERE user_id = ? RETURNING *", [time.databaseSeconds, userID.rawValue]
            )
            guard let row else { return .noPassword }
            try Self.revokeSessions(.signedInWith(.password, of: userID), at: time, db)
            return .removed(try PasswordRecord(stored: row))
        }
    }

    /// Stores `new` in place of `old` while `old` is still the account's hash.
    public func replacePasswordHash(userID: UserID, replacing old: String, with new: String) async throws -> Bool {
        try StoredText.requireStorable(new, in: "replacePasswordHash")
        guard StoredText.canMatch(userID.rawValue, old) else { return false }
        return try database.write { db in
            try db.row("UPDATE passwords SET hash = ? WHERE user_id = ? AND hash = ? RETURNING 1", [new, userID.rawValue, old]) != nil
        }
    }

    /// Whether the account can sign in with a password, inside the caller's transaction.
    static func hasPassword(_ userID: UserID, _ db: SQLiteConnection) throws -> Bool {
        try db.row("SELECT 1 FROM passwords WHERE user_id = ? AND hash IS NOT NULL", [userID.rawValue]) != nil
    }
}

