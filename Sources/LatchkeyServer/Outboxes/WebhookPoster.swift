import AsyncHTTPClient
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import IdentityCore
import Tracing
import NIOCore
import NIOHTTP1

/// Posts one delivery to the very address its host was checked at: the name is resolved
/// once, every address it gives is held to ``WebhookAddressPolicy``, and the connection goes
/// to the first of them (AsyncHTTPClient's `dnsOverride`, which keeps the name for TLS), so a
/// name that points elsewhere by the time of the request (DNS rebinding) changes nothing.
/// AsyncHTTPClient also reaches IPv6 literals (`http://[::1]:8080/`), which Foundation's
/// URLSession cannot on Linux.
struct WebhookPoster: Sendable {
    /// How a post ended.
    enum Outcome: Sendable, Equatable {
        /// The endpoint answered with this status.
        case answered(Int)
        /// The policy refuses an address the name resolves to: never retried.
        case refused(String)
        /// No answer (the name does not resolve, no connection, a timeout): retried.
        case unreachable(String)
        /// This server stopped during the attempt: nothing is known of the endpoint, so the
        /// attempt counts for nothing and the next sender (another instance, or this one
        /// started again) tries at once, not after a failure's backoff.
        case interrupted
    }

    /// What an attempt that ended this way records, the same for every outbox: a refused
    /// address fails, no answer is tried again on the outbox's schedule (`retry`), an
    /// interrupted attempt is due again at `now`, and what an answer means is the
    /// outbox's own (`answered`).
    static func attemptOutcome(
        _ outcome: Outcome, now: Date, retry: (_ status: Int?, _ error: String) -> WebhookAttemptOutcome, answered: (Int) -> WebhookAttemptOutcome
    ) -> WebhookAttemptOutcome {
        switch outcome {
        case .refused(let refusal): .failed(status: nil, error: refusal)
        case .unreachable(let problem): retry(nil, problem)
        case .interrupted: .retry(status: nil, error: "this server stopped during the attempt", retryAt: now)
        case .answered(let status): answered(status)
        }
    }

    let policy: WebhookAddressPolicy
    /// Resolves a host name to addresses; `getaddrinfo` unless a test gives its own.
    var resolve: @Sendable (String) -> (addresses: [String], problem: String?) = Self.systemAddresses
    /// How long one attempt may take.
    var timeout: TimeInterval = 15

    func post(_ url: URL, headers: [(String, String)], body: [UInt8]) async -> Outcome {
        guard let host = url.host?.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), !host.isEmpty else { return .refused("the URL has no host") }
        // getaddrinfo blocks: off the event loops that serve requests.
        let resolve = self.resolve
        let resolved: (addresses: [String], problem: String?) = AddressRange.isAddress(host) ? ([host], nil) : await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: resolve(host)) }
        }
        if let problem = resolved.problem { return .unreachable(problem) }
        if let refusal = resolved.addresses.lazy.compactMap(policy.refusal(for:)).first { return .refused(refusal) }
        guard !resolved.addresses.isEmpty else { return .unreachable("\(host) does not resolve") }
        // Each checked address in turn, as a client would try a name's addresses, until one answers.
        var outcome = Outcome.unreachable("\(host) does not resolve")
        for address in resolved.addresses {
            outcome = await post(url, host: host, at: address, headers: headers, body: body)
            switch outcome {
            case .answered, .interrupted: return outcome
            case .refused, .unreachable: continue
            }
        }
        return outcome
    }

    /// One attempt at one checked address, in a client span whose context the request
    /// carries (`traceparent`), so the receiver's trace continues this one. The span names the
    /// host and port, never the URL's path or query, which can carry the receiver's secrets.
    private func post(_ url: URL, host: String, at address: String, headers: [(String, String)], body: [UInt8]) async -> Outcome {
        await Spans.traced("POST", kind: .client) { span in
            span?.updateAttributes { attributes in
                attributes["http.request.method"] = "POST"
                attributes["server.address"] = host
                attributes["server.port"] = url.port ?? (url.scheme == "https" ? 443 : 80)
                attributes["network.peer.address"] = address
            }
            let outcome = await send(url, host: host, at: address, headers: headers, body: body)
            switch outcome {
            case .answered(let status):
                span?.attributes["http.response.status_code"] = status
                if status >= 400 { span?.setStatus(SpanStatus(code: .error)) }
            case .refused, .unreachable, .interrupted:
                span?.setStatus(SpanStatus(code: .error))
            }
            return outcome
        }
    }

    private func send(_ url: URL, host: String, at address: String, headers: [(String, String)], body: [UInt8]) async -> Outcome {
        let limit = TimeAmount.nanoseconds(Int64(timeout * 1_000_000_000))
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow, timeout: .init(connect: limit, read: limit))
        if !AddressRange.isAddress(host) { configuration.dnsOverride = [host: address] }
        // AsyncHTTPClient's own span would record the URL, whose path and query can be the
        // receiver's secret; this poster's span says the host and port alone.
        configuration.tracing.tracer = nil
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        TraceContext.inject(into: &request.headers)
        request.body = .bytes(ByteBuffer(bytes: body))
        let outcome: Outcome
        do {
            let response = try await client.execute(request, timeout: limit)
            // The answer's body says nothing the delivery needs; a little is read so the
            // connection ends cleanly.
            _ = try? await response.body.collect(upTo: 64 * 1024)
            outcome = .answered(Int(response.status.code))
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout {
            outcome = .unreachable("no answer: timed out after \(Int(timeout)) s")
        } catch {
            outcome = Task.isCancelled ? .interrupted : .unreachable("no answer: \(error)")
        }
        try? await client.shutdown()
        return outcome
    }

    /// The addresses a host name resolves to now.
    static func systemAddresses(of host: String) -> (addresses: [String], problem: String?) {
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
                let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if !addresses.contains(text) { addresses.append(text) }
            }
            cursor = entry.pointee.ai_next
        }
        return (addresses, addresses.isEmpty ? "\(host) does not resolve" : nil)
    }
}
