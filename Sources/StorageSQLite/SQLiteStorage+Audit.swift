public import Foundation
public import IdentityCore

extension SQLiteStorage {
    /// Records an event. Its text is kept whatever it contains, with U+0000 replaced (see
    /// `StoredText`): an audit record must not fail because of what an attacker sent.
    public func record(_ event: AuditEvent) async throws {
        try database.write { db in try Self.record(event, db) }
        securityEvents.announce(event)
    }

    /// Records an event inside the caller's transaction.
    static func record(_ event: AuditEvent, _ db: SQLiteConnection) throws {
        try db.execute(insertEvent, values(of: event))
    }

    /// Records an event inside the caller's transaction and returns its position.
    static func recordReturningID(_ event: AuditEvent, _ db: SQLiteConnection) throws -> Int64 {
        guard let row = try db.row(insertEvent + " RETURNING id", values(of: event)) else { throw SQLiteStorageError(.invalidArgument, "the event was not recorded") }
        return try row.integer("id")
    }

    private static let insertEvent =
        "INSERT INTO audit_events (time, kind, user_id, client_id, credential_id, detail, actor, ip, user_agent, face) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"

    private static func values(of event: AuditEvent) -> [any SQLiteBindable] {
        [
            event.time.databaseSeconds, event.kind.rawValue, event.userID.map { StoredText.sanitized($0.rawValue) },
            event.clientID.map(StoredText.sanitized), event.credentialID.map(StoredText.sanitized),
            StoredText.sanitized(event.detail), event.actor.map(StoredText.sanitized), event.origin?.ip.map(StoredText.sanitized),
            event.origin?.userAgent.map(StoredText.sanitized), event.origin?.face,
        ]
    }

    /// Deletes the oldest events before `time`, at most `limit` in one short transaction.
    public func purgeAuditEvents(before time: Date, limit: Int) async throws -> Int {
        try database.write { db in
            try db.execute(
                "DELETE FROM audit_events WHERE id IN (SELECT id FROM audit_events WHERE time < ? ORDER BY time LIMIT ?)",
                [time.databaseSeconds, Int64(max(0, limit))]
            )
        }
    }

    /// The most recent events, newest first (by time, then by insertion), optionally for one
    /// user. A `limit` of zero or less returns nothing.
    public func events(userID: UserID?, limit: Int) async throws -> [AuditEvent] {
        guard limit > 0, StoredText.canMatch(userID?.rawValue) else { return [] }
        return try database.read { db in
            let rows: [SQLiteRow]
            if let userID {
                rows = try db.rows("SELECT * FROM audit_events WHERE user_id = ? ORDER BY time DESC, id DESC LIMIT ?", [userID.rawValue, limit])
            } else {
                rows = try db.rows("SELECT * FROM audit_events ORDER BY time DESC, id DESC LIMIT ?", [limit])
            }
            return try rows.map { try AuditEvent(stored: $0) }
        }
    }

    /// Returns up to `pages` free pages to the file system (`PRAGMA incremental_vacuum`), in
    /// one short write, so that the file shrinks after purges without a long lock. Does
    /// nothing on a file created before incremental vacuuming was turned on.
    /// - Returns: The file's free pages left.
    @discardableResult
    public func reclaimSpace(pages: Int) async throws -> Int {
        try database.withWriter { db in
            try db.executeScript("PRAGMA incremental_vacuum(\(max(0, pages)))")
            return Int(try db.row("PRAGMA freelist_count")?.integer("freelist_count") ?? 0)
        }
    }
}
