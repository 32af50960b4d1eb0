import IdentityCore
import Logging
import ServiceLifecycle

/// Counts the audit trail into the daily rollups every `interval`, and adds the sign-up
/// ceremonies this instance started, so that the console's overview and `GET
/// /admin/v1/stats` read a few rows rather than the trail. Every instance runs it: the
/// rollups take each batch once (see ``StatsService``). Once more at shutdown, for the
/// starts counted since.
struct StatsRollupService: Service {
    let stats: StatsService
    let interval: Duration
    let logger: Logger

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await pass()
                try await Task.sleep(for: interval)
            }
        }
        await pass()
    }

    private func pass() async {
        do {
            try await stats.flushStarts()
            let counted = try await stats.rollUp()
            if counted > 0 { logger.debug("rolled up \(counted) audit events") }
        } catch {
            logger.warning("could not roll up the audit trail; the figures will catch up on the next pass", metadata: ["error": "\(error)"])
        }
    }
}
