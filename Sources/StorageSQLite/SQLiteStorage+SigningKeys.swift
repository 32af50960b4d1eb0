public import Foundation
public import IdentityCore

extension SQLiteStorage {
    /// Every stored key, newest first (by creation time, then by insertion).
    public func signingKeys() async throws -> [SigningKeyRecord] {
        try database.read { db in
            try db.rows("SELECT * FROM signing_keys ORDER BY created_at DESC, rowid DESC").map { row in
                try SigningKeyRecord(stored: row)
            }
        }
    }

    /// Adds a key and retires every other unretired key of its algorithm at `time`, in one
    /// transaction, so that exactly one key of each algorithm signs at any moment.
    public func addSigningKey(_ key: SigningKeyRecord, at time: Date) async throws {
        try StoredText.requireStorable(key.keyID, in: "addSigningKey")
        try database.write { db in
            try Self.insert(key, db)
            try db.execute(
                "UPDATE signing_keys SET retired_at = ? WHERE retired_at IS NULL AND key_id <> ? AND algorithm = ?",
                [time.databaseSeconds, key.keyID, key.algorithm.rawValue]
            )
        }
    }

    /// Adds the key unless an unretired key of its algorithm exists, deciding and inserting
    /// in one immediate transaction, so that processes starting together on a new file
    /// create one key of each.
    public func addFirstSigningKey(_ key: SigningKeyRecord) async throws -> Bool {
        try StoredText.requireStorable(key.keyID, in: "addFirstSigningKey")
        return try database.write { db in
            guard try db.row("SELECT 1 FROM signing_keys WHERE retired_at IS NULL AND algorithm = ?", [key.algorithm.rawValue]) == nil else { return false }
            try Self.insert(key.retired(at: nil), db)
            return true
        }
    }

    private static func insert(_ key: SigningKeyRecord, _ db: SQLiteConnection) throws {
        try db.execute(
            "INSERT INTO signing_keys (key_id, private_key, created_at, retired_at, algorithm) VALUES (?, ?, ?, ?, ?)",
            [key.keyID, key.privateKey, key.createdAt.databaseSeconds, key.retiredAt?.databaseSeconds, key.algorithm.rawValue]
        )
    }

    /// Replaces a key's private key while it is still `current`.
    public func replaceSigningKeyMaterial(keyID: String, with privateKey: [UInt8], replacing current: [UInt8]) async throws -> Bool {
        guard StoredText.canMatch(keyID) else { return false }
        return try database.write { db in
            try db.execute("UPDATE signing_keys SET private_key = ? WHERE key_id = ? AND private_key = ?", [privateKey, keyID, current]) > 0
        }
    }
}
