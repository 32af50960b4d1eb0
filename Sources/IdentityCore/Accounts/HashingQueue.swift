import Foundation

/// Where scrypt runs: off the calling thread, which may be one of the server's event loops
/// that must keep answering other requests meanwhile, at most one hash per core at a time,
/// and at most ``limit`` waiting beyond that. A burst of sign-ins cannot claim 32 MiB each at
/// once, and work past the bound is refused at once (`503`, `Retry-After`) rather than
/// queued behind seconds of hashing.
final class HashingQueue: Sendable {
    /// The queue every password and recovery-code hash shares.
    static let shared = HashingQueue(limit: 32 * max(1, ProcessInfo.processInfo.activeProcessorCount))

    private let queue: OperationQueue
    /// Work items waiting or running, past which new work is refused.
    let limit: Int

    init(limit: Int, concurrency: Int = max(1, ProcessInfo.processInfo.activeProcessorCount)) {
        let queue = OperationQueue()
        queue.name = "latchkey-password-hashing"
        queue.maxConcurrentOperationCount = concurrency
        self.queue = queue
        self.limit = limit
    }

    /// Runs `work` on the queue.
    /// - Throws: `temporarily_unavailable` (reason `busy`, retry in 2 s) when the queue is full.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        // The count is read without a lock of its own: a burst may pass the bound by a few.
        guard queue.operationCount < limit else {
            throw IdentityError(.temporarilyUnavailable, "the server is busy; nothing was changed; try again in a few seconds", reason: .busy(retryAfter: 2))
        }
        return try await withCheckedThrowingContinuation { continuation in
            queue.addOperation { continuation.resume(with: Result { try work() }) }
        }
    }
}
