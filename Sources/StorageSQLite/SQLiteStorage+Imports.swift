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
