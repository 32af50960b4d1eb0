import Crypto
public import Foundation

/// Request counters over a sliding window, per key (`start:<client address>`, …).
public protocol RateLimitStore: Sendable {
    /// Adds `count` requests under `key` at `time` (0 only reads) and returns how many the
    /// last `window` seconds hold, these included (an estimate from the current and previous
    /// fixed windows is enough). Every key is counted with the same window.
    func countRequests(key: String, adding count: Int, window: TimeInterval, at time: Date) async throws -> Int
    /// Forgets the counts of windows that ended before `time`; a backend that keeps its
    /// counters in memory forgets them by itself and returns 0.
    /// - Returns: How many counters were deleted.
    @discardableResult
    func purgeRequestCounts(before time: Date) async throws -> Int
    /// Whether the store makes a request's ``FailureCheck`` itself, inside the statement of
    /// the request's ``CeremonyCompletion`` (counters in a shared database, where a check of
    /// its own is a round trip).
    /// Stores that count in memory check at once, which costs nothing.
    var foldsFailureChecks: Bool { get }
}

extension RateLimitStore {
    public var foldsFailureChecks: Bool { false }

    /// Counts one request under `key` and returns the window's count, this one included.
    public func countRequest(key: String, window: TimeInterval, at time: Date) async throws -> Int {
        try await countRequests(key: key, adding: 1, window: window, at: time)
    }
}

/// The rate limits every face applies, per client address: on starting ceremonies
/// (challenges, flows, enrollments, sign-up starts) and on finishing them (token requests,
/// flow submissions, completions); and per account identifier, on the attempts that name
/// one (a sign-up start, a login started for a username, a password sign-in), wherever they
/// come from. Limits that no person reaches and a script does.
public struct RateLimits: Sendable {
    /// What a request counts against.
    public enum Kind: String, Sendable {
        case start, finish, identifier
        /// Finishes that failed (a 4xx other than 429), per client address.
        case failure
    }

    /// Requests allowed per client address per window; 0 turns a limit off.
    public let startsPerWindow: Int
    public let finishesPerWindow: Int
    /// Attempts naming one identifier per window, from any address; 0 turns it off.
    public let identifierAttemptsPerWindow: Int
    /// Failed finishes per client address per window, after which its finishes are refused
    /// until the window slides on; 0 turns it off.
    public let failuresPerWindow: Int
    /// The window, in seconds.
    public let window: TimeInterval
    /// How many leading bits of an IPv6 address are one client (`limits.ipv6_prefix_length`).
    public let ipv6PrefixLength: Int
    let store: any RateLimitStore
    let clock: any WallClock
    /// Told of each refusal (the server counts them as a metric).
    let refused: (@Sendable (Kind) -> Void)?

    /// A limit of 0 is off, so the identifier and failure limits are off unless given.
    public init(
        startsPerWindow: Int, finishesPerWindow: Int, identifierAttemptsPerWindow: Int = 0, failuresPerWindow: Int = 0, window: TimeInterval = 60,
        ipv6PrefixLength: Int = 64, store: any RateLimitStore, clock: any WallClock, refused: (@Sendable (Kind) -> Void)? = nil
    ) {
        self.ipv6PrefixLength = ipv6PrefixLength
        self.failuresPerWindow = failuresPerWindow
        self.startsPerWindow = startsPerWindow
        self.finishesPerWindow = finishesPerWindow
        self.identifierAttemptsPerWindow = identifierAttemptsPerWindow
        self.window = window
        self.store = store
        self.clock = clock
        self.refused = refused
    }

    /// Whether any limit is on; a face with none skips the middleware's work.
    public var isLimiting: Bool {
        startsPerWindow > 0 || finishesPerWindow > 0 || identifierAttemptsPerWindow > 0 || failuresPerWindow > 0
    }

    private func limit(of kind: Kind) -> Int {
        switch kind {
        case .start: startsPerWindow
        case .finish: finishesPerWindow
        case .identifier: identifierAttemptsPerWindow
        case .failure: failuresPerWindow
        }
    }

