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
            // The source row first: a second import of the same record (here or on another
            // instance) waits on it and then finds it taken, writing nothing.
            let claimed = try await db.rows(
                """
                INSERT INTO imported_accounts (source, source_id, user_id, imported_at)
                VALUES (\(account.source), \(account.sourceID), \(user.id.rawValue), \(account.importedAt.seconds))
                ON CONFLICT DO NOTHING RETURNING 1
                """, logger: self.logger)
            if claimed.isEmpty {
                let before = try await db.row(
                    "SELECT user_id FROM imported_accounts WHERE source = \(account.source) AND source_id = \(account.sourceID)", logger: self.logger)
                return .importedBefore(UserID(rawValue: try before?.text("user_id") ?? user.id.rawValue))
            }
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

    /// The account a source ID was imported as.
    public func importedAccount(source: String, sourceID: String) async throws -> UserID? {
        guard !StoredText.containsNUL([source, sourceID]) else { return nil }
        return try await autocommit { db in
            try await db.row("SELECT user_id FROM imported_accounts WHERE source = \(source) AND source_id = \(sourceID)", logger: self.logger)
                .map { UserID(rawValue: try $0.text("user_id")) }
        }
    }
}
