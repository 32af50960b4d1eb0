public import Foundation
public import IdentityCore

extension SQLiteStorage {
    /// Stores a new flow.
    public func saveFlow(_ flow: InteractiveFlow) async throws {
        for text in [flow.id, flow.ceremonyID, flow.requestURL] + [flow.userID?.rawValue, flow.csrfToken].compactMap({ $0 }) {
            try StoredText.requireStorable(text, in: "saveFlow")
        }
        try database.write { db in
            try db.execute("""
                    INSERT INTO interactive_flows
                        (id, kind, is_browser, ceremony_id, options, user_id, csrf_token, request_url, issued_at, expires_at, completed_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, [
                    flow.id, flow.kind.rawValue, flow.isBrowser, flow.ceremonyID, flow.options, flow.userID?.rawValue,
                    flow.csrfToken, flow.requestURL, flow.issuedAt.databaseSeconds, flow.expiresAt.databaseSeconds,
                    flow.completedAt?.databaseSeconds,
                ])
        }
    }

    /// The flow with this ID, whatever its state.
    public func flow(id: String) async throws -> InteractiveFlow? {
        try database.read { db in
            guard let row = try db.row("SELECT * FROM interactive_flows WHERE id = ?", [id]) else { return nil }
            return try InteractiveFlow(stored: row)
        }
    }

    /// Gives an uncompleted flow a new ceremony and options.
    public func renewFlow(id: String, ceremonyID: String, options: [UInt8]) async throws -> Bool {
        try StoredText.requireStorable(ceremonyID, in: "renewFlow")
        return try database.write { db in
            try db.execute("UPDATE interactive_flows SET ceremony_id = ?, options = ? WHERE id = ? AND completed_at IS NULL", [ceremonyID, options, id]) == 1
        }
    }

    /// Marks a flow completed; only the first call succeeds.
    public func completeFlow(id: String, at time: Date) async throws -> Bool {
        try database.write { db in
            try db.execute("UPDATE interactive_flows SET completed_at = ? WHERE id = ? AND completed_at IS NULL", [time.databaseSeconds, id]) == 1
        }
    }

    /// Deletes flows that expired before `time`.
    public func purgeFlows(expiredBefore time: Date) async throws -> Int {
        try database.write { db in
            try db.execute("DELETE FROM interactive_flows WHERE expires_at < ?", [time.databaseSeconds])
        }
    }
}
