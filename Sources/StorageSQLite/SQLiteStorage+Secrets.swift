import Foundation
import IdentityCore

extension SQLiteStorage {
    /// The secret named `name`, storing `candidate` if there is none yet. Insert-if-absent
    /// and read happen in one transaction, so concurrent first calls, even from several
    /// processes, all return the one value that was stored.
    public func secret(named name: String, orStore candidate: [UInt8]) async throws -> [UInt8] {
        try StoredText.requireStorable(name, in: "secret")
        return try database.write { db in
            try db.execute("INSERT INTO secrets (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING", [name, candidate])
            guard let row = try db.row("SELECT value FROM secrets WHERE name = ?", [name]) else {
                throw SQLiteStorageError(.unreadableRow, "secret \(name) vanished after it was stored")
            }
            return try row.bytes("value")
        }
    }

    /// Replaces a secret's value while it is still `current`.
    public func replaceSecret(named name: String, with value: [UInt8], replacing current: [UInt8]) async throws -> Bool {
        guard StoredText.canMatch(name) else { return false }
        return try database.write { db in
            try db.execute("UPDATE secrets SET value = ? WHERE name = ? AND value = ?", [value, name, current]) > 0
        }
    }
}
