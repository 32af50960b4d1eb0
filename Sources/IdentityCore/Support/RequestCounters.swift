public import Foundation
import Synchronization

/// Request counters in memory, for single-instance backends, over a sliding window: the
/// count is this window's requests plus the previous window's, weighted by how much of the
/// previous window the sliding window still covers. Fixed windows would let a client send
/// twice the limit across a boundary, and would forget a burst the moment a window turns.
public final class RequestCounters: Sendable {
    private struct State {
        var window: Int64 = .min
        var current: [String: Int] = [:]
        var previous: [String: Int] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// Adds `adding` requests under `key` (0 only reads) and returns the sliding-window
    /// count, these included (the previous window's share rounded up).
    public func count(key: String, adding: Int = 1, window: TimeInterval, at time: Date) -> Int {
        let sliding = SlidingWindow(window, at: time)
        let index = sliding.index
        return state.withLock { state in
            if state.window != index {
                state.previous = index == state.window &+ 1 ? state.current : [:]
                state.current.removeAll(keepingCapacity: true)
                state.window = index
            }
            if adding > 0 { state.current[key, default: 0] += adding }
            return sliding.count(current: state.current[key] ?? 0, previous: state.previous[key] ?? 0)
        }
    }
}
