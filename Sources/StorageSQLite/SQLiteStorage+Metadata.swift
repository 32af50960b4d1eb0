import Foundation
public import IdentityCore
public import WebAuthn

extension SQLiteStorage {
    public func metadataBLOB() async throws -> StoredMetadataBLOB? {
        try database.read { db in
            try db.row("SELECT number, blob, stored_at FROM metadata_blob WHERE id = 1").map { row in
                StoredMetadataBLOB(number: Int(try row.integer("number")), bytes: try row.bytes("blob"), storedAt: try row.date("stored_at"))
            }
        }
    }

    public func metadataBLOBNumber() async throws -> Int? {
        try database.read { db in
            try db.row("SELECT number FROM metadata_blob WHERE id = 1").map { Int(try $0.integer("number")) }
        }
    }

    /// Compares and writes in one transaction, so that two instances storing different
    /// BLOBs at once end with the higher serial number.
    public func saveMetadataBLOB(_ blob: StoredMetadataBLOB) async throws -> MetadataBLOBSave {
        try database.write { db in
            if let stored = try db.row("SELECT number FROM metadata_blob WHERE id = 1")?.integer("number") {
                if stored > Int64(blob.number) { return .older(stored: Int(stored)) }
                if stored == Int64(blob.number) { return .unchanged }
            }
            try db.execute(
                """
                INSERT INTO metadata_blob (id, number, blob, stored_at) VALUES (1, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET number = excluded.number, blob = excluded.blob, stored_at = excluded.stored_at
                """,
                [Int64(blob.number), blob.bytes, blob.storedAt.databaseSeconds]
            )
            return .stored
        }
    }

    public func credentials(aaguids: Set<AAGUID>) async throws -> [PasskeyCredential] {
        guard !aaguids.isEmpty else { return [] }
        let values = aaguids.map(\.uuidString).sorted()
        let placeholders = Array(repeating: "?", count: values.count).joined(separator: ", ")
        return try database.read { db in
            try db.rows("SELECT * FROM credentials WHERE aaguid IN (\(placeholders)) ORDER BY created_at, rowid", values)
                .map(PasskeyCredential.init(stored:))
        }
    }
}
