public import Foundation
public import IdentityCore

extension SQLiteStorage {
    /// Makes these the subscriptions the audit trail's trigger writes deliveries for. The
    /// trigger exists only while there are any, as on PostgreSQL: an audit event (every
    /// login writes one) pays nothing for webhooks nobody configured.
    public func replaceWebhookSubscriptions(_ subscriptions: [String: Set<AuditEvent.Kind>]) async throws {
        try database.write { db in
            // The Shared Signals streams' subscriptions are theirs to change (saveSignalStream).
            try db.execute("DELETE FROM webhook_subscriptions WHERE substr(endpoint_id, 1, 4) <> ?", [SignalStream.endpointPrefix])
            for (endpoint, kinds) in subscriptions {
                for kind in kinds { try db.execute("INSERT INTO webhook_subscriptions (kind, endpoint_id) VALUES (?, ?)", [kind.rawValue, endpoint]) }
            }
            try Self.setWebhookTrigger(db)
        }
    }

    /// Creates the audit trail's trigger while anything subscribes, and drops it otherwise.
    static func setWebhookTrigger(_ db: SQLiteConnection) throws {
        try db.executeScript("DROP TRIGGER IF EXISTS audit_events_webhooks")
        if try db.row("SELECT 1 FROM webhook_subscriptions LIMIT 1") != nil { try db.executeScript(webhookTrigger) }
    }

    /// Writes a delivery per subscribed endpoint that is on, in the audit event's transaction.
    static let webhookTrigger = """
        CREATE TRIGGER audit_events_webhooks AFTER INSERT ON audit_events
        WHEN EXISTS (SELECT 1 FROM webhook_subscriptions WHERE kind = NEW.kind)
        BEGIN
            INSERT OR IGNORE INTO webhook_deliveries (id, endpoint_id, event_id, next_attempt_at, created_at)
            SELECT 'msg_' || NEW.id || '_' || s.endpoint_id, s.endpoint_id, NEW.id, NEW.time, NEW.time
            FROM webhook_subscriptions s
            WHERE s.kind = NEW.kind AND NOT EXISTS (SELECT 1 FROM webhook_endpoints_off o WHERE o.endpoint_id = s.endpoint_id);
        END;
        """

    /// Claims due deliveries of endpoints that are on, leasing them until `leaseUntil`.
    public func claimWebhookDeliveries(dueAt time: Date, leaseUntil: Date, limit: Int) async throws -> [WebhookDelivery] {
        try database.write { db in
            let ids = try db.rows(
                """
                UPDATE webhook_deliveries SET attempts = attempts + 1, next_attempt_at = ?
                WHERE position IN (
                    SELECT position FROM webhook_deliveries d WHERE status = 'pending' AND next_attempt_at <= ?
                        AND NOT EXISTS (SELECT 1 FROM webhook_endpoints_off o WHERE o.endpoint_id = d.endpoint_id)
                        AND substr(d.endpoint_id, 1, 4) <> ?
                    ORDER BY next_attempt_at LIMIT ?
                ) RETURNING position
                """, [leaseUntil.databaseSeconds, time.databaseSeconds, SignalStream.endpointPrefix, Int64(max(0, limit))]
            ).map { try $0.integer("position") }
            return try ids.compactMap { position in
                try db.row(Self.deliveryQuery + " WHERE d.position = ?", [position]).map(WebhookDelivery.init(stored:))
            }
        }
    }

    /// Records how an attempt ended.
    public func finishWebhookDelivery(id: String, outcome: WebhookAttemptOutcome, at time: Date) async throws {
        try database.write { db in try Self.finishAttempt(in: "webhook_deliveries", where: "id", is: id, outcome: outcome, at: time, db) }
    }

    /// Deletes at most `limit` finished entries (delivered or given up) of an outbox written
    /// before `time`, in one bounded statement. A negative limit deletes none: SQLite would
    /// read it as no limit at all.
    func purgeFinished(in table: String, key column: String, before time: Date, limit: Int) throws -> Int {
        try database.write { db in
            try db.execute(
                "DELETE FROM \(table) WHERE \(column) IN (SELECT \(column) FROM \(table) WHERE status <> 'pending' AND created_at < ? LIMIT ?)",
                [time.databaseSeconds, Int64(max(0, limit))]
            )
        }
    }

