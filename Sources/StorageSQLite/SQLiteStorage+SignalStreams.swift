public import Foundation
public import IdentityCore

extension SQLiteStorage {
    /// Writes the stream and its subscriptions in one transaction (see ``SignalStreamStore``).
    public func saveSignalStream(_ stream: SignalStream) async throws {
        try database.write { db in
            try db.execute(
                "INSERT INTO signal_streams (id, document, created_at) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET document = excluded.document",
                [stream.id, StoredText.sanitized(stream.storedJSON), stream.createdAt.databaseSeconds]
            )
            let prefix = SignalStream.endpointPrefix(of: stream.id)
            let kept = stream.subscriptions
            try db.execute("DELETE FROM webhook_subscriptions WHERE substr(endpoint_id, 1, length(?)) = ?", [prefix, prefix])
            for (endpoint, kinds) in kept {
                for kind in kinds { try db.execute("INSERT INTO webhook_subscriptions (kind, endpoint_id) VALUES (?, ?)", [kind.rawValue, endpoint]) }
            }
            // What was waiting for an event it no longer delivers (or while disabled) goes.
            let pending = try db.rows(
                "SELECT DISTINCT endpoint_id FROM webhook_deliveries WHERE status = 'pending' AND substr(endpoint_id, 1, length(?)) = ?", [prefix, prefix]
            ).map { try $0.text("endpoint_id") }
            for endpoint in pending where kept[endpoint] == nil && !endpoint.hasSuffix(":\(SignalEventType.verification.name)") {
                try db.execute("DELETE FROM webhook_deliveries WHERE status = 'pending' AND endpoint_id = ?", [endpoint])
            }
            try Self.setWebhookTrigger(db)
        }
    }

    /// Every stream, oldest first.
    public func signalStreams() async throws -> [SignalStream] {
        try database.read { db in
            try db.rows("SELECT document FROM signal_streams ORDER BY created_at, id").map { try SignalStream(storedJSON: try $0.text("document")) }
        }
    }

    /// The stream with this ID.
    public func signalStream(id: String) async throws -> SignalStream? {
        try database.read { db in
            try db.row("SELECT document FROM signal_streams WHERE id = ?", [id]).map { try SignalStream(storedJSON: try $0.text("document")) }
        }
    }

    /// Deletes a stream, its subscriptions and its pending deliveries.
    public func deleteSignalStream(id: String) async throws -> Bool {
        try database.write { db in
            guard try db.execute("DELETE FROM signal_streams WHERE id = ?", [id]) > 0 else { return false }
            let prefix = SignalStream.endpointPrefix(of: id)
            try db.execute("DELETE FROM webhook_subscriptions WHERE substr(endpoint_id, 1, length(?)) = ?", [prefix, prefix])
            try db.execute("DELETE FROM webhook_deliveries WHERE status = 'pending' AND substr(endpoint_id, 1, length(?)) = ?", [prefix, prefix])
            try Self.setWebhookTrigger(db)
            return true
        }
    }

    /// Records the event and its one delivery together.
    public func queueSignal(_ event: AuditEvent, endpoint: String) async throws {
        try database.write { db in
            let id = try Self.recordReturningID(event, db)
            try db.execute(
                "INSERT OR IGNORE INTO webhook_deliveries (id, endpoint_id, event_id, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?)",
                [WebhookDelivery.id(event: id, endpoint: endpoint), endpoint, id, event.time.databaseSeconds, event.time.databaseSeconds]
            )
        }
        securityEvents.announce(event)
    }

    /// Claims due deliveries to the streams' endpoints.
    public func claimSignalDeliveries(streams: [String], dueAt time: Date, leaseUntil: Date, limit: Int) async throws -> [WebhookDelivery] {
        guard !streams.isEmpty else { return [] }
        return try database.write { db in
            var claimed: [WebhookDelivery] = []
            for stream in streams where claimed.count < limit {
                let prefix = SignalStream.endpointPrefix(of: stream)
                let positions = try db.rows(
                    """
                    UPDATE webhook_deliveries SET attempts = attempts + 1, next_attempt_at = ?
                    WHERE position IN (
                        SELECT position FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ?
                            AND substr(endpoint_id, 1, length(?)) = ?
                        ORDER BY position LIMIT ?
                    ) RETURNING position
                    """, [leaseUntil.databaseSeconds, time.databaseSeconds, prefix, prefix, Int64(limit - claimed.count)]
                ).map { try $0.integer("position") }
                for position in positions.sorted() {
                    if let delivery = try db.row(Self.deliveryQuery + " WHERE d.position = ?", [position]).map(WebhookDelivery.init(stored:)) {
                        claimed.append(delivery)
                    }
                }
            }
            return claimed
        }
    }

    /// The stream's pending deliveries, oldest first.
    public func pendingSignals(stream: String, limit: Int) async throws -> [WebhookDelivery] {
        let prefix = SignalStream.endpointPrefix(of: stream)
        return try database.read { db in
            try db.rows(
                Self.deliveryQuery + " WHERE d.status = 'pending' AND substr(d.endpoint_id, 1, length(?)) = ? ORDER BY d.position LIMIT ?",
                [prefix, prefix, Int64(max(0, limit))]
            ).map(WebhookDelivery.init(stored:))
        }
    }

}
