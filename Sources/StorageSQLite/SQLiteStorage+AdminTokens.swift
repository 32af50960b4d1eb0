public import Foundation
public import IdentityCore

extension SQLiteStorage {
    /// Stores a newly issued administration token.
    public func saveAdminToken(_ token: AdminToken) async throws {
        try StoredText.requireStorable(token.applicationID, in: "saveAdminToken")
        try database.write { db in
            try db.execute("INSERT INTO admin_tokens (token_hash, application_id, created_at, expires_at) VALUES (?, ?, ?, ?)", [token.tokenHash, token.applicationID, token.createdAt.databaseSeconds, token.expiresAt.databaseSeconds])
        }
    }

    /// The token with this hash, if it has not expired at `time`.
    public func adminToken(hash: [UInt8], at time: Date) async throws -> AdminToken? {
        try database.read { db in
            try db.row("SELECT * FROM admin_tokens WHERE token_hash = ? AND expires_at > ?", [hash, time.databaseSeconds]).map { row in
                AdminToken(
                    tokenHash: try row.bytes("token_hash"), applicationID: try row.text("application_id"),
                    createdAt: try row.date("created_at"), expiresAt: try row.date("expires_at")
                )
            }
        }
    }

    /// Deletes tokens that expired before `time`.
    public func purgeAdminTokens(expiredBefore time: Date) async throws -> Int {
        try database.write { db in
            try db.execute("DELETE FROM admin_tokens WHERE expires_at < ?", [time.databaseSeconds])
        }
    }
}
