public import Foundation
public import IdentityCore

extension SQLiteStorage {
    /// Makes these the clients told of their sessions' ends. The trigger exists only while
    /// there are any: a revocation pays nothing for a feature nobody configured.
    public func replaceBackchannelLogoutClients(_ clientIDs: Set<String>) async throws {
        try database.write { db in
            try db.execute("DELETE FROM backchannel_logout_clients")
            for client in clientIDs { try db.execute("INSERT INTO backchannel_logout_clients (client_id) VALUES (?)", [client]) }
            try db.executeScript("DROP TRIGGER IF EXISTS refresh_token_families_backchannel_logout")
            if !clientIDs.isEmpty { try db.executeScript(Self.backchannelLogoutTrigger) }
        }
    }

    /// Writes a notice when a session of a client that wants one is revoked, in the
    /// revocation's transaction; a session revoked twice is told once.
    static let backchannelLogoutTrigger = """
        CREATE TRIGGER refresh_token_families_backchannel_logout AFTER UPDATE OF revoked_at ON refresh_token_families
        WHEN OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL AND EXISTS (SELECT 1 FROM backchannel_logout_clients WHERE client_id = NEW.client_id)
        BEGIN
            INSERT OR IGNORE INTO backchannel_logouts (client_id, session_id, user_id, next_attempt_at, created_at)
            VALUES (NEW.client_id, NEW.id, NEW.user_id, NEW.revoked_at, NEW.revoked_at);
        END;
        """

    /// Claims due notices, leasing them until `leaseUntil`.
    public func claimBackchannelLogouts(dueAt time: Date, leaseUntil: Date, limit: Int) async throws -> [BackchannelLogout] {
        try database.write { db in
            try db.rows(
                """
                UPDATE backchannel_logouts SET attempts = attempts + 1, next_attempt_at = ?
                WHERE position IN (
                    SELECT position FROM backchannel_logouts WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at LIMIT ?
                ) RETURNING *
                """, [leaseUntil.databaseSeconds, time.databaseSeconds, Int64(max(0, limit))]
            ).map(BackchannelLogout.init(stored:))
        }
    }

    /// Records how an attempt ended.
    public func finishBackchannelLogout(position: Int64, outcome: WebhookAttemptOutcome, at time: Date) async throws {
        try database.write { db in try Self.finishAttempt(in: "backchannel_logouts", where: "position", is: position, outcome: outcome, at: time, db) }
    }

    /// Notices, newest first.
    public func backchannelLogouts(status: WebhookDeliveryStatus?, limit: Int) async throws -> [BackchannelLogout] {
        guard limit > 0 else { return [] }
        return try database.read { db in
            try db.rows(
                "SELECT * FROM backchannel_logouts WHERE (? IS NULL OR status = ?) ORDER BY position DESC LIMIT ?", [status?.rawValue, status?.rawValue, Int64(limit)]
            ).map(BackchannelLogout.init(stored:))
        }
    }

    /// Deletes finished notices written before `time`.
    public func purgeBackchannelLogouts(before time: Date, limit: Int) async throws -> Int {
        try purgeFinished(in: "backchannel_logouts", key: "position", before: time, limit: limit)
    }
}
