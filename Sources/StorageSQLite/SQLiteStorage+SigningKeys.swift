public import Foundation
public import IdentityCore

extension SQLiteStorage {
    /// Every stored key, newest first (by creation time, then by insertion).
    public func signingKeys() async throws -> [SigningKeyRecord] {
        try database.read { db in
            try db.rows("SELECT * FROM signing_keys ORDER BY created_at DESC, rowid DESC").map { row in
                SigningKeyRecord(
                    keyID: try row.text("key_id"),
                    privateKey: try row.bytes("private_key"),
                    createdAt: try row.date("created_at"),
                    retiredAt: try row.optionalDate("retired_at")
                )
            }
        }
    }

    /// Adds a key and retires every other unretired key at `time`, in one transaction, so
    /// that exactly one key signs at any moment.
    public func addSigningKey(_ key: SigningKeyRecord, at time: Date) async throws {
        try StoredText.requireStorable(key.keyID, in: "addSigningKey")
        try database.write { db in
            try db.execute("INSERT INTO signing_keys (key_id, private_key, created_at, retired_at) VALUES (?, ?, ?, ?)", [key.keyID, key.privateKey, key.createdAt.databaseSeconds, key.retiredAt?.databaseSeconds])
            try db.execute("UPDATE signing_keys SET retired_at = ? WHERE retired_at IS NULL AND key_id <> ?", [time.databaseSeconds, key.keyID])
        }
    }

    /// Adds the key unless an unretired key exists, deciding and inserting in one immediate
    /// transaction, so that processes starting together on a new file create one key.
    public func addFirstSigningKey(_ key: SigningKeyRecord) async throws -> Bool {
        try StoredText.requireStorable(key.keyID, in: "addFirstSigningKey")
        return try database.write { db in
            guard try db.row("SELECT 1 FROM signing_keys WHERE retired_at IS NULL") == nil else { return false }
            try db.execute("INSERT INTO signing_keys (key_id, private_key, created_at, retired_at) VALUES (?, ?, ?, NULL)", [key.keyID, key.privateKey, key.createdAt.databaseSeconds])
            return true
        }
    }

    /// Replaces a key's private key while it is still `current`.
    public func replaceSigningKeyMaterial(keyID: String, with privateKey: [UInt8], replacing current: [UInt8]) async throws -> Bool {
        guard StoredText.canMatch(keyID) else { return false }
        return try database.write { db in
            try db.execute("UPDATE signing_keys SET private_key = ? WHERE key_id = ? AND private_key = ?", [privateKey, keyID, current]) > 0
        }
    }
}
