public import Foundation

/// Request counters over a sliding window, per key (`start:<client address>`, …).
public protocol RateLimitStore: Sendable {
    /// Counts one request under `key` at `time` and returns how many requests the last
    /// `window` seconds hold, this one included (an estimate from the current and previous
    /// fixed windows is enough).
    func countRequest(key: String, window: TimeInterval, at time: Date) async throws -> Int
    /// Forgets the counts of windows that ended before `time`; a backend that keeps its
    /// counters in memory forgets them by itself and returns 0.
    /// - Returns: How many counters were deleted.
    @discardableResult
    func purgeRequestCounts(before time: Date) async throws -> Int
}

/// The rate limits every face applies, per client address: on starting ceremonies
/// (challenges, flows, enrollments, sign-up starts) and on finishing them (token requests,
/// flow submissions, completions). Limits that no person reaches and a script does.
public struct RateLimits: Sendable {
    /// What a request counts against.
    public enum Kind: String, Sendable {
        case start, finish
    }

    /// Requests allowed per client address per window; 0 turns a limit off.
    public let startsPerWindow: Int
    public let finishesPerWindow: Int
    /// The window, in seconds.
    public let window: TimeInterval
    let store: any RateLimitStore
    let clock: any WallClock
    /// Told of each refusal (the server counts them as a metric).
    let refused: (@Sendable (Kind) -> Void)?

    /// Creates the limits.
    public init(
        startsPerWindow: Int, finishesPerWindow: Int, window: TimeInterval = 60, store: any RateLimitStore, clock: any WallClock,
        refused: (@Sendable (Kind) -> Void)? = nil
    ) {
        self.startsPerWindow = startsPerWindow
        self.finishesPerWindow = finishesPerWindow
        self.window = window
        self.store = store
        self.clock = clock
        self.refused = refused
    }

    /// Counts a request from `client`, refusing it with `429` and the seconds until the
    /// window ends when the limit is passed.
    public func admit(_ kind: Kind, from client: String) async throws {
        let limit = kind == .start ? startsPerWindow : finishesPerWindow
        guard limit > 0 else { return }
        let now = clock.now()
        let count = try await store.countRequest(key: "\(kind.rawValue):\(client)", window: window, at: now)
        guard count > limit else { return }
        refused?(kind)
        let windowEnd = (now.timeIntervalSince1970 / window).rounded(.down) * window + window
        let retryAfter = max(1, Int((windowEnd - now.timeIntervalSince1970).rounded(.up)))
        throw IdentityError(
            .tooManyRequests, "too many requests from this address; try again in \(retryAfter) s", reason: .rateLimited(retryAfter: retryAfter)
        )
    }
}
