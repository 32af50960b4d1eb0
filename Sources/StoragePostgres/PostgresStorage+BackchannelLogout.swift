public import Foundation
public import IdentityCore
import PostgresNIO

extension PostgresStorage {
    /// Makes these the clients told of their sessions' ends, and turns the sessions' trigger
    /// on only while there are any. Every instance should have the same clients: the last to
    /// start decides.
    public func replaceBackchannelLogoutClients(_ clientIDs: Set<String>) async throws {
        try await transaction { db in
            // Instances starting together take turns.
            _ = try await db.rows("SELECT pg_advisory_xact_lock(hashtext('latchkey_backchannel_logout_clients'))", logger: self.logger)
            _ = try await db.rows("DELETE FROM backchannel_logout_clients", logger: self.logger)
            for client in clientIDs {
                _ = try await db.rows("INSERT INTO backchannel_logout_clients (client_id) VALUES (\(client)) ON CONFLICT DO NOTHING", logger: self.logger)
            }
            let enabled = try await db.row(
                """
                SELECT tgenabled <> 'D' AS enabled FROM pg_trigger
                WHERE tgname = 'refresh_token_families_backchannel_logout' AND tgrelid = 'refresh_token_families'::regclass
                """, logger: self.logger)?.bool("enabled") ?? false
            // Changed only when it must: ALTER TABLE waits for the table's other users.
            if enabled != !clientIDs.isEmpty {
                let state = clientIDs.isEmpty ? "DISABLE" : "ENABLE"
                _ = try await db.rows(
                    PostgresQuery(unsafeSQL: "ALTER TABLE refresh_token_families \(state) TRIGGER refresh_token_families_backchannel_logout"), logger: self.logger)
            }
        }
    }

    /// Claims due notices, leasing them until `leaseUntil`: one statement, `FOR UPDATE SKIP
    /// LOCKED`, so that senders on several instances never take the same one.
    public func claimBackchannelLogouts(dueAt time: Date, leaseUntil: Date, limit: Int) async throws -> [BackchannelLogout] {
        try await autocommit { db in
            try await db.rows(
                """
                UPDATE backchannel_logouts SET attempts = attempts + 1, next_attempt_at = \(leaseUntil.seconds)
                WHERE position IN (
                    SELECT position FROM backchannel_logouts WHERE status = 'pending' AND next_attempt_at <= \(time.seconds)
                    ORDER BY next_attempt_at LIMIT \(Int64(max(0, limit))) FOR UPDATE SKIP LOCKED
                )
                RETURNING *
                """, logger: self.logger
            ).map(BackchannelLogout.init(stored:))
        }
    }

    /// Records how an attempt ended.
    public func finishBackchannelLogout(position: Int64, outcome: WebhookAttemptOutcome, at time: Date) async throws {
        try await finishAttempt(in: "backchannel_logouts", where: "position", is: position, outcome: outcome, at: time)
    }

    /// Notices, newest first.
    public func backchannelLogouts(status: WebhookDeliveryStatus?, limit: Int) async throws -> [BackchannelLogout] {
        guard limit > 0 else { return [] }
        return try await autocommit { db in
            try await db.rows(
                """
                SELECT * FROM backchannel_logouts WHERE (\(status?.rawValue)::text IS NULL OR status = \(status?.rawValue))
                ORDER BY position DESC LIMIT \(Int64(limit))
                """, logger: self.logger
            ).map(BackchannelLogout.init(stored:))
        }
    }

    /// Deletes finished notices written before `time`.
    public func purgeBackchannelLogouts(before time: Date, limit: Int) async throws -> Int {
        try await purgeFinished(in: "backchannel_logouts", key: "position", before: time, limit: limit)
    }
}
