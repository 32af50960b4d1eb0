public import Foundation
public import IdentityCore
import PostgresNIO

extension PostgresStorage {
    /// Makes these the subscriptions the audit trail's trigger writes deliveries for, and
    /// turns the trigger on only while anything subscribes (a webhook or a Shared Signals
    /// stream). Every instance should have the same `webhooks:` configuration: the last to
    /// start decides.
    public func replaceWebhookSubscriptions(_ subscriptions: [String: Set<AuditEvent.Kind>]) async throws {
        let pairs = subscriptions.flatMap { endpoint, kinds in kinds.map { (endpoint, $0.rawValue) } }
        let prefix = SignalStream.endpointPrefix
        try await transaction { db in
            try await self.lockWebhookSubscriptions(db)
            // The Shared Signals streams' subscriptions are theirs to change (saveSignalStream).
            // A prefix compared exactly: LIKE would read an ID's `_` as a wildcard.
            _ = try await db.rows("DELETE FROM webhook_subscriptions WHERE left(endpoint_id, length(\(prefix))) <> \(prefix)", logger: self.logger)
            for (endpoint, kind) in pairs {
                _ = try await db.rows(
                    "INSERT INTO webhook_subscriptions (kind, endpoint_id) VALUES (\(kind), \(endpoint)) ON CONFLICT DO NOTHING", logger: self.logger)
            }
            try await self.setWebhookTrigger(db)
        }
    }

    /// Makes writers of the subscriptions (instances starting together, streams being saved
    /// or deleted) take turns until the transaction ends, so that each decides the trigger's
    /// state from what the one before it committed.
    func lockWebhookSubscriptions(_ db: PostgresConnection) async throws {
        _ = try await db.rows("SELECT pg_advisory_xact_lock(hashtext('latchkey_webhook_subscriptions'))", logger: logger)
    }

    /// Turns the audit trail's trigger on while any subscription row remains, and off
    /// otherwise. Call it in the transaction that changed the subscriptions, under
    /// ``lockWebhookSubscriptions(_:)``.
    func setWebhookTrigger(_ db: PostgresConnection) async throws {
        let wanted = try await db.row("SELECT EXISTS (SELECT 1 FROM webhook_subscriptions) AS wanted", logger: logger)?.bool("wanted") ?? false
        let enabled = try await db.row(
            "SELECT tgenabled <> 'D' AS enabled FROM pg_trigger WHERE tgname = 'audit_events_webhooks' AND tgrelid = 'audit_events'::regclass",
            logger: logger)?.bool("enabled") ?? false
        // Changed only when it must: ALTER TABLE waits for the table's other users.
        if enabled != wanted {
            let state = wanted ? "ENABLE" : "DISABLE"
            _ = try await db.rows(PostgresQuery(unsafeSQL: "ALTER TABLE audit_events \(state) TRIGGER audit_events_webhooks"), logger: logger)
        }
    }

    /// Claims due deliveries of endpoints that are on, leasing them until `leaseUntil`: one
    /// statement, `FOR UPDATE SKIP LOCKED`, so that senders on several instances never take
    /// the same delivery. The Shared Signals streams' deliveries (`ssf:` endpoints) are
    /// their sender's (``claimSignalDeliveries(streams:dueAt:leaseUntil:limit:)``).
    public func claimWebhookDeliveries(dueAt time: Date, leaseUntil: Date, limit: Int) async throws -> [WebhookDelivery] {
        try await autocommit { db in
            try await db.rows(
                """
                WITH claimed AS (
                    UPDATE webhook_deliveries SET attempts = attempts + 1, next_attempt_at = \(leaseUntil.seconds)
                    WHERE position IN (
                        SELECT position FROM webhook_deliveries d WHERE status = 'pending' AND next_attempt_at <= \(time.seconds)
                            AND NOT EXISTS (SELECT 1 FROM webhook_endpoints_off o WHERE o.endpoint_id = d.endpoint_id)
                            AND left(d.endpoint_id, length(\(SignalStream.endpointPrefix))) <> \(SignalStream.endpointPrefix)
                        ORDER BY next_attempt_at LIMIT \(Int64(max(0, limit))) FOR UPDATE SKIP LOCKED
                    )
                    RETURNING *
                )
                SELECT d.*, \(unescaped: AuditEvent.prefixedColumns) FROM claimed d JOIN audit_events e ON e.id = d.event_id
                """, logger: self.logger
            ).map(WebhookDelivery.init(stored:))
        }
    }

    /// Records how an attempt ended.
    public func finishWebhookDelivery(id: String, outcome: WebhookAttemptOutcome, at time: Date) async throws {
        guard !StoredText.containsNUL([id]) else { return }
        try await finishAttempt(in: "webhook_deliveries", where: "id", is: id, outcome: outcome, at: time)
    }

