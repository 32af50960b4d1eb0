
/// The daily rollups the console's overview and `GET /admin/v1/stats` read, so that neither
/// scans the audit trail: counts by UTC day and metric, the position in the audit trail they
/// have reached, and each account's latest sign-in.
public protocol StatsStore: Sendable {
    /// Audit events after `position`, oldest first (by position), at most `limit`.
    func events(after position: Int64, limit: Int) async throws -> [LoggedEvent]
    /// The position in the audit trail the rollups have counted up to (0 before any).
    func statsPosition() async throws -> Int64
    /// Adds a batch's counts and sign-ins and moves the position from `batch.from` to
    /// `batch.to`, in one transaction; nothing when the position is no longer `batch.from`
    /// (another instance counted these events first).
    /// - Returns: Whether the batch was applied.
    func applyStats(_ batch: StatsBatch) async throws -> Bool
    /// Adds counts that are not in the audit trail (ceremonies started), by day and metric.
    func addDailyCounts(_ counts: [DailyCount]) async throws
    /// The rolled-up counts of the days `from` (inclusive) to `to` (exclusive), in
    /// `YYYY-MM-DD` form.
    func dailyCounts(fromDay: String, toDay: String) async throws -> [DailyCount]
    /// The latest sign-ins the rollups hold for these accounts (none for an account they
    /// have not seen sign in).
    func accountSignIns(userIDs: [UserID]) async throws -> [AccountSignIn]
}
