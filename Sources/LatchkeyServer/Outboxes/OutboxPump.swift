import IdentityCore
import Logging
import ServiceLifecycle

/// How each outbox (mail, webhooks, logout tokens) is emptied: rounds of claiming and
/// sending what is due until nothing is, started by this instance's wake-ups at once and by
/// a poll (other instances' entries, retries coming due). Both may claim at the same moment;
/// the claim's lease keeps them off each other's entries.
enum OutboxPump {
    /// Runs until graceful shutdown.
    /// - Parameters:
    ///   - gather: How long a wake-up waits first, so that a burst becomes one claim.
    ///   - sendDue: Claims and sends what is due. - Returns: How many were tried.
    static func run(
        wakeUps: AsyncStream<Void>, gather: Duration, pollInterval: Duration, logger: Logger, source: String, failure: String,
        sendDue: @escaping @Sendable () async throws -> Int
    ) async {
        @Sendable func round() async {
            do {
                // Not once the server is stopping: what it claimed then would only come back
                // interrupted, due again at once, and be claimed again.
                while !Task.isCancelled, try await sendDue() > 0 {}
            } catch {
                logger.warning("\(failure)", metadata: ["error": "\(error)"], source: source)
            }
        }
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await _ in wakeUps {
                        try? await Task.sleep(for: gather)
                        await round()
                    }
                }
                group.addTask {
                    while !Task.isCancelled {
                        await round()
                        try? await Task.sleep(for: pollInterval)
                    }
                }
            }
        }
    }

    /// Runs until graceful shutdown, sending what each `claim` returns side by side.
    static func run<Item: Sendable>(
        wakeUps: AsyncStream<Void>, pollInterval: Duration, logger: Logger, source: String, failure: String,
        claim: @escaping @Sendable () async throws -> [Item], send: @escaping @Sendable (Item) async -> Void
    ) async {
        await run(wakeUps: wakeUps, gather: .milliseconds(20), pollInterval: pollInterval, logger: logger, source: source, failure: failure) {
            let due = try await claim()
            await withTaskGroup(of: Void.self) { group in
                for item in due { group.addTask { await send(item) } }
            }
            return due.count
        }
    }

    /// Wake-ups for the events of `kinds` this instance commits.
    static func wakeUps(from feed: SecurityEventFeed, kinds: Set<AuditEvent.Kind>) -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        if !kinds.isEmpty { feed.watch { event in if kinds.contains(event.kind) { continuation.yield() } } }
        return stream
    }
}