    /// Records how an attempt at an outbox entry (a webhook delivery, a logout notice) ended.
    func finishAttempt<Key: PostgresEncodable & Sendable>(in table: String, where column: String, is key: Key, outcome: WebhookAttemptOutcome, at time: Date) async throws {
        let stored = outcome.stored
        _ = try await autocommit { db in
            try await db.rows(
                """
                UPDATE \(unescaped: table) SET status = \(stored.status.rawValue), next_attempt_at = coalesce(\(stored.retryAt?.seconds), next_attempt_at),
                    last_status = \(stored.lastStatus.map(String.init)), last_error = \(stored.error.map(StoredText.sanitized)),
                    delivered_at = CASE WHEN \(stored.status.rawValue) = 'delivered' THEN \(time.seconds) END
                WHERE \(unescaped: column) = \(key)
                """, logger: self.logger)
        }
    }

    /// Deletes at most `limit` finished entries (delivered or given up) of an outbox written
    /// before `time`: one bounded statement, so that a purge never holds a large table long.
    func purgeFinished(in table: String, key column: String, before time: Date, limit: Int) async throws -> Int {
        try await autocommit { db in
            try await db.rows(
                """
                DELETE FROM \(unescaped: table) WHERE \(unescaped: column) IN (
                    SELECT \(unescaped: column) FROM \(unescaped: table) WHERE status <> 'pending' AND created_at < \(time.seconds) LIMIT \(Int64(max(0, limit)))
                ) RETURNING 1
                """, logger: self.logger
            ).count
        }
    }

    /// Turns an endpoint off; its pending deliveries fail.
    public func disableWebhookEndpoint(id: String, reason: String, at time: Date) async throws {
        try await transaction { db in
            _ = try await db.rows(
                """
                INSERT INTO webhook_endpoints_off (endpoint_id, reason, disabled_at) VALUES (\(id), \(StoredText.sanitized(reason)), \(time.seconds))
                ON CONFLICT DO NOTHING
                """, logger: self.logger)
            _ = try await db.rows(
                """
                UPDATE webhook_deliveries SET status = 'failed', last_error = coalesce(last_error, 'endpoint turned off')
                WHERE endpoint_id = \(id) AND status = 'pending'
                """, logger: self.logger)
        }
    }

    /// Turns an endpoint on again.
    public func enableWebhookEndpoint(id: String) async throws -> Bool {
        guard !StoredText.containsNUL([id]) else { return false }
        return try await autocommit { db in
            try await !db.rows("DELETE FROM webhook_endpoints_off WHERE endpoint_id = \(id) RETURNING 1", logger: self.logger).isEmpty
        }
    }

    /// The endpoints that are off, with why.
    public func disabledWebhookEndpoints() async throws -> [String: String] {
        try await autocommit { db in
            Dictionary(
                try await db.rows("SELECT endpoint_id, reason FROM webhook_endpoints_off", logger: self.logger).map { (try $0.text("endpoint_id"), try $0.text("reason")) }
            ) { first, _ in first }
        }
    }

    /// Webhook deliveries (not the Shared Signals streams'), newest first.
    public func webhookDeliveries(status: WebhookDeliveryStatus?, before: Int64?, limit: Int) async throws -> [WebhookDelivery] {
        guard limit > 0 else { return [] }
        return try await autocommit { db in
            try await db.rows(
                """
                SELECT d.*, \(unescaped: AuditEvent.prefixedColumns) FROM webhook_deliveries d JOIN audit_events e ON e.id = d.event_id
                WHERE (\(status?.rawValue)::text IS NULL OR d.status = \(status?.rawValue)) AND (\(before)::bigint IS NULL OR d.position < \(before))
                    AND left(d.endpoint_id, length(\(SignalStream.endpointPrefix))) <> \(SignalStream.endpointPrefix)
                ORDER BY d.position DESC LIMIT \(Int64(limit))
                """, logger: self.logger
            ).map(WebhookDelivery.init(stored:))
        }
    }

    /// Makes a webhook delivery due now again.
    public func resendWebhookDelivery(id: String, at time: Date) async throws -> WebhookDelivery? {
        guard !StoredText.containsNUL([id]), !WebhookDelivery.isSignal(id: id) else { return nil }
        return try await autocommit { db in
            try await db.row(
                """
                WITH again AS (
                    UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = \(time.seconds), delivered_at = NULL
                    WHERE id = \(id) RETURNING *
                )
                SELECT d.*, \(unescaped: AuditEvent.prefixedColumns) FROM again d JOIN audit_events e ON e.id = d.event_id
                """, logger: self.logger
            ).map(WebhookDelivery.init(stored:))
        }
    }

    /// Deletes finished deliveries written before `time`.
    public func purgeWebhookDeliveries(before time: Date, limit: Int) async throws -> Int {
        try await purgeFinished(in: "webhook_deliveries", key: "position", before: time, limit: limit)
    }
}
