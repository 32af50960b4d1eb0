import Foundation
import GRDB
import IdentityCore

extension SQLiteStorage {
    /// The secret named `name`, storing `candidate` if there is none yet. Insert-if-absent
    /// and read happen in one transaction, so concurrent first calls, even from several
    /// processes, all return the one value that was stored.
    public func secret(named name: String, orStore candidate: [UInt8]) async throws -> [UInt8] {
        try TextBinding.requireStorable(name, in: "secret")
        return try await writer.write { db in
            try db.executeCached(
                sql: "INSERT INTO secrets (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
                arguments: [name, candidate.databaseBlob]
            )
            guard let row = try Row.fetchOneCached(db, sql: "SELECT value FROM secrets WHERE name = ?", arguments: [name]) else {
                throw SQLiteStorageError(.unreadableRow, "secret \(name) vanished after it was stored")
            }
            return try row.bytes("value")
        }
    }
}
