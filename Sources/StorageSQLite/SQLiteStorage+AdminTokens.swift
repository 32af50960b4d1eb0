public import Foundation
import GRDB
public import IdentityCore

extension SQLiteStorage {
    /// Stores a newly issued administration token.
    public func saveAdminToken(_ token: AdminToken) async throws {
        try TextBinding.requireStorable(token.applicationID, in: "saveAdminToken")
        try await writer.write { db in
            try db.executeCached(
                sql: "INSERT INTO admin_tokens (token_hash, application_id, created_at, expires_at) VALUES (?, ?, ?, ?)",
                arguments: [token.tokenHash.databaseBlob, token.applicationID, token.createdAt.databaseSeconds, token.expiresAt.databaseSeconds]
            )
        }
    }

    /// The token with this hash, if it has not expired at `time`.
    public func adminToken(hash: [UInt8], at time: Date) async throws -> AdminToken? {
        try await writer.read { db in
            try Row.fetchOneCached(
                db, sql: "SELECT * FROM admin_tokens WHERE token_hash = ? AND expires_at > ?", arguments: [hash.databaseBlob, time.databaseSeconds]
            ).map { row in
                AdminToken(
                    tokenHash: try row.bytes("token_hash"), applicationID: try row.text("application_id"),
                    createdAt: try row.date("created_at"), expiresAt: try row.date("expires_at")
                )
            }
        }
    }

    /// Deletes tokens that expired before `time`.
    public func purgeAdminTokens(expiredBefore time: Date) async throws {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM admin_tokens WHERE expires_at < ?", arguments: [time.databaseSeconds])
        }
    }
}
