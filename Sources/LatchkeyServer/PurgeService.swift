import Foundation
import IdentityCore
import Logging
import ServiceLifecycle

/// Keeps storage bounded: deletes what has expired (finished ceremonies' keys, browser
/// sessions, administration tokens, authorization codes, self-service flows, one-time codes,
/// finished mail older than a week), audit events
/// older than `audit.retention`, and refresh families older than the absolute refresh
/// lifetime; then returns freed pages to the file system a few at a time. Runs at an
/// interval derived from the ceremony lifetime, deletes in small batches so that no write
/// lock is held long, and logs what it removed.
struct PurgeService: Service {
    let storage: any ServerStorage
    let clock: any WallClock
    let interval: Duration
    /// `audit.retention`.
    let auditRetention: TimeInterval
    /// The absolute refresh lifetime: a family older than this can no longer refresh.
    let familyLifetime: TimeInterval
    let logger: Logger

    /// How many rows one transaction deletes at most.
    static let batch = 1000

    /// Half the ceremony lifetime, between 10 seconds and 5 minutes: a finished ceremony's key
    /// is not kept much longer than the ceremony could be replayed.
    static func interval(ceremonyLifetime: TimeInterval) -> Duration {
        .seconds(min(300, max(10, ceremonyLifetime / 2)))
    }

    func run() async throws {
        // Sleeping must end at graceful shutdown, or the server would wait out the interval.
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    let removed = try await purge()
                    let report = removed.filter { $0.value > 0 }.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
                    if !report.isEmpty { logger.info("purged \(report.joined(separator: ", "))") }
                } catch {
                    logger.warning("could not purge expired rows", metadata: ["error": "\(error)"])
                }
                try await Task.sleep(for: interval)
            }
        }
    }

    /// One round. - Returns: How many rows of each kind were deleted.
    func purge() async throws -> [String: Int] {
        let now = clock.now()
        var removed: [String: Int] = [:]
        removed["ceremony keys"] = try await storage.purgeCeremonies(expiredBefore: now)
        removed["browser sessions"] = try await storage.purgeBrowserSessions(expiredBefore: now)
        removed["administration tokens"] = try await storage.purgeAdminTokens(expiredBefore: now)
        // Used codes are kept for a day after expiry, so that a replay is still recognised and
        // revokes what the first exchange issued.
        removed["authorization codes"] = try await storage.purgeAuthorizationCodes(expiredBefore: now.addingTimeInterval(-86400))
        // Kept a day past expiry so that a late submission is told the flow expired.
        removed["self-service flows"] = try await storage.purgeFlows(expiredBefore: now.addingTimeInterval(-86400))
        removed["audit events"] = try await inBatches { try await storage.purgeAuditEvents(before: now.addingTimeInterval(-auditRetention), limit: Self.batch) }
        // Kept one more lifetime (at most a day) past their end, so that a late replay of one of
        // their tokens is still recognised as reuse and logged.
        removed["refresh sessions"] = try await inBatches {
            try await storage.purgeRefreshTokenFamilies(startedBefore: now.addingTimeInterval(-familyLifetime - min(86400, familyLifetime)), limit: Self.batch)
        }
        removed["rate-limit counts"] = try await storage.purgeRequestCounts(before: now.addingTimeInterval(-120))
        // Kept a day past their end, so that the next code still waits out its run's doubled
        // cool-down (AccountRecoveryService forgets a run a day after its last code).
        removed["one-time codes"] = try await storage.purgeOneTimeCodes(expiredBefore: now.addingTimeInterval(-86400))
        // Sent and given-up messages (their bodies already erased) are kept a week, for an
        // operator asking whether a mail went out.
        removed["sent mail"] = try await inBatches { try await storage.purgeMail(queuedBefore: now.addingTimeInterval(-7 * 86400), limit: Self.batch) }
        // Finished deliveries stay a week for GET /admin/v1/webhooks/deliveries; retries end
        // three days after their event.
        removed["webhook deliveries"] = try await inBatches {
            try await storage.purgeWebhookDeliveries(before: now.addingTimeInterval(-7 * 86400), limit: Self.batch)
        }
        // Finished logout notices, likewise: a week to ask whether a client was told.
        removed["logout notices"] = try await inBatches {
            try await storage.purgeBackchannelLogouts(before: now.addingTimeInterval(-7 * 86400), limit: Self.batch)
        }
        if removed.values.contains(where: { $0 > 0 }) { try await storage.reclaimSpace(pages: 2000) }
        return removed
    }

    /// Repeats a batched deletion until a batch comes back short, yielding between batches.
    private func inBatches(_ delete: () async throws -> Int) async throws -> Int {
        var total = 0
        while true {
            let count = try await delete()
            total += count
            if count < Self.batch { return total }
            await Task.yield()
        }
    }
}