    /// Counts a request from `client`, refusing it with `429` and the seconds until the
    /// window ends when the limit is passed.
    public func admit(_ kind: Kind, from client: String) async throws {
        try await count(kind, key: "\(kind.rawValue):\(clientKey(client))", refusal: "too many requests from this address")
    }

    /// Refuses a finish from `client` while its failures in the window are over the limit
    /// (without counting this one: only its outcome counts, through ``noteFailure(from:)``).
    public func admitAfterFailures(from client: String) async throws {
        try await count(.failure, key: "failure:\(clientKey(client))", adding: 0, refusal: Self.failureRefusal)
    }

    /// The same check as ``admitAfterFailures(from:)``, handed to the request's ceremony
    /// completion, whose statement makes it (see ``FailureCheck``); `nil` when the store checks at
    /// once or the limit is off, and ``admitAfterFailures(from:)`` applies.
    public func deferredFailureCheck(from client: String) -> FailureCheck? {
        guard failuresPerWindow > 0, store.foldsFailureChecks else { return nil }
        let now = clock.now()
        return FailureCheck(
            key: "failure:\(clientKey(client))", limit: failuresPerWindow, window: window, at: now,
            refusal: { [self] in refusal(.failure, Self.failureRefusal, at: now) },
            read: { [self] check in try await count(.failure, key: check.key, adding: 0, refusal: Self.failureRefusal) }
        )
    }

    private static let failureRefusal = "too many failed attempts from this address"

    /// Counts a finish from `client` that failed.
    public func noteFailure(from client: String) async throws {
        guard failuresPerWindow > 0 else { return }
        _ = try await store.countRequests(key: "failure:\(clientKey(client))", adding: 1, window: window, at: clock.now())
    }

    /// What `client` is counted under: an IPv6 address by its prefix, so that one host's
    /// many addresses are one client.
    func clientKey(_ client: String) -> String {
        AddressRange.limitKey(client, ipv6PrefixLength: ipv6PrefixLength)
    }

    /// Counts an attempt that names `identifier`, whether or not an account has it (so the
    /// refusal says nothing about existence). The counter's key is a digest, so the counters
    /// hold no email address or phone number.
    public func admit(identifier: Identifier) async throws {
        try await count(.identifier, key: Self.counterKey(for: identifier), refusal: "too many attempts for this account")
    }

    private static func counterKey(for identifier: Identifier) -> String {
        let text: String
        switch identifier {
        case .email(let value): text = "email:" + value
        case .phoneNumber(let value): text = "phone:" + value
        case .username(let value): text = "username:" + value
        }
        return "identifier:" + UUIDText.hex(Array(SHA256.hash(data: Data(text.utf8)).prefix(16)))
    }

    /// The key is built only when the kind's limit is on: with limits off, a request costs
    /// neither the string nor (for identifiers) the digest.
    private func count(_ kind: Kind, key: @autoclosure () -> String, adding: Int = 1, refusal: String) async throws {
        let limit = limit(of: kind)
        guard limit > 0 else { return }
        let now = clock.now()
        let count = try await store.countRequests(key: key(), adding: adding, window: window, at: now)
        // A read (adding nothing) refuses once the count has reached the limit; a count, once
        // this request passes it.
        guard adding == 0 ? count >= limit : count > limit else { return }
        throw self.refusal(kind, refusal, at: now)
    }

    /// The refusal of a request over the `kind` limit, told to ``refused``.
    private func refusal(_ kind: Kind, _ refusal: String, at now: Date) -> IdentityError {
        refused?(kind)
        let windowEnd = (now.timeIntervalSince1970 / window).rounded(.down) * window + window
        let retryAfter = max(1, Int((windowEnd - now.timeIntervalSince1970).rounded(.up)))
        return IdentityError(.tooManyRequests, "\(refusal); try again in \(retryAfter) s", reason: .rateLimited(retryAfter: retryAfter))
    }
}
