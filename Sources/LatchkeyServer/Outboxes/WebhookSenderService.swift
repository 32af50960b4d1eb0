import Foundation
import IdentityCore
import LatchkeyWire
import Logging
import ServiceLifecycle
import Tracing

/// Sends the webhooks' outbox: claims due deliveries (a lease, so that no other sender on
/// any instance takes them meanwhile), posts each to its endpoint signed per Standard
/// Webhooks 1.0, and records the answer: 2xx delivered, `410` turns the endpoint off,
/// anything else (or no answer within 15 s) is tried again on ``WebhookRetrySchedule``.
/// At least once: a delivery whose answer was lost is sent again, with the same
/// `webhook-id`.
struct WebhookSenderService: Service {
    let store: any WebhookStore
    let endpoints: [String: WebhookEndpoint]
    let policy: WebhookAddressPolicy
    let clock: any WallClock
    /// Woken when this instance commits an event some endpoint wants; other instances'
    /// events and retries are found by polling at ``pollInterval``.
    let wakeUps: AsyncStream<Void>
    let logger: Logger
    var pollInterval: Duration = .seconds(1)

    /// How long one attempt may take.
    static let timeout: TimeInterval = 15
    /// Deliveries claimed at once, sent side by side.
    static let batch = 16

    func run() async throws {
        let poster = WebhookPoster(policy: policy, timeout: Self.timeout)
        await OutboxPump.run(wakeUps: wakeUps, pollInterval: pollInterval, logger: logger, source: "webhooks", failure: "could not read the webhooks' outbox") {
            let now = clock.now()
            return try await store.claimWebhookDeliveries(dueAt: now, leaseUntil: now.addingTimeInterval(Self.timeout * 2 + 30), limit: Self.batch)
        } send: { await deliver($0, poster) }
    }

    /// One attempt, in a span of its own (the endpoint, the event type, the attempt's
    /// number) whose POST is its child.
    private func deliver(_ delivery: WebhookDelivery, _ poster: WebhookPoster) async {
        await Spans.traced("webhook.deliver", kind: .producer) { span in
            span?.updateAttributes { attributes in
                attributes["webhook.endpoint"] = delivery.endpointID
                attributes["webhook.event"] = delivery.event.event.kind.rawValue
                attributes["webhook.attempt"] = delivery.attempts + 1
            }
            await deliverNow(delivery, poster)
        }
    }

    private func deliverNow(_ delivery: WebhookDelivery, _ poster: WebhookPoster) async {
        let outcome: WebhookAttemptOutcome
        if let endpoint = endpoints[delivery.endpointID] {
            outcome = await attempt(delivery, to: endpoint, poster)
        } else {
            outcome = .failed(status: nil, error: "the endpoint is no longer configured")
        }
        do {
            if case .failed(410?, _) = outcome {
                try await store.disableWebhookEndpoint(id: delivery.endpointID, reason: "answered 410 Gone", at: clock.now())
                logger.warning("webhook endpoint answered 410 Gone: turned off", metadata: ["endpoint": "\(delivery.endpointID)"], source: "webhooks")
            }
            try await store.finishWebhookDelivery(id: delivery.id, outcome: outcome, at: clock.now())
        } catch {
            logger.warning("could not record a webhook attempt", metadata: ["delivery": "\(delivery.id)", "error": "\(error)"], source: "webhooks")
        }
    }

    /// One attempt: the body signed and posted to the address the name was checked at.
    private func attempt(_ delivery: WebhookDelivery, to endpoint: WebhookEndpoint, _ poster: WebhookPoster) async -> WebhookAttemptOutcome {
        guard let type = WebhookEventType(reporting: delivery.event.event.kind) else {
            return .failed(status: nil, error: "no webhook type reports \(delivery.event.event.kind.rawValue)")
        }
        let body = WebhookPayload.body(delivery, type: type)
        let timestamp = Int64(clock.now().timeIntervalSince1970)
        let headers = [
            ("Content-Type", "application/json"), ("webhook-id", delivery.id), ("webhook-timestamp", String(timestamp)),
            ("webhook-signature", StandardWebhookSignature.header(id: delivery.id, timestamp: timestamp, body: body, secrets: endpoint.secrets)),
            ("User-Agent", "Latchkey-Webhooks/1"),
        ]
        // Checked before every attempt: a name may point elsewhere since the last one.
        let outcome = await poster.post(endpoint.url, headers: headers, body: body)
        return WebhookPoster.attemptOutcome(outcome, now: clock.now(), retry: { retry(delivery, status: $0, error: $1) }) { status in
            switch status {
            case 200..<300: .delivered(status: status)
            case 410: .failed(status: 410, error: "410 Gone: the endpoint is turned off")
            case 300..<400: retry(delivery, status: status, error: "answered a redirect (\(status)), which is not followed")
            default: retry(delivery, status: status, error: "answered \(status)")
            }
        }
    }

    private func retry(_ delivery: WebhookDelivery, status: Int?, error: String) -> WebhookAttemptOutcome {
        WebhookRetrySchedule.retry(after: delivery.attempts, createdAt: delivery.createdAt, now: clock.now(), status: status, error: error)
    }
}

/// The body of a delivery: `{type, timestamp, data}`.
enum WebhookPayload {
    static func body(_ delivery: WebhookDelivery, type: WebhookEventType) -> [UInt8] {
        let event = delivery.event.event
        var data: [String: Any] = ["event_id": String(delivery.event.id), "audit_type": event.kind.rawValue]
        if let userID = event.userID { data["user_id"] = userID.rawValue }
        if let clientID = event.clientID { data["client_id"] = clientID }
        if let credentialID = event.credentialID { data["credential_id"] = credentialID }
        if !event.detail.isEmpty { data["details"] = event.detail }
        if let actor = event.actor { data["actor"] = actor }
        let object: [String: Any] = ["type": type.rawValue, "timestamp": ISO8601DateFormatter().string(from: event.time), "data": data]
        return Array((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8))
    }
}
