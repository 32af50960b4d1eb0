import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LatchkeyClient
import LatchkeyServer
import Testing

/// OpenTelemetry from a real server process to a real OTLP/HTTP collector (the
/// opentelemetry-proto receiver): one login's trace under the caller's `traceparent`, its
/// storage and verification spans, its log records, the metrics, the sampling ratio, and the
/// trace context a webhook delivery carries on.
@Suite("Telemetry: OTLP traces, logs and metrics from a real server process", .serialized, .timeLimit(.minutes(10)))
struct TelemetryTests {
    /// A caller's trace: what an app or a gateway in front of Latchkey would send.
    static let traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
    static let callerSpanID = "00f067aa0ba902b7"

    /// Every request of an app's client carries the caller's `traceparent`.
    struct TracedTransport: LatchkeyTransport {
        let traceparent: String
        func send(_ request: URLRequest) async throws -> (Data, URLResponse) {
            var request = request
            request.setValue(traceparent, forHTTPHeaderField: "traceparent")
            request.setValue("vendor=opaque", forHTTPHeaderField: "tracestate")
            return try await URLSession.shared.data(for: request)
        }
    }

    /// The exporter's batches go out within a fraction of a second, so the test waits little.
    static let environment = ["OTEL_BSP_SCHEDULE_DELAY": "100", "OTEL_BLRP_SCHEDULE_DELAY": "100", "OTEL_METRIC_EXPORT_INTERVAL": "500"]

    static func configuration(_ collector: OTLPReceiver, ratio: String = "1", extra: String = "") -> String {
        EndToEndTests.configuration + """

            telemetry:
              otlp_endpoint: \(collector.endpoint)/
              service_name: latchkey-under-test
              sample_ratio: \(ratio)
              headers: { x-collector-key: collector-s3cret }
            \(extra)
            """
    }

    @Test func oneLoginIsOneTraceWithItsStorageVerificationAndLogs() async throws {
        let collector = try await OTLPReceiver.start()
        defer { collector.stop() }
        let webhooks = try await WebhookReceiver.start(secret: WebhookReceiver.secret(3))
        defer { webhooks.stop() }
        let directory = try TemporaryDirectory()
        let server = try await ServerProcess.start(
            configuration: Self.configuration(collector, extra: """
                webhooks:
                  endpoints: [{url: \(webhooks.url), secret: \(WebhookReceiver.secret(3)), events: [user.created]}]
                  allow_private_networks: [127.0.0.1/32]
                """),
            in: directory, environment: Self.environment
        )
        defer { server.stop() }
        var ada = PasskeyUser(server: server.baseURL, transport: TracedTransport(traceparent: "00-\(Self.traceID)-\(Self.callerSpanID)-01"))
        try await ada.signUp(SignupProfile(email: "ada@example.com"))
        try await ada.signIn()

        // The login's finish: a server span of the caller's trace, its parent the caller's span.
        let spans = try await collector.waitForSpans { spans in
            spans.contains { $0.name == "webauthn.verify_authentication" } && spans.contains { $0.name == "webauthn.verify_registration" }
                && spans.contains { $0.name == "webhook.deliver" }
        }
        let verification = try #require(spans.first { $0.name == "webauthn.verify_authentication" })
        #expect(verification.traceID == Self.traceID)
        #expect(verification.attributes["webauthn.outcome"] == "ok" && verification.attributes["webauthn.algorithm"] == -7, "\(verification.attributes)")
        let request = try #require(spans.first { $0.spanID == verification.parentSpanID }, "the verification's parent is the request's span")
        #expect(request.kind == "SPAN_KIND_SERVER" && request.name == "POST /oauth/token", "\(request.name) \(request.kind)")
        #expect(request.parentSpanID == Self.callerSpanID && request.traceID == Self.traceID)
        #expect(request.traceState == "vendor=opaque")
        #expect(request.attributes["http.route"] == "/oauth/token" && request.attributes["http.response.status_code"] == 200, "\(request.attributes)")
        #expect(request.attributes["client.address"] == "127.0.0.1" && request.attributes["url.query"] == nil)
        #expect(request.resource["service.name"] == "latchkey-under-test")
        // Its storage operations are its children: SQLite, named, and never a statement's values.
        let storage = spans.filter { $0.parentSpanID == request.spanID && $0.attributes["db.system"] == "sqlite" }
        let operations = Set(storage.compactMap { $0.attributes["db.operation.name"]?.string })
        #expect(operations.contains("completeCeremony"), "\(operations)")
        #expect(storage.allSatisfy { $0.kind == "SPAN_KIND_CLIENT" && $0.attributes["db.query.text"] == nil && $0.attributes["db.statement"] == nil })
        let registration = try #require(spans.first { $0.name == "webauthn.verify_registration" })
        #expect(registration.attributes["webauthn.attestation.format"] == "none" && registration.traceID == Self.traceID, "\(registration.attributes)")
        // Nothing of the sign-up's secrets in any span.
        let everything = spans.map { "\($0.attributes)" }.joined()
        #expect(!everything.contains("ada@example.com"))

        // The webhook's delivery: its own trace (it runs after the request), whose context the
        // POST carried to the receiver.
        let delivery = try #require(spans.first { $0.name == "webhook.deliver" })
        let post = try #require(spans.first { $0.name == "POST" && $0.parentSpanID == delivery.spanID })
        #expect(post.kind == "SPAN_KIND_CLIENT" && post.attributes["http.response.status_code"] == 204, "\(post.attributes)")
        let received = try #require(try await webhooks.waitFor(1).first)
        #expect(
            received.traceparent?.hasPrefix("00-\(post.traceID)-\(post.spanID)-") == true,
            "\(received.traceparent ?? "none") \(spans.filter { ["POST", "webhook.deliver"].contains($0.name) }.map { "\($0.name) \($0.traceID) \($0.spanID) \($0.parentSpanID)" })"
        )

