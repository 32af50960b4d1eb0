import Foundation
public import IdentityCore

extension SQLiteStorage {
    /// Writes an imported account in one transaction; a source ID imported before writes
    /// nothing.
    public func importAccount(_ account: ImportedAccount) async throws -> AccountImportWrite {
        try account.requireStorable()
        return try database.write { db in
            let user = account.user
            if let before = try Self.importedAccount(account.source, account.sourceID, db) { return .importedBefore(before) }
            try Self.insertUserReportingConflicts(user, db)
            for credential in account.credentials { try Self.insertCredential(credential, db) }
            if let hash = account.passwordHash {
                try db.execute("INSERT INTO passwords (user_id, hash, created_at) VALUES (?, ?, ?)", [user.id.rawValue, hash, account.importedAt.databaseSeconds])
            }
            try db.execute(
                "INSERT INTO imported_accounts (source, source_id, user_id, imported_at) VALUES (?, ?, ?, ?)",
                [account.source, account.sourceID, user.id.rawValue, account.importedAt.databaseSeconds]
            )
            if let event = account.event { try Self.record(event, db) }
            return .created
        }
    }

    /// Joins a record to an existing account in one transaction, while the account has the
    /// address, verified.
    public func mergeImportedAccount(_ merge: ImportedMerge) async throws -> AccountMergeWrite {
        try merge.requireStorable()
        return try database.write { db in
            if let before = try Self.importedAccount(merge.source, merge.sourceID, db) { return .importedBefore(before) }
            let changed = try db.execute(
                """
                    UPDATE users SET external_id = coalesce(external_id, ?), metadata = coalesce(metadata, ?), updated_at = ?
                    WHERE id = ? AND email = ? AND email_verified_at IS NOT NULL
                    """,
                [merge.externalID, merge.metadata, merge.importedAt.databaseSeconds, merge.userID.rawValue, merge.email]
            )
            guard changed == 1 else { return .accountChanged }
            var passwordAdded = false
            if let hash = merge.passwordHash {
                // A password record the account has, even one the person removed, stays.
                passwordAdded = try db.execute(
                    "INSERT INTO passwords (user_id, hash, created_at) VALUES (?, ?, ?) ON CONFLICT (user_id) DO NOTHING",
                    [merge.userID.rawValue, hash, merge.importedAt.databaseSeconds]
                ) == 1
            }
            try db.execute(
                "INSERT INTO imported_accounts (source, source_id, user_id, imported_at) VALUES (?, ?, ?, ?)",
                [merge.source, merge.sourceID, merge.userID.rawValue, merge.importedAt.databaseSeconds]
            )
            if let event = merge.event { try Self.record(event, db) }
            return .merged(passwordAdded: passwordAdded)
        }
    }

    /// The account a source ID was imported as.
    public func importedAccount(source: String, sourceID: String) async throws -> UserID? {
        guard StoredText.canMatch(source, sourceID) else { return nil }
        return try database.read { db in try Self.importedAccount(source, sourceID, db) }
    }

    private static func importedAccount(_ source: String, _ sourceID: String, _ db: SQLiteConnection) throws -> UserID? {
        try db.row("SELECT user_id FROM imported_accounts WHERE source = ? AND source_id = ?", [source, sourceID])
            .map { UserID(rawValue: try $0.text("user_id")) }
    }
}
