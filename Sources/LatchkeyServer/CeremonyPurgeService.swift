import Foundation
import IdentityCore
import Logging
import ServiceLifecycle

/// Deletes expired ceremonies, sessions, administration tokens and authorization codes every few minutes
/// so the tables do not grow without bound.
struct CeremonyPurgeService: Service {
    let storage: any CeremonyStore & BrowserSessionStore & AuthorizationCodeStore & InteractiveFlowStore & AdminTokenStore
    let clock: any WallClock
    let interval: Duration
    let logger: Logger

    func run() async throws {
        // Sleeping must end at graceful shutdown, or the server would wait out the interval.
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    let now = clock.now()
                    try await storage.purgeCeremonies(expiredBefore: now)
                    try await storage.purgeBrowserSessions(expiredBefore: now)
                    try await storage.purgeAdminTokens(expiredBefore: now)
                    // Used codes are kept for a day after expiry, so that a replay is still
                    // recognised and revokes what the first exchange issued.
                    try await storage.purgeAuthorizationCodes(expiredBefore: now.addingTimeInterval(-86400))
                    // Kept a day past expiry so that a late submission is told the flow expired.
                    try await storage.purgeFlows(expiredBefore: now.addingTimeInterval(-86400))
                } catch {
                    logger.warning("could not purge expired ceremonies, sessions or codes", metadata: ["error": "\(error)"])
                }
                try await Task.sleep(for: interval)
            }
        }
    }
}
