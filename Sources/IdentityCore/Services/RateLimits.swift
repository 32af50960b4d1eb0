import Crypto
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
/// flow submissions, completions); and per account identifier, on the attempts that name
/// one (a sign-up start, a login started for a username, a password sign-in), wherever they
/// come from. Limits that no person reaches and a script does.
public struct RateLimits: Sendable {
    /// What a request counts against.
    public enum Kind: String, Sendable {
        case start, finish, identifier
    }

    /// Requests allowed per client address per window; 0 turns a limit off.
    public let startsPerWindow: Int
    public let finishesPerWindow: Int
    /// Attempts naming one identifier per window, from any address; 0 turns it off.
    public let identifierAttemptsPerWindow: Int
    /// The window, in seconds.
    public let window: TimeInterval
    let store: any RateLimitStore
    let clock: any WallClock
    /// Told of each refusal (the server counts them as a metric).
    let refused: (@Sendable (Kind) -> Void)?

    /// Creates the limits.
    public init(
        startsPerWindow: Int, finishesPerWindow: Int, identifierAttemptsPerWindow: Int = 0, window: TimeInterval = 60, store: any RateLimitStore,
        clock: any WallClock, refused: (@Sendable (Kind) -> Void)? = nil
    ) {
        self.startsPerWindow = startsPerWindow
        self.finishesPerWindow = finishesPerWindow
        self.identifierAttemptsPerWindow = identifierAttemptsPerWindow
        self.window = window
        self.store = store
        self.clock = clock
        self.refused = refused
    }

    /// Counts a request from `client`, refusing it with `429` and the seconds until the
    /// window ends when the limit is passed.
    public func admit(_ kind: Kind, from client: String) async throws {
        try await count(kind, key: "\(kind.rawValue):\(client)", refusal: "too many requests from this address")
    }

    /// Counts an attempt that names `identifier`, whether or not an account has it (so the
    /// refusal says nothing about existence). The counter's key is a digest, so the counters
    /// hold no email address or phone number.
    public func admit(identifier: Identifier) async throws {
        let text: String
        switch identifier {
        case .email(let value): text = "email:" + value
        case .phoneNumber(let value): text = "phone:" + value
        case .username(let value): text = "username:" + value
        }
        let digest = SHA256.hash(data: Data(text.utf8)).prefix(16).map { String(format: "%02x", $0) }.joined()
        try await count(.identifier, key: "identifier:" + digest, refusal: "too many attempts for this account")
    }

    private func count(_ kind: Kind, key: String, refusal: String) async throws {
        let limit = switch kind {
        case .start: startsPerWindow
        case .finish: finishesPerWindow
        case .identifier: identifierAttemptsPerWindow
        }
        guard limit > 0 else { return }
        let now = clock.now()
        let count = try await store.countRequest(key: key, window: window, at: now)
        guard count > limit else { return }
        refused?(kind)
        let windowEnd = (now.timeIntervalSince1970 / window).rounded(.down) * window + window
        let retryAfter = max(1, Int((windowEnd - now.timeIntervalSince1970).rounded(.up)))
        throw IdentityError(.tooManyRequests, "\(refusal); try again in \(retryAfter) s", reason: .rateLimited(retryAfter: retryAfter))
    }
}
