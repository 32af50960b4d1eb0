import Foundation
import Hummingbird
import IdentityCore
import Logging
import Metrics
import Prometheus

/// Prometheus metrics on a listener of their own (`metrics: {host, port}`), so that they are
/// never exposed where the API is:
/// - `http_server_request_duration` (a histogram in seconds), `hb_requests` and
///   `hb_request_errors` by `http_route`, method and status, and
///   `http_server_active_requests` (Hummingbird's `MetricsMiddleware`), which tell the faces
///   apart by route;
/// - `latchkey_ceremonies_total` by `face` (`hosted_pages`, `kratos`, or `api` for the
///   Auth0-shaped and IDaaS faces), `kind` (signup, login, enrollment), `result` and `client`;
/// - `latchkey_security_events_total` by event;
/// - `latchkey_open_ceremonies`: ceremonies started and neither finished nor expired;
/// - `latchkey_database_write_seconds` and `latchkey_database_read_seconds`.
public enum MetricsListener {
    /// A Prometheus registry and the swift-metrics factory that reports to it, for
    /// ``Observability/bootstrap(_:format:)`` to bootstrap (alone, or beside OTLP's).
    static func makeFactory() -> (registry: PrometheusCollectorRegistry, factory: any MetricsFactory) {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        // Prometheus names allow [a-zA-Z0-9_:]; swift-metrics labels use dots.
        factory.nameAndLabelSanitizer = { name, labels in
            (sanitized(name), labels.map { (sanitized($0.0), $0.1) })
        }
        // Most requests take well under a millisecond; the defaults start at 5 ms.
        factory.defaultDurationHistogramBuckets = [
            .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
            .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .seconds(1), .seconds(5),
        ]
        return (registry, factory)
    }

    private static func sanitized(_ name: String) -> String {
        String(name.map { $0.isLetter || $0.isNumber || $0 == "_" || $0 == ":" ? $0 : "_" })
    }

    /// Counts ceremonies and security events from the feed.
    static func count(_ feed: SecurityEventFeed) {
        feed.watch { event in
            Counter(label: "latchkey_security_events_total", dimensions: [("event", event.kind.rawValue)]).increment()
            let ceremony: (kind: String, result: String)? = switch event.kind {
            case .signup: ("signup", "success")
            case .login: ("login", "success")
            case .enrollment: ("enrollment", "success")
            case .loginFailed: ("login", "failure")
            default: nil
            }
            guard let ceremony else { return }
            let client = event.clientID ?? "unknown"
            let face = switch client {
            case OAuthClient.hostedPages.clientID: "hosted_pages"
            case OAuthClient.selfService.clientID: "kratos"
            default: "api"
            }
            Counter(
                label: "latchkey_ceremonies_total",
                dimensions: [("face", face), ("kind", ceremony.kind), ("result", ceremony.result), ("client", client)]
            ).increment()
        }
    }

    /// `latchkey_open_ceremonies`: started, and neither finished nor expired.
    static func openCeremonies() -> OpenCeremonies {
        let gauge = Gauge(label: "latchkey_open_ceremonies")
        return OpenCeremonies { gauge.record($0) }
    }

    /// `latchkey_rate_limit_refusals_total{kind}`: requests answered 429, by the limit they
    /// passed (`start`, `finish` or `identifier`).
    static func rateLimitRefusals() -> @Sendable (RateLimits.Kind) -> Void {
        { kind in Counter(label: "latchkey_rate_limit_refusals_total", dimensions: [("kind", kind.rawValue)]).increment() }
    }

    /// The listener: `GET /metrics` in the Prometheus text format, nothing else.
    static func application(registry: PrometheusCollectorRegistry, host: String, port: Int, logger: Logger) -> some ApplicationProtocol {
        let router = Router()
        router.get("/metrics") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer()))
            )
        }
        return Application(
            router: router,
            configuration: .init(address: .hostname(host, port: port), serverName: "Latchkey metrics"),
            onServerRunning: { channel in
                logger.info("metrics on http://\(host):\(channel.localAddress?.port ?? port)/metrics")
            },
            logger: logger
        )
    }
}
