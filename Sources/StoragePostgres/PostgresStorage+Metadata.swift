import Foundation
public import IdentityCore
public import WebAuthn
import PostgresNIO

extension PostgresStorage {
    public func metadataBLOB() async throws -> StoredMetadataBLOB? {
        try await autocommit { db in
            try await db.row("SELECT number, blob, stored_at FROM metadata_blob WHERE id = 1", logger: self.logger).map { row in
                StoredMetadataBLOB(number: Int(try row.integer("number")), bytes: try row.bytes("blob"), storedAt: try row.date("stored_at"))
            }
        }
    }

    public func metadataBLOBNumber() async throws -> Int? {
        try await autocommit { db in
            try await db.row("SELECT number FROM metadata_blob WHERE id = 1", logger: self.logger).map { Int(try $0.integer("number")) }
        }
    }

    /// One conditional upsert: a BLOB replaces the stored one only with a higher serial
    /// number, so two instances storing different BLOBs at once end with the higher.
    public func saveMetadataBLOB(_ blob: StoredMetadataBLOB) async throws -> MetadataBLOBSave {
        try await transaction { db in
            let stored = try await db.rows(
                """
                INSERT INTO metadata_blob (id, number, blob, stored_at) VALUES (1, \(Int64(blob.number)), \(blob.bytes.bytea), \(blob.storedAt.seconds))
                ON CONFLICT (id) DO UPDATE SET number = excluded.number, blob = excluded.blob, stored_at = excluded.stored_at
                WHERE metadata_blob.number < excluded.number
                RETURNING 1
                """, logger: self.logger)
            if !stored.isEmpty { return .stored }
            let number = try await db.row("SELECT number FROM metadata_blob WHERE id = 1", logger: self.logger)?.integer("number") ?? Int64(blob.number)
            return number > Int64(blob.number) ? .older(stored: Int(number)) : .unchanged
        }
    }

    public func credentials(aaguids: Set<AAGUID>) async throws -> [PasskeyCredential] {
        guard !aaguids.isEmpty else { return [] }
        let values = aaguids.map(\.uuidString).sorted()
        return try await autocommit { db in
            try await db.rows("SELECT * FROM credentials WHERE aaguid = ANY(\(values)) ORDER BY created_at, seq", logger: self.logger)
                .map(PasskeyCredential.init(stored:))
        }
    }
}
