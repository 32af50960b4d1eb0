public import Foundation
public import IdentityCore
import PostgresNIO

extension PostgresStorage {
    /// Writes the stream and its subscriptions in one transaction (see ``SignalStreamStore``),
    /// under the lock that `replaceWebhookSubscriptions` takes, since both decide whether the
    /// audit trail's trigger is on.
    public func saveSignalStream(_ stream: SignalStream) async throws {
        let document = StoredText.sanitized(stream.storedJSON)
        let prefix = SignalStream.endpointPrefix(of: stream.id)
        let kept = stream.subscriptions
        let pairs = kept.flatMap { endpoint, kinds in kinds.map { (endpoint, $0.rawValue) } }
        // A verification waits for its sender whatever the stream now asks for.
        let keptEndpoints = Array(kept.keys) + [SignalEventType.verification.endpoint(stream: stream.id)]
        try await transaction { db in
            try await self.lockWebhookSubscriptions(db)
            _ = try await db.rows(
                """
                INSERT INTO signal_streams (id, document, created_at) VALUES (\(stream.id), \(document), \(stream.createdAt.seconds))
                ON CONFLICT (id) DO UPDATE SET document = excluded.document
                """, logger: self.logger)
            _ = try await db.rows("DELETE FROM webhook_subscriptions WHERE left(endpoint_id, length(\(prefix))) = \(prefix)", logger: self.logger)
            for (endpoint, kind) in pairs {
                _ = try await db.rows(
                    "INSERT INTO webhook_subscriptions (kind, endpoint_id) VALUES (\(kind), \(endpoint)) ON CONFLICT DO NOTHING", logger: self.logger)
            }
            // What was waiting for an event it no longer delivers (or while disabled) goes.
            _ = try await db.rows(
                """
                DELETE FROM webhook_deliveries
                WHERE status = 'pending' AND left(endpoint_id, length(\(prefix))) = \(prefix) AND NOT (endpoint_id = ANY(\(keptEndpoints)::text[]))
                """, logger: self.logger)
            try await self.setWebhookTrigger(db)
        }
    }

    /// Every stream, oldest first.
    public func signalStreams() async throws -> [SignalStream] {
        try await autocommit { db in
            // IDs compared as bytes, as SQLite does.
            try await db.rows("SELECT document FROM signal_streams ORDER BY created_at, id COLLATE \"C\"", logger: self.logger)
                .map { try SignalStream(storedJSON: try $0.text("document")) }
        }
    }

    /// The stream with this ID.
    public func signalStream(id: String) async throws -> SignalStream? {
        // No stored ID contains U+0000, which PostgreSQL would refuse to compare.
        guard StoredText.canMatch(id) else { return nil }
        return try await autocommit { db in
            try await db.row("SELECT document FROM signal_streams WHERE id = \(id)", logger: self.logger)
                .map { try SignalStream(storedJSON: try $0.text("document")) }
        }
    }

    /// Deletes a stream, its subscriptions and its pending deliveries.
    public func deleteSignalStream(id: String) async throws -> Bool {
        guard StoredText.canMatch(id) else { return false }
        let prefix = SignalStream.endpointPrefix(of: id)
        return try await transaction { db in
            // Taken before the stream's row, as saveSignalStream takes them: the other order
            // would deadlock with a save of the same stream.
            try await self.lockWebhookSubscriptions(db)
            guard try await !db.rows("DELETE FROM signal_streams WHERE id = \(id) RETURNING 1", logger: self.logger).isEmpty else { return false }
            _ = try await db.rows("DELETE FROM webhook_subscriptions WHERE left(endpoint_id, length(\(prefix))) = \(prefix)", logger: self.logger)
            _ = try await db.rows(
                "DELETE FROM webhook_deliveries WHERE status = 'pending' AND left(endpoint_id, length(\(prefix))) = \(prefix)", logger: self.logger)
            try await self.setWebhookTrigger(db)
            return true
        }
    }

    /// Records the event and its one delivery together. The delivery is written as the
    /// trigger writes one (`ON CONFLICT DO NOTHING`), should the trigger have written it.
    public func queueSignal(_ event: AuditEvent, endpoint: String) async throws {
        try await transaction { db in
            guard let id = try await self.record([event], db, returningIDs: true).first else {
                throw PostgresStorageError(.unreadableRow, "the event was not recorded")
            }
            _ = try await db.rows(
                """
                INSERT INTO webhook_deliveries (id, endpoint_id, event_id, next_attempt_at, created_at)
                VALUES (\(WebhookDelivery.id(event: id, endpoint: endpoint)), \(endpoint), \(id), \(event.time.seconds), \(event.time.seconds))
                ON CONFLICT DO NOTHING
                """, logger: self.logger)
        }
        securityEvents.announce(event)
    }

    /// Claims due deliveries to the streams' endpoints: one statement, `FOR UPDATE SKIP
    /// LOCKED`, so that senders on several instances never take the same delivery. An
    /// endpoint ID is exactly `ssf:<stream>:<event>`, and a stream ID has no colon, so its
    /// second part is the stream.
    public func claimSignalDeliveries(streams: [String], dueAt time: Date, leaseUntil: Date, limit: Int) async throws -> [WebhookDelivery] {
        // No stored ID contains U+0000, which PostgreSQL would refuse to compare.
        let wanted = streams.filter { StoredText.canMatch($0) }
        guard !wanted.isEmpty, limit > 0 else { return [] }
        let prefix = SignalStream.endpointPrefix
        return try await autocommit { db in
            try await db.rows(
                """
                WITH claimed AS (
                    UPDATE webhook_deliveries SET attempts = attempts + 1, next_attempt_at = \(leaseUntil.seconds)
                    WHERE position IN (
                        SELECT position FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= \(time.seconds)
                            AND left(endpoint_id, length(\(prefix))) = \(prefix) AND split_part(endpoint_id, ':', 2) = ANY(\(wanted)::text[])
                        ORDER BY position LIMIT \(Int64(limit)) FOR UPDATE SKIP LOCKED
                    )
                    RETURNING *
                )
                SELECT d.*, \(unescaped: AuditEvent.prefixedColumns) FROM claimed d JOIN audit_events e ON e.id = d.event_id ORDER BY d.position
                """, logger: self.logger
            ).map(WebhookDelivery.init(stored:))
        }
    }

    /// The stream's pending deliveries, oldest first.
    public func pendingSignals(stream: String, limit: Int) async throws -> [WebhookDelivery] {
        guard limit > 0, StoredText.canMatch(stream) else { return [] }
        let prefix = SignalStream.endpointPrefix(of: stream)
        return try await autocommit { db in
            try await db.rows(
                """
                SELECT d.*, \(unescaped: AuditEvent.prefixedColumns) FROM webhook_deliveries d JOIN audit_events e ON e.id = d.event_id
                WHERE d.status = 'pending' AND left(d.endpoint_id, length(\(prefix))) = \(prefix)
                ORDER BY d.position LIMIT \(Int64(limit))
                """, logger: self.logger
            ).map(WebhookDelivery.init(stored:))
        }
    }

}
