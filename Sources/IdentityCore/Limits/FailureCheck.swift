import Foundation
import Synchronization

/// The failed-finish limit one request owes before it changes anything, when the counters
/// live in a shared database (``RateLimitStore/foldsFailureChecks``): rather than a round trip
/// of its own before the handler runs, the check travels with the request, in its context,
/// into the ``CeremonyCompletion`` that finishes a login or a sign-up, and the store makes it
/// inside that one statement (one round trip, not two). A handler that writes anything else
/// first makes it before (``makeUnlessMade()``); a request that never reached the store is
/// checked when it is answered.
///
/// Exactly one of these makes the check (``claim()``), so it is made once, before anything is
/// written, and against the count every instance shares.
public final class FailureCheck: Sendable {
    /// The counter's key (`failure:<client>`).
    public let key: String
    /// Failed finishes in the window at which finishes are refused.
    public let limit: Int
    /// Where the request's moment falls.
    public let window: SlidingWindow
    private let refusal: @Sendable () -> IdentityError
    /// Reads the counters and throws the refusal when they refuse: the check made on its own.
    private let read: @Sendable (FailureCheck) async throws -> Void
    private let claimed = Atomic<Bool>(false)

    init(
        key: String, limit: Int, window: TimeInterval, at time: Date, refusal: @escaping @Sendable () -> IdentityError,
        read: @escaping @Sendable (FailureCheck) async throws -> Void
    ) {
        self.key = key
        self.limit = limit
        self.window = SlidingWindow(window, at: time)
        self.refusal = refusal
        self.read = read
    }

    /// Makes the check on its own, unless it was made already: before a handler writes
    /// anything that does not make it, and when the request is answered.
    public func makeUnlessMade() async throws {
        guard claim() else { return }
        try await read(self)
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
