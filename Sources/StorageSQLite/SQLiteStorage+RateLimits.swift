public import Foundation
import IdentityCore

extension SQLiteStorage {
    /// Counts in this process's memory: a SQLite database serves one instance, so counters
    /// shared across instances are not needed, and a write per request would cost a login
    /// a transaction for nothing. (A backend for several instances keeps them in the database.)
    public func countRequests(key: String, adding count: Int, window: TimeInterval, at time: Date) async throws -> Int {
        rateCounters.count(key: key, adding: count, window: window, at: time)
    }

    /// Nothing to do: the counters in memory keep only the current and previous windows.
    public func purgeRequestCounts(before time: Date) async throws -> Int { 0 }
}
