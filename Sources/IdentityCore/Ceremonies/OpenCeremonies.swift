public import Foundation
import Synchronization

/// How many ceremonies are open: started, and neither finished nor expired. Ceremonies live
/// sealed in their handles, not in the database, so they are counted as they start and
/// finish, in buckets by the minute they expire: memory stays fixed however many are started,
/// and an abandoned ceremony leaves the count when its minute has passed.
public final class OpenCeremonies: Sendable {
    private struct State {
        var buckets: [(minute: Int64, count: Int)]
        var total = 0
        /// Every bucket of a minute before this one has been emptied.
        var sweptUpTo: Int64 = 0
    }

    private let state: Mutex<State>
    private let onChange: @Sendable (Int) -> Void

    /// Creates the count. `horizon` bounds the longest ceremony lifetime counted;
    /// `onChange` receives the new count after each change (for a gauge).
    public init(horizon: TimeInterval = 25 * 3600, onChange: @escaping @Sendable (Int) -> Void) {
        state = Mutex(State(buckets: Array(repeating: (minute: -1, count: 0), count: max(2, Int(horizon / 60) + 2))))
        self.onChange = onChange
    }

    /// A ceremony expiring at `expiresAt` started at `now`.
    public func started(expiresAt: Date, now: Date) {
        let total = state.withLock { state -> Int in
            Self.sweep(&state, now: now)
            let minute = Self.minute(expiresAt)
            let index = Self.index(minute, state)
            if state.buckets[index].minute != minute { state.buckets[index] = (minute, 0) }
            state.buckets[index].count += 1
            state.total += 1
            return state.total
        }
        onChange(total)
    }

    /// A ceremony expiring at `expiresAt` finished (completed or refused) at `now`.
    public func finished(expiresAt: Date, now: Date) {
        let total = state.withLock { state -> Int in
            Self.sweep(&state, now: now)
            let minute = Self.minute(expiresAt)
            let index = Self.index(minute, state)
            if state.buckets[index].minute == minute, state.buckets[index].count > 0 {
                state.buckets[index].count -= 1
                state.total -= 1
            }
            return state.total
        }
        onChange(total)
    }

    /// The count now.
    public func count(at now: Date) -> Int {
        state.withLock { state in
            Self.sweep(&state, now: now)
            return state.total
        }
    }

    private static func minute(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 / 60).rounded(.down)) }

    private static func index(_ minute: Int64, _ state: State) -> Int { Int(minute % Int64(state.buckets.count)) }

    /// Empties the buckets of minutes that have passed.
    private static func sweep(_ state: inout State, now: Date) {
        let current = minute(now)
        guard state.sweptUpTo < current else { return }
        if current - state.sweptUpTo >= Int64(state.buckets.count) || state.sweptUpTo == 0 {
            // Longer ago than the buckets reach (or the first call): look at every bucket once.
            for index in state.buckets.indices where state.buckets[index].minute < current && state.buckets[index].count > 0 {
                state.total -= state.buckets[index].count
                state.buckets[index] = (-1, 0)
            }
        } else {
            for passed in state.sweptUpTo..<current {
                let index = index(passed, state)
                if state.buckets[index].minute == passed {
                    state.total -= state.buckets[index].count
                    state.buckets[index] = (-1, 0)
                }
            }
        }
        state.sweptUpTo = current
    }
}
