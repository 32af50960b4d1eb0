public import Foundation
public import IdentityCore
import PostgresNIO

extension PostgresStorage {
    /// Stores a new flow.
    public func saveFlow(_ flow: InteractiveFlow) async throws {
        try StoredText.requireStorable(flow.id, flow.ceremonyID, flow.requestURL, flow.userID?.rawValue, flow.csrfToken, in: "saveFlow")
        try await autocommit { db in
            _ = try await db.rows(
                """
                INSERT INTO interactive_flows
                    (id, kind, is_browser, ceremony_id, options, user_id, csrf_token, request_url, issued_at, expires_at, completed_at)
                VALUES (\(flow.id), \(flow.kind.rawValue), \(flow.isBrowser), \(flow.ceremonyID), \(flow.options.bytea), \(flow.userID?.rawValue),
                    \(flow.csrfToken), \(flow.requestURL), \(flow.issuedAt.seconds), \(flow.expiresAt.seconds), \(flow.completedAt?.seconds))
                """, logger: self.logger)
        }
    }

    /// The flow with this ID, whatever its state.
    public func flow(id: String) async throws -> InteractiveFlow? {
        guard !StoredText.containsNUL([id]) else { return nil }
        return try await autocommit { db in
            guard let row = try await db.row("SELECT * FROM interactive_flows WHERE id = \(id)", logger: self.logger) else { return nil }
            return try InteractiveFlow(stored: row)
        }
    }

    /// Gives an uncompleted flow a new ceremony and options.
    public func renewFlow(id: String, ceremonyID: String, options: [UInt8]) async throws -> Bool {
        try StoredText.requireStorable(ceremonyID, in: "renewFlow")
        guard !StoredText.containsNUL([id]) else { return false }
        return try await autocommit { db in
            try await db.rows(
                "UPDATE interactive_flows SET ceremony_id = \(ceremonyID), options = \(options.bytea) WHERE id = \(id) AND completed_at IS NULL RETURNING 1",
                logger: self.logger
            ).count == 1
        }
    }

    /// Marks a flow completed: one conditional update, so only the first call, on any
    /// instance, succeeds.
    public func completeFlow(id: String, at time: Date) async throws -> Bool {
        guard !StoredText.containsNUL([id]) else { return false }
        return try await autocommit { db in
            try await db.rows(
                "UPDATE interactive_flows SET completed_at = \(time.seconds) WHERE id = \(id) AND completed_at IS NULL RETURNING 1", logger: self.logger
            ).count == 1
        }
    }

    /// Deletes flows that expired before `time`.
    public func purgeFlows(expiredBefore time: Date) async throws -> Int {
        try await autocommit { db in
            try await db.rows("DELETE FROM interactive_flows WHERE expires_at < \(time.seconds) RETURNING 1", logger: self.logger).count
        }
    }
}
