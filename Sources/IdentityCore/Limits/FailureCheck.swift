import Foundation
import Synchronization

/// The failed-finish limit one request owes before it changes anything, when the counters
/// live in a shared database (``RateLimitStore/foldsFailureChecks``): rather than a round trip
/// of its own before the handler runs, the check travels with the request (``pending``) and
/// the store makes it inside the request's first statement where it can (a login's or a
/// sign-up's finish: one round trip, not two), or just before its first statement otherwise.
/// A request that never reached the store is checked when it is answered (``RateLimits/settle(_:)``).
///
/// Exactly one of these makes the check (``claim()``), so it is made once, before anything is
/// written, and against the count every instance shares.
public final class FailureCheck: Sendable {
    /// The check of the request this task serves, if it still owes one.
    @TaskLocal public static var pending: FailureCheck?

    /// The counter's key (`failure:<client>`).
    public let key: String
    /// Failed finishes in the window at which finishes are refused.
    public let limit: Int
    /// Where the request's moment falls.
    public let window: SlidingWindow
    private let refusal: @Sendable () -> IdentityError
    private let claimed = Atomic<Bool>(false)

    init(key: String, limit: Int, window: TimeInterval, at time: Date, refusal: @escaping @Sendable () -> IdentityError) {
        self.key = key
        self.limit = limit
        self.window = SlidingWindow(window, at: time)
        self.refusal = refusal
    }

    /// Takes the check over: `true` for the first caller only, who then makes it.
    public func claim() -> Bool {
        claimed.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged
    }

    /// Whether these counts (this fixed window's and the previous one's) refuse the request:
    /// the same sliding-window estimate as every ``RateLimitStore``.
    public func refuses(current: Int, previous: Int) -> Bool {
        window.count(current: current, previous: previous) >= limit
    }

    /// The `429` the request gets: thrown by the store that found the limit reached.
    public func refuse() -> IdentityError { refusal() }
}
