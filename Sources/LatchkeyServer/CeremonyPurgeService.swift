import IdentityCore
import Logging
import ServiceLifecycle

/// Deletes expired ceremonies every few minutes so the table does not grow without bound.
struct CeremonyPurgeService: Service {
    let storage: any CeremonyStore
    let clock: any WallClock
    let interval: Duration
    let logger: Logger

    func run() async throws {
        // Sleeping must end at graceful shutdown, or the server would wait out the interval.
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await storage.purgeCeremonies(expiredBefore: clock.now())
                } catch {
                    logger.warning("could not purge expired ceremonies", metadata: ["error": "\(error)"])
                }
                try await Task.sleep(for: interval)
            }
        }
    }
}
