import Foundation
import IdentityCore
import Logging
import ServiceLifecycle
import Tracing

/// Pushes the Shared Signals streams' events (RFC 8935): claims due deliveries of the
/// enabled push streams from the outbox (instances share it, each delivery claimed by one),
/// signs each as a SET and posts it to the receiver's URL with the stream's `Authorization`.
/// 2xx (202) delivers it; 400 is the receiver refusing that SET, which is not sent again;
/// anything else is retried on the webhooks' schedule. A delivery's `jti` is the same on
/// every attempt, so a receiver drops a repeat.
struct SignalSenderService: Service {
    let store: any IdentityStorage
    let signals: SharedSignalsService
    let policy: WebhookAddressPolicy
    let clock: any WallClock
    let wakeUps: AsyncStream<Void>
    let logger: Logger
    var pollInterval: Duration = .seconds(1)

    /// The webhooks' bounds: how long one attempt may take, and how many are claimed at once.
    private static let (timeout, batch) = (WebhookSenderService.timeout, WebhookSenderService.batch)

    func run() async throws {
        let poster = WebhookPoster(policy: policy, timeout: Self.timeout)
        await OutboxPump.run(wakeUps: wakeUps, pollInterval: pollInterval, logger: logger, source: "ssf", failure: "could not read the Shared Signals outbox") {
            () async throws -> [Claimed] in
            let pushed = try await store.signalStreams().filter { stream in
                if case .push = stream.delivery { return stream.status == .enabled }
                return false
            }
            guard !pushed.isEmpty else { return [] }
            let now = clock.now()
            let claimed = try await store.claimSignalDeliveries(
                streams: pushed.map(\.id), dueAt: now, leaseUntil: now.addingTimeInterval(Self.timeout * 2 + 30), limit: Self.batch
            )
            // Each delivery goes with the stream this claim read: rounds run side by side, so a
            // table shared between them could hold another round's (older) reading.
            let byID = Dictionary(uniqueKeysWithValues: pushed.map { ($0.id, $0) })
            return claimed.map { delivery in Claimed(delivery: delivery, stream: SignalEventType.parse(endpoint: delivery.endpointID).flatMap { byID[$0.stream] }) }
        } send: { (claimed: Claimed) in
            await deliver(claimed.delivery, stream: claimed.stream, poster)
        }
    }

    /// A claimed delivery and its stream, as the claim read it.
    private struct Claimed: Sendable {
        let delivery: WebhookDelivery
        let stream: SignalStream?
    }

    private func deliver(_ delivery: WebhookDelivery, stream: SignalStream?, _ poster: WebhookPoster) async {
        await Spans.traced("ssf.deliver", kind: .producer) { span in
            span?.attributes["ssf.stream"] = stream?.id
            span?.attributes["ssf.attempt"] = delivery.attempts
            let outcome = await attempt(delivery, stream: stream, poster)
            do {
                try await store.finishWebhookDelivery(id: delivery.id, outcome: outcome, at: clock.now())
            } catch {
                logger.warning("could not record a Shared Signals attempt", metadata: ["delivery": "\(delivery.id)", "error": "\(error)"], source: "ssf")
            }
        }
    }

    private func attempt(_ delivery: WebhookDelivery, stream: SignalStream?, _ poster: WebhookPoster) async -> WebhookAttemptOutcome {
        guard let stream, case .push(let endpoint, let authorization) = stream.delivery else {
            return .failed(status: nil, error: "the stream is gone or no longer pushed to")
        }
        let token: String?
        do {
            token = try await signals.token(for: delivery, in: stream)
        } catch {
            return retry(delivery, status: nil, error: "could not sign the event: \(error)")
        }
        // Nothing to say for this one (a name changed, not an email; a subject removed).
        guard let token else { return .delivered(status: 204) }
        var headers = [("Content-Type", "application/secevent+jwt"), ("Accept", "application/json"), ("User-Agent", "Latchkey-SSF/1")]
        if let authorization { headers.append(("Authorization", authorization)) }
        let outcome = await poster.post(endpoint, headers: headers, body: Array(token.utf8))
        return WebhookPoster.attemptOutcome(outcome, now: clock.now(), retry: { retry(delivery, status: $0, error: $1) }) { status in
            switch status {
            case 200..<300: .delivered(status: status)
            // RFC 8935 §2.3: the receiver refused this SET; sending it again changes nothing.
            case 400: .failed(status: 400, error: "the receiver refused the SET (400)")
            default: retry(delivery, status: status, error: "answered \(status)")
            }
        }
    }

    private func retry(_ delivery: WebhookDelivery, status: Int?, error: String) -> WebhookAttemptOutcome {
        WebhookRetrySchedule.retry(after: delivery.attempts, createdAt: delivery.createdAt, now: clock.now(), status: status, error: error)
    }
}
