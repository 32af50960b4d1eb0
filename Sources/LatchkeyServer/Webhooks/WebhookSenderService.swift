import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif
import IdentityCore
import LatchkeyWire
import Logging
import ServiceLifecycle

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

    /// Wake-ups for the events of `kinds` this instance commits.
    static func wakeUps(from feed: SecurityEventFeed, kinds: Set<AuditEvent.Kind>) -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        if !kinds.isEmpty { feed.watch { event in if kinds.contains(event.kind) { continuation.yield() } } }
        return stream
    }

    /// How long one attempt may take.
    static let timeout: TimeInterval = 15
    /// Deliveries claimed at once, sent side by side.
    static let batch = 16

    func run() async throws {
        let session = URLSession(configuration: Self.sessionConfiguration, delegate: RedirectRefusal(), delegateQueue: nil)
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await _ in wakeUps {
                        try? await Task.sleep(for: .milliseconds(20))
                        await round(session)
                    }
                }
                group.addTask {
                    while !Task.isCancelled {
                        await round(session)
                        try? await Task.sleep(for: pollInterval)
                    }
                }
            }
        }
        session.invalidateAndCancel()
    }

    private static var sessionConfiguration: URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        return configuration
    }

    /// Sends until nothing is due.
    private func round(_ session: URLSession) async {
        do {
            while try await sendDue(session) > 0 {}
        } catch {
            logger.warning("could not read the webhooks' outbox", metadata: ["error": "\(error)"], source: "webhooks")
        }
    }

    /// Sends what is due now. - Returns: How many deliveries were tried.
    private func sendDue(_ session: URLSession) async throws -> Int {
        let now = clock.now()
        let due = try await store.claimWebhookDeliveries(dueAt: now, leaseUntil: now.addingTimeInterval(Self.timeout * 2 + 30), limit: Self.batch)
        await withTaskGroup(of: Void.self) { group in
            for delivery in due { group.addTask { await deliver(delivery, session) } }
        }
        return due.count
    }

    private func deliver(_ delivery: WebhookDelivery, _ session: URLSession) async {
        let outcome: WebhookAttemptOutcome
        if let endpoint = endpoints[delivery.endpointID] {
            outcome = await attempt(delivery, to: endpoint, session)
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

    /// One attempt: the address checked, the body signed and posted.
    private func attempt(_ delivery: WebhookDelivery, to endpoint: WebhookEndpoint, _ session: URLSession) async -> WebhookAttemptOutcome {
        guard let type = WebhookEventType(reporting: delivery.event.event.kind) else {
            return .failed(status: nil, error: "no webhook type reports \(delivery.event.event.kind.rawValue)")
        }
        // Checked before every attempt: a name may point elsewhere since the last one.
        // getaddrinfo blocks: off the event loops that serve requests.
        let resolved = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: Self.addresses(of: endpoint.url)) }
        }
        if let problem = resolved.problem { return retry(delivery, status: nil, error: problem) }
        if let refusal = resolved.addresses.lazy.compactMap(policy.refusal(for:)).first { return .failed(status: nil, error: refusal) }
        let body = WebhookPayload.body(delivery, type: type)
        let timestamp = Int64(clock.now().timeIntervalSince1970)
        var request = URLRequest(url: endpoint.url, timeoutInterval: Self.timeout)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(delivery.id, forHTTPHeaderField: "webhook-id")
        request.setValue(String(timestamp), forHTTPHeaderField: "webhook-timestamp")
        request.setValue(StandardWebhookSignature.header(id: delivery.id, timestamp: timestamp, body: body, secrets: endpoint.secrets), forHTTPHeaderField: "webhook-signature")
        request.setValue("Latchkey-Webhooks/1", forHTTPHeaderField: "User-Agent")
        do {
            let (_, response) = try await session.upload(for: request, from: Data(body))
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            switch status {
            case 200..<300: return .delivered(status: status)
            case 410: return .failed(status: 410, error: "410 Gone: the endpoint is turned off")
            case 300..<400: return retry(delivery, status: status, error: "answered a redirect (\(status)), which is not followed")
            default: return retry(delivery, status: status, error: "answered \(status)")
            }
        } catch {
            return retry(delivery, status: nil, error: (error as? URLError).map { "no answer: \($0.code.rawValue == URLError.timedOut.rawValue ? "timed out after \(Int(Self.timeout)) s" : $0.localizedDescription)" } ?? "no answer: \(error)")
        }
    }

    private func retry(_ delivery: WebhookDelivery, status: Int?, error: String) -> WebhookAttemptOutcome {
        guard let next = WebhookRetrySchedule.nextAttempt(after: delivery.attempts, createdAt: delivery.createdAt, now: clock.now()) else {
            return .failed(status: status, error: error + "; retries ran out")
        }
        return .retry(status: status, error: error, retryAt: next)
    }

    /// The addresses the URL's host resolves to now.
    static func addresses(of url: URL) -> (addresses: [String], problem: String?) {
        guard let host = url.host?.trimmingCharacters(in: CharacterSet(charactersIn: "[]")) else { return ([], "the URL has no host") }
        if AddressRange.isAddress(host) { return ([host], nil) }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let first = list else { return ([], "\(host) does not resolve") }
        defer { freeaddrinfo(list) }
        var addresses: [String] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(entry.pointee.ai_addr, entry.pointee.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 {
                addresses.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
            cursor = entry.pointee.ai_next
        }
        return (addresses, addresses.isEmpty ? "\(host) does not resolve" : nil)
    }
}

/// Refuses every redirect: a webhook goes to the configured URL and nowhere else.
private final class RedirectRefusal: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
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