        // The request's log lines carry its trace, over OTLP and on standard output.
        let logs = try await collector.waitForLogs { logs in logs.contains { $0.traceID == Self.traceID && $0.body?.string?.contains("login") == true } }
        let login = try #require(logs.first { $0.traceID == Self.traceID && $0.body?.string?.contains("login") == true })
        #expect(!login.spanID.isEmpty && login.resource["service.name"] == "latchkey-under-test")
        #expect(server.output.text.contains("trace_id=\(Self.traceID)"), "standard output's lines carry the trace ID")

        // The metrics: the ceremonies counted, the requests timed.
        let points = try await collector.waitForMetrics { points in
            points.contains { $0.name == "latchkey_ceremonies_total" && $0.attributes["kind"] == "login" }
                && points.contains { $0.name == "http.server.request.duration" }
        }
        #expect(points.contains { $0.name == "latchkey_database_write_seconds" }, "\(Set(points.map(\.name)))")

        // Every export carried the configured header, as protobuf.
        let exports = collector.requests()
        #expect(Set(exports.map(\.path)) == ["/v1/traces", "/v1/logs", "/v1/metrics"], "\(exports.map(\.path))")
        #expect(exports.allSatisfy { $0.header("x-collector-key") == "collector-s3cret" && $0.header("content-type") == "application/x-protobuf" })
        #expect(collector.rejected().isEmpty)
    }

    @Test func theRatioDecidesForNewTracesAndTheCallerForItsOwn() async throws {
        let collector = try await OTLPReceiver.start()
        defer { collector.stop() }
        let directory = try TemporaryDirectory()
        let server = try await ServerProcess.start(configuration: Self.configuration(collector, ratio: "0"), in: directory, environment: Self.environment)
        defer { server.stop() }
        // Without a trace of their own, none of these is recorded at ratio 0 …
        for _ in 0..<5 {
            let (_, response) = try await URLSession.shared.data(from: server.baseURL.appendingPathComponent(".well-known/openid-configuration"))
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
        }
        // … and a caller that records its trace has this request recorded in it.
        var request = URLRequest(url: server.baseURL.appendingPathComponent("health"))
        request.setValue("00-\(Self.traceID)-\(Self.callerSpanID)-01", forHTTPHeaderField: "traceparent")
        _ = try await URLSession.shared.data(for: request)
        let spans = try await collector.waitForSpans { $0.contains { $0.traceID == Self.traceID } }
        #expect(spans.allSatisfy { $0.traceID == Self.traceID }, "\(spans.map(\.name))")
    }

    @Test(arguments: [
        ("telemetry: { service_name: x }", "telemetry.otlp_endpoint", "required"),
        ("telemetry: { otlp_endpoint: ftp://collector:4318 }", "telemetry.otlp_endpoint", "http or https"),
        ("telemetry: { otlp_endpoint: \"http://collector:4318/?key=x\" }", "telemetry.otlp_endpoint", "http or https"),
        ("telemetry: { otlp_endpoint: http://collector:4318, sample_ratio: 1.5 }", "telemetry.sample_ratio", "from 0 to 1"),
        ("telemetry: { otlp_endpoint: http://collector:4318, sample_ratio: lots }", "telemetry.sample_ratio", "from 0 to 1"),
        ("telemetry: { otlp_endpoint: http://collector:4318, headers: { \"bad header\": x } }", "telemetry.headers.bad header", "header name"),
        ("telemetry: { otlp_endpoint: http://collector:4318, exporter: grpc }", "telemetry.exporter", "not a known key"),
    ])
    func badSettingsNameTheirKey(yaml: String, key: String, words: String) {
        do {
            _ = try ConfigurationLoader.load(overrides: .init(configFile: "latchkey.yaml"), environment: [:]) { _ in yaml }
            Issue.record("\(yaml) loaded")
        } catch {
            #expect(error.key == key && "\(error)".contains(words), "\(yaml) → \(error)")
        }
    }

    @Test func theStandardVariablesTurnItOnAndOff() throws {
        let load = { (environment: [String: String]) in
            try ConfigurationLoader.load(overrides: .init(configFile: "latchkey.yaml"), environment: environment) { _ in "" }.telemetry
        }
        #expect(try load([:]) == nil)
        let fromEnvironment = try #require(try load(["OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318/", "OTEL_SERVICE_NAME": "idp"]))
        #expect(fromEnvironment.otlpEndpoint == "http://collector:4318" && fromEnvironment.serviceName == "idp")
        #expect(try load(["OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318", "OTEL_SDK_DISABLED": "true"]) == nil)
        #expect(throws: ConfigurationError.self) { try load(["OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4318"]) }
    }
}