    /// Records how an attempt at an outbox entry (a webhook delivery, a logout notice) ended.
    static func finishAttempt(in table: String, where column: String, is key: any SQLiteBindable, outcome: WebhookAttemptOutcome, at time: Date, _ db: SQLiteConnection) throws {
        let stored = outcome.stored
        _ = try db.execute(
            """
            UPDATE \(table) SET status = ?, next_attempt_at = coalesce(?, next_attempt_at), last_status = ?, last_error = ?,
                delivered_at = CASE WHEN ? = 'delivered' THEN ? END
            WHERE \(column) = ?
            """,
            [stored.status.rawValue, stored.retryAt?.databaseSeconds, stored.lastStatus.map(String.init), stored.error, stored.status.rawValue, time.databaseSeconds, key]
        )
    }

    /// Turns an endpoint off; its pending deliveries fail.
    public func disableWebhookEndpoint(id: String, reason: String, at time: Date) async throws {
        try database.write { db in
            try db.execute("INSERT OR IGNORE INTO webhook_endpoints_off (endpoint_id, reason, disabled_at) VALUES (?, ?, ?)", [id, StoredText.sanitized(reason), time.databaseSeconds])
            try db.execute(
                "UPDATE webhook_deliveries SET status = 'failed', last_error = coalesce(last_error, 'endpoint turned off') WHERE endpoint_id = ? AND status = 'pending'", [id]
            )
        }
    }

    /// Turns an endpoint on again.
    public func enableWebhookEndpoint(id: String) async throws -> Bool {
        guard StoredText.canMatch(id) else { return false }
        return try database.write { db in try db.execute("DELETE FROM webhook_endpoints_off WHERE endpoint_id = ?", [id]) > 0 }
    }

    /// The endpoints that are off, with why.
    public func disabledWebhookEndpoints() async throws -> [String: String] {
        try database.read { db in
            Dictionary(try db.rows("SELECT endpoint_id, reason FROM webhook_endpoints_off").map { (try $0.text("endpoint_id"), try $0.text("reason")) }) { first, _ in first }
        }
    }

    /// Webhook deliveries (not the Shared Signals streams'), newest first.
    public func webhookDeliveries(status: WebhookDeliveryStatus?, before: Int64?, limit: Int) async throws -> [WebhookDelivery] {
        guard limit > 0 else { return [] }
        return try database.read { db in
            try db.rows(
                Self.deliveryQuery
                    + " WHERE (? IS NULL OR d.status = ?) AND (? IS NULL OR d.position < ?) AND substr(d.endpoint_id, 1, 4) <> ? ORDER BY d.position DESC LIMIT ?",
                [status?.rawValue, status?.rawValue, before, before, SignalStream.endpointPrefix, Int64(limit)]
            ).map(WebhookDelivery.init(stored:))
        }
    }

    /// Makes a webhook delivery due now again.
    public func resendWebhookDelivery(id: String, at time: Date) async throws -> WebhookDelivery? {
        guard StoredText.canMatch(id), !WebhookDelivery.isSignal(id: id) else { return nil }
        return try database.write { db in
            try db.execute(
                "UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = ?, delivered_at = NULL WHERE id = ?", [time.databaseSeconds, id]
            )
            return try db.row(Self.deliveryQuery + " WHERE d.id = ?", [id]).map(WebhookDelivery.init(stored:))
        }
    }

    /// Deletes finished deliveries written before `time`.
    public func purgeWebhookDeliveries(before time: Date, limit: Int) async throws -> Int {
        try purgeFinished(in: "webhook_deliveries", key: "position", before: time, limit: limit)
    }

    /// A delivery with its event's columns under `e_`.
    static let deliveryQuery = "SELECT d.*, \(AuditEvent.prefixedColumns) FROM webhook_deliveries d JOIN audit_events e ON e.id = d.event_id"
}
