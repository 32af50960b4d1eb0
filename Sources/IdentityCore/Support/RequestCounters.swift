public import Foundation
import Synchronization

/// Fixed-window counters in memory, for single-instance backends: each key counts requests
/// in the current window; windows that have passed are dropped as time moves on.
public final class RequestCounters: Sendable {
    private struct State {
        var window: Int64 = .min
        var counts: [String: Int] = [:]
    }

    private let state = Mutex(State())

    /// Creates empty counters.
    public init() {}

    /// Counts one request under `key` and returns the count in its window.
    public func count(key: String, window: TimeInterval, at time: Date) -> Int {
        let current = Int64((time.timeIntervalSince1970 / window).rounded(.down))
        return state.withLock { state in
            if state.window != current {
                state.window = current
                state.counts.removeAll(keepingCapacity: true)
            }
            state.counts[key, default: 0] += 1
            return state.counts[key]!
        }
    }
}
