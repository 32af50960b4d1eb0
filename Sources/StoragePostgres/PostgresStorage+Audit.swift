public import Foundation
public import IdentityCore
import PostgresNIO

extension PostgresStorage {
    /// Records an event. Its text is kept whatever it contains, with U+0000 replaced: an
    /// audit record must not fail because of what an attacker sent.
    public func record(_ event: AuditEvent) async throws {
        try await autocommit { db in _ = try await self.record([event], db) }
        securityEvents.announce(event)
    }

    /// Records events inside the caller's transaction, in one statement.
    /// - Returns: Their IDs, in order, when `returningIDs`; otherwise none.
    @discardableResult
    func record(_ events: [AuditEvent], _ db: PostgresConnection, returningIDs: Bool = false) async throws -> [Int64] {
        guard !events.isEmpty else { return [] }
        var bindings = PostgresBindings(capacity: events.count * 10)
        var rows: [String] = []
        for (index, event) in events.enumerated() {
            let first = index * 10 + 1
            rows.append("(" + (first..<first + 10).map { "$\($0)" }.joined(separator: ", ") + ")")
            bindings.appendColumns(of: event)
            bindings.append(event.actor.map(StoredText.sanitized))
            bindings.append(event.origin?.ip.map(StoredText.sanitized))
            bindings.append(event.origin?.userAgent.map(StoredText.sanitized))
            bindings.append(event.origin?.face)
        }
        let sql = "INSERT INTO audit_events (time, kind, user_id, client_id, credential_id, detail, actor, ip, user_agent, face) VALUES "
            + rows.joined(separator: ", ") + (returningIDs ? " RETURNING id" : "")
        let inserted = try await db.rows(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger)
        return returningIDs ? try inserted.map { try $0.integer("id") } : []
    }

    /// Deletes the oldest events before `time`, at most `limit` in one statement. Oldest by
    /// insertion: the index by time is a block-range one (migration v9), which cannot give
    /// rows in order, and a long backlog is found in order of the primary key.
    public func purgeAuditEvents(before time: Date, limit: Int) async throws -> Int {
        try await autocommit { db in
            try await db.rows(
                """
                DELETE FROM audit_events WHERE id IN (
                    SELECT id FROM audit_events WHERE time < \(time.seconds) ORDER BY id LIMIT \(Int64(max(0, limit)))
                ) RETURNING 1
                """, logger: self.logger
            ).count
        }
    }

    /// The most recent events, newest first (by time, then by insertion), optionally for one user.
    public func events(userID: UserID?, limit: Int) async throws -> [AuditEvent] {
        guard limit > 0, !StoredText.containsNUL([userID?.rawValue]) else { return [] }
        return try await autocommit { db in
            let rows: [PostgresRandomAccessRow]
            if let userID {
                rows = try await db.rows(
                    "SELECT * FROM audit_events WHERE user_id = \(userID.rawValue) ORDER BY time DESC, id DESC LIMIT \(Int64(limit))", logger: self.logger)
            } else {
                rows = try await db.rows("SELECT * FROM audit_events ORDER BY time DESC, id DESC LIMIT \(Int64(limit))", logger: self.logger)
            }
            return try rows.map { try AuditEvent(stored: $0) }
        }
    }
}
