import Foundation
public import IdentityCore
import PostgresNIO

extension PostgresStorage {
    /// Writes an imported account in one transaction; a source ID imported before writes
    /// nothing.
    public func importAccount(_ account: ImportedAccount) async throws -> AccountImportWrite {
        try account.requireStorable()
        let user = account.user
        return try await transaction { db in
            if let before = try await self.claimSource(account.source, account.sourceID, for: user.id, at: account.importedAt, db) { return .importedBefore(before) }
            try await self.insertUser(user, db)
            for credential in account.credentials { try await self.insertCredential(credential, db) }
            if let hash = account.passwordHash {
                _ = try await db.rows(
                    "INSERT INTO passwords (user_id, hash, created_at) VALUES (\(user.id.rawValue), \(hash), \(account.importedAt.seconds))", logger: self.logger)
            }
            if let event = account.event { try await self.record([event], db) }
            return .created
        }
    }

    /// Joins a record to an existing account in one transaction, while the account has the
    /// address, verified.
    public func mergeImportedAccount(_ merge: ImportedMerge) async throws -> AccountMergeWrite {
        try merge.requireStorable()
        do {
            return try await transaction { db in
                if let before = try await self.claimSource(merge.source, merge.sourceID, for: merge.userID, at: merge.importedAt, db) {
                    return .importedBefore(before)
                }
                let changed = try await db.rows(
                    """
                    UPDATE users SET external_id = coalesce(external_id, \(merge.externalID)), metadata = coalesce(metadata, \(merge.metadata)),
                        updated_at = \(merge.importedAt.seconds)
                    WHERE id = \(merge.userID.rawValue) AND email = \(merge.email) AND email_verified_at IS NOT NULL
                    RETURNING 1
                    """, logger: self.logger)
                // Thrown to roll the source row back with the rest.
                guard !changed.isEmpty else { throw AccountChanged() }
                var passwordAdded = false
                if let hash = merge.passwordHash {
                    // A password record the account has, even one the person removed, stays.
                    passwordAdded = try await !db.rows(
                        """
                        INSERT INTO passwords (user_id, hash, created_at) VALUES (\(merge.userID.rawValue), \(hash), \(merge.importedAt.seconds))
                        ON CONFLICT (user_id) DO NOTHING RETURNING 1
                        """, logger: self.logger
                    ).isEmpty
                }
                if let event = merge.event { try await self.record([event], db) }
                return .merged(passwordAdded: passwordAdded)
            }
        } catch is AccountChanged {
            return .accountChanged
        }
    }

    private struct AccountChanged: Error {}

    /// Claims a source ID for `userID` inside the caller's transaction, first of its writes:
    /// a second import of the same record (here or on another instance) waits on the row and
    /// then finds it taken. Returns the account it was imported as before, or `nil` once
    /// claimed.
    private func claimSource(_ source: String, _ sourceID: String, for userID: UserID, at time: Date, _ db: PostgresConnection) async throws -> UserID? {
        let claimed = try await db.rows(
            """
            INSERT INTO imported_accounts (source, source_id, user_id, imported_at)
            VALUES (\(source), \(sourceID), \(userID.rawValue), \(time.seconds))
            ON CONFLICT DO NOTHING RETURNING 1
            """, logger: logger)
        guard claimed.isEmpty else { return nil }
        let before = try await db.row("SELECT user_id FROM imported_accounts WHERE source = \(source) AND source_id = \(sourceID)", logger: logger)
        return UserID(rawValue: try before?.text("user_id") ?? userID.rawValue)
    }

    /// The account a source ID was imported as.
    public func importedAccount(source: String, sourceID: String) async throws -> UserID? {
        guard !StoredText.containsNUL([source, sourceID]) else { return nil }
        return try await autocommit { db in
            try await db.row("SELECT user_id FROM imported_accounts WHERE source = \(source) AND source_id = \(sourceID)", logger: self.logger)
                .map { UserID(rawValue: try $0.text("user_id")) }
        }
    }
}
