public import Foundation
public import IdentityCore

extension SQLiteStorage {
    // MARK: - Operators

    /// Makes an account an operator with `role`, or no longer one.
    public func setOperatorRole(userID: UserID, role: OperatorRole?, at time: Date) async throws -> Bool {
        guard StoredText.canMatch(userID.rawValue) else { return false }
        return try database.write { db in
            guard try db.row("SELECT 1 FROM users WHERE id = ?", [userID.rawValue]) != nil else { return false }
            if let role {
                _ = try db.execute(
                    "INSERT INTO operators (user_id, role, since) VALUES (?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET role = excluded.role, since = excluded.since WHERE role <> excluded.role",
                    [userID.rawValue, role.rawValue, time.databaseSeconds]
                )
            } else {
                _ = try db.execute("DELETE FROM operators WHERE user_id = ?", [userID.rawValue])
            }
            return true
        }
    }

    /// The account's role in the console.
    public func operatorRole(userID: UserID) async throws -> OperatorRole? {
        guard StoredText.canMatch(userID.rawValue) else { return nil }
        return try database.read { db in
            try db.row("SELECT role FROM operators WHERE user_id = ?", [userID.rawValue]).flatMap { OperatorRole(rawValue: try $0.text("role")) }
        }
    }

    /// Every operator, oldest first.
    public func operators() async throws -> [Operator] {
        try database.read { db in
            try db.rows("SELECT * FROM operators ORDER BY since, user_id").compactMap { row -> Operator? in
                guard let role = OperatorRole(rawValue: try row.text("role")) else { return nil }
                return Operator(userID: UserID(rawValue: try row.text("user_id")), role: role, since: try row.date("since"))
            }
        }
    }

    // MARK: - Rollups

    /// Audit events after `position`, oldest first.
    public func events(after position: Int64, limit: Int) async throws -> [LoggedEvent] {
        guard limit > 0 else { return [] }
        return try database.read { db in
            try db.rows("SELECT * FROM audit_events WHERE id > ? ORDER BY id LIMIT ?", [position, Int64(limit)]).map { try LoggedEvent(stored: $0) }
        }
    }

    /// The position the rollups have reached.
    public func statsPosition() async throws -> Int64 {
        try database.read { db in try db.row("SELECT position FROM stats_position WHERE id = 1")?.integer("position") ?? 0 }
    }

    /// Adds a batch and moves the position, when it is still where the batch started.
    public func applyStats(_ batch: StatsBatch) async throws -> Bool {
        try database.write { db in
            guard try db.execute("UPDATE stats_position SET position = ? WHERE id = 1 AND position = ?", [batch.to, batch.from]) == 1 else { return false }
            try Self.add(batch.counts, db)
            for signIn in batch.signIns {
                _ = try db.execute(
                    """
                    INSERT INTO account_activity (user_id, last_sign_in, last_passkey_sign_in) VALUES (?, ?, ?)
                    ON CONFLICT (user_id) DO UPDATE SET last_sign_in = max(last_sign_in, excluded.last_sign_in),
                        last_passkey_sign_in = coalesce(max(last_passkey_sign_in, excluded.last_passkey_sign_in), last_passkey_sign_in, excluded.last_passkey_sign_in)
                    """,
                    [StoredText.sanitized(signIn.userID.rawValue), signIn.signedInAt.databaseSeconds, signIn.passkeySignedInAt?.databaseSeconds]
                )
            }
            return true
        }
    }

    /// Adds counts that are not in the audit trail.
    public func addDailyCounts(_ counts: [DailyCount]) async throws {
        try database.write { db in try Self.add(counts, db) }
    }

    private static func add(_ counts: [DailyCount], _ db: SQLiteConnection) throws {
        for count in counts {
            _ = try db.execute(
                "INSERT INTO daily_stats (day, metric, count) VALUES (?, ?, ?) ON CONFLICT (day, metric) DO UPDATE SET count = count + excluded.count",
                [count.day, StoredText.sanitized(count.metric), count.count]
            )
        }
    }

    /// The rolled-up counts of a range of days.
    public func dailyCounts(fromDay: String, toDay: String) async throws -> [DailyCount] {
        try database.read { db in
            try db.rows("SELECT * FROM daily_stats WHERE day >= ? AND day < ?", [fromDay, toDay]).map {
                DailyCount(day: try $0.text("day"), metric: try $0.text("metric"), count: try $0.integer("count"))
            }
        }
    }

    /// The latest sign-ins of these accounts.
    public func accountSignIns(userIDs: [UserID]) async throws -> [AccountSignIn] {
        let ids = userIDs.map(\.rawValue).filter { StoredText.canMatch($0) }
        guard !ids.isEmpty else { return [] }
        return try database.read { db in
            // In slices: SQLite binds at most 32,766 values in one statement.
            try stride(from: 0, to: ids.count, by: 500).flatMap { start -> [AccountSignIn] in
                let slice = Array(ids[start..<min(ids.count, start + 500)])
                let marks = Array(repeating: "?", count: slice.count).joined(separator: ", ")
                return try db.rows("SELECT * FROM account_activity WHERE user_id IN (\(marks))", slice).map(Self.accountSignIn)
            }
        }
    }

    private static func accountSignIn(_ row: SQLiteRow) throws -> AccountSignIn {
        AccountSignIn(userID: UserID(rawValue: try row.text("user_id")), signedInAt: try row.date("last_sign_in"), passkeySignedInAt: try row.optionalDate("last_passkey_sign_in"))
    }
}
