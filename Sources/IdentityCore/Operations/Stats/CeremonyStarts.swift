public import Foundation
import Synchronization

/// Sign-up ceremonies started, by UTC day. Ceremonies live sealed in their handles, not in
/// the database, so each instance counts the ones it starts and adds them to the rollups
/// now and then (``StatsService/flushStarts()``); a crash loses at most the counts since.
public final class CeremonyStarts: Sendable {
    private let counts = Mutex<[String: Int64]>([:])

    public init() {}

    /// A sign-up ceremony started at `time`.
    public func signUpStarted(at time: Date) {
        let day = StatsTally.day(of: time)
        counts.withLock { $0[day, default: 0] += 1 }
    }

    /// The counts since the last call, emptied.
    func take() -> [DailyCount] {
        counts.withLock { counts in
            defer { counts = [:] }
            return Self.rows(counts)
        }
    }

    /// The counts not yet added to the rollups, left as they are: what a read adds.
    func pending() -> [DailyCount] { counts.withLock { Self.rows($0) } }

    private static func rows(_ counts: [String: Int64]) -> [DailyCount] {
        counts.map { DailyCount(day: $0.key, metric: StatsMetric.signUpsStarted, count: $0.value) }
    }

    /// Puts counts that could not be stored back, to be added next time.
    func restore(_ taken: [DailyCount]) {
        counts.withLock { counts in for count in taken { counts[count.day, default: 0] += count.count } }
    }
}
