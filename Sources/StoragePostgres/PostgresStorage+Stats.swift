public import Foundation
public import IdentityCore
import Logging
import PostgresNIO

extension PostgresStorage {
    // MARK: - Operators

    /// Makes an account an operator with `role`, or no longer one.
    public func setOperatorRole(userID: UserID, role: OperatorRole?, at time: Date) async throws -> Bool {
        guard !StoredText.containsNUL([userID.rawValue]) else { return false }
        let id = userID.rawValue
        return try await transaction { db in
            guard try await db.row("SELECT 1 FROM users WHERE id = \(id)", logger: self.logger) != nil else { return false }
            if let role {
                _ = try await db.rows(
                    """
                    INSERT INTO operators (user_id, role, since) VALUES (\(id), \(role.rawValue), \(time.seconds))
                    ON CONFLICT (user_id) DO UPDATE SET role = excluded.role, since = excluded.since WHERE operators.role <> excluded.role
                    """, logger: self.logger)
            } else {
                _ = try await db.rows("DELETE FROM operators WHERE user_id = \(id)", logger: self.logger)
            }
            return true
        }
    }

    /// The account's role in the console.
    public func operatorRole(userID: UserID) async throws -> OperatorRole? {
        guard !StoredText.containsNUL([userID.rawValue]) else { return nil }
        let id = userID.rawValue
        return try await autocommit { db in
            try await db.row("SELECT role FROM operators WHERE user_id = \(id)", logger: self.logger).flatMap { OperatorRole(rawValue: try $0.text("role")) }
        }
    }

    /// Every operator, oldest first.
    public func operators() async throws -> [Operator] {
        try await autocommit { db in
            try await db.rows("SELECT * FROM operators ORDER BY since, user_id COLLATE \"C\"", logger: self.logger).compactMap { row -> Operator? in
                guard let role = OperatorRole(rawValue: try row.text("role")) else { return nil }
                return Operator(userID: UserID(rawValue: try row.text("user_id")), role: role, since: try row.date("since"))
            }
        }
    }

    // MARK: - Rollups

    /// Audit events after `position`, oldest first.
    public func events(after position: Int64, limit: Int) async throws -> [LoggedEvent] {
        guard limit > 0 else { return [] }
        let limit = Int64(limit)
        return try await autocommit { db in
            try await db.rows("SELECT * FROM audit_events WHERE id > \(position) ORDER BY id LIMIT \(limit)", logger: self.logger).map { try LoggedEvent(stored: $0) }
        }
    }

    /// The position the rollups have reached.
    public func statsPosition() async throws -> Int64 {
        try await autocommit { db in try await db.row("SELECT position FROM stats_position WHERE id = 1", logger: self.logger)?.integer("position") ?? 0 }
    }

    /// Adds a batch and moves the position, when it is still where the batch started: one
    /// statement for the counts and one for the sign-ins, whatever the batch's size.
    public func applyStats(_ batch: StatsBatch) async throws -> Bool {
        let users = batch.signIns.map { StoredText.sanitized($0.userID.rawValue) }
        let signedIn = batch.signIns.map(\.signedInAt.seconds)
        // No passkey sign-in is sent as -1 (no time before 1970 is stored) and read as NULL.
        let passkey = batch.signIns.map { $0.passkeySignedInAt?.seconds ?? -1 }
        return try await transaction { db in
            guard try await !db.rows(
                "UPDATE stats_position SET position = \(batch.to) WHERE id = 1 AND position = \(batch.from) RETURNING 1", logger: self.logger
            ).isEmpty else { return false }
            try await Self.add(batch.counts, db, logger: self.logger)
            if !users.isEmpty {
                _ = try await db.rows(
                    """
                    INSERT INTO account_activity (user_id, last_sign_in, last_passkey_sign_in)
                    SELECT u, s, NULLIF(p, -1) FROM unnest(\(users)::text[], \(signedIn)::double precision[], \(passkey)::double precision[]) AS t(u, s, p)
                    ON CONFLICT (user_id) DO UPDATE SET last_sign_in = GREATEST(account_activity.last_sign_in, excluded.last_sign_in),
                        last_passkey_sign_in = GREATEST(account_activity.last_passkey_sign_in, excluded.last_passkey_sign_in)
                    """, logger: self.logger)
            }
            return true
        }
    }

    /// Adds counts that are not in the audit trail.
    public func addDailyCounts(_ counts: [DailyCount]) async throws {
        try await transaction { db in try await Self.add(counts, db, logger: self.logger) }
    }

    private static func add(_ counts: [DailyCount], _ db: PostgresConnection, logger: Logger) async throws {
        guard !counts.isEmpty else { return }
        let days = counts.map(\.day), metrics = counts.map { StoredText.sanitized($0.metric) }, values = counts.map(\.count)
        _ = try await db.rows(
            """
            INSERT INTO daily_stats (day, metric, count) SELECT * FROM unnest(\(days)::text[], \(metrics)::text[], \(values)::bigint[])
            ON CONFLICT (day, metric) DO UPDATE SET count = daily_stats.count + excluded.count
            """, logger: logger)
    }

    /// The rolled-up counts of a range of days.
    public func dailyCounts(fromDay: String, toDay: String) async throws -> [DailyCount] {
        try await autocommit { db in
            try await db.rows("SELECT * FROM daily_stats WHERE day >= \(fromDay) AND day < \(toDay)", logger: self.logger).map {
                DailyCount(day: try $0.text("day"), metric: try $0.text("metric"), count: try $0.integer("count"))
            }
        }
    }

    /// The latest sign-ins of these accounts.
    public func accountSignIns(userIDs: [UserID]) async throws -> [AccountSignIn] {
        let ids = userIDs.map(\.rawValue).filter { !StoredText.containsNUL([$0]) }
        guard !ids.isEmpty else { return [] }
        return try await autocommit { db in
            try await db.rows("SELECT * FROM account_activity WHERE user_id = ANY(\(ids)::text[])", logger: self.logger).map { row in
                AccountSignIn(userID: UserID(rawValue: try row.text("user_id")), signedInAt: try row.date("last_sign_in"), passkeySignedInAt: try row.optionalDate("last_passkey_sign_in"))
            }
        }
    }
}
