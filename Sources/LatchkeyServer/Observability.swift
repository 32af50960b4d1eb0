import Foundation
import IdentityCore
import Logging
import Metrics
import OTel
public import Prometheus
public import ServiceLifecycle
import Tracing

/// What `latchkey serve` bootstraps once per process, before the application is built: its
/// log lines (always), Prometheus (`metrics:`) and OpenTelemetry (`telemetry:`).
///
/// With `telemetry`, traces, metrics and logs go to the collector over OTLP/HTTP with
/// protobuf, and the standard `OTEL_*` variables adjust the exporter as they would any
/// OpenTelemetry SDK (they win over the file). The log lines still go to standard output,
/// each with the `trace_id` and `span_id` of the span it was logged in; Prometheus, when
/// also configured, sees the same metrics. Without it nothing is bootstrapped: the tracer is
/// swift-distributed-tracing's no-op one, and ``Spans`` starts none.
public enum Observability {
    /// What was bootstrapped.
    public struct Bootstrapped: Sendable {
        /// The Prometheus registry, with `metrics:`.
        public let prometheus: PrometheusCollectorRegistry?
        /// The OTLP exporters' background work, run with the application.
        public let exporters: [any Service]
    }

    /// Bootstraps logging, metrics and tracing.
    /// - Throws: ``ConfigurationError`` (`telemetry`) when the exporter refuses the settings.
    public static func bootstrap(_ configuration: LatchkeyConfiguration, format: LatchkeyLogHandler.Format) throws -> Bootstrapped {
        let prometheus = configuration.metrics.map { _ in MetricsListener.makeFactory() }
        guard let telemetry = configuration.telemetry else {
            LoggingSystem.bootstrap { LatchkeyLogHandler(label: $0, format: format) }
            if let prometheus { MetricsSystem.bootstrap(prometheus.factory) }
            return Bootstrapped(prometheus: prometheus?.registry, exporters: [])
        }
        let settings = otelConfiguration(telemetry, format: format)
        let logs: (factory: @Sendable (String) -> any LogHandler, service: any Service)
        let metrics: (factory: any MetricsFactory, service: any Service)
        let traces: (tracer: any Tracer, service: any Service)
        do {
            logs = try OTel.makeLoggingBackend(configuration: settings)
            let madeMetrics = try OTel.makeMetricsBackend(configuration: settings)
            metrics = (madeMetrics.factory, madeMetrics.service)
            let madeTraces = try OTel.makeTracingBackend(configuration: settings)
            traces = (madeTraces.factory, madeTraces.service)
        } catch {
            throw ConfigurationError(key: "telemetry", "the OpenTelemetry exporter refuses these settings: \(error)")
        }
        LoggingSystem.bootstrap(
            { label, provider in
                var lines = LatchkeyLogHandler(label: label, format: format)
                lines.metadataProvider = provider
                return MultiplexLogHandler([lines, logs.factory(label)])
            },
            metadataProvider: OTel.makeLoggingMetadataProvider()
        )
        MetricsSystem.bootstrap(prometheus.map { MultiplexMetricsHandler(factories: [$0.factory, metrics.factory]) } ?? metrics.factory)
        InstrumentationSystem.bootstrap(traces.tracer)
        Spans.startRecording()
        return Bootstrapped(prometheus: prometheus?.registry, exporters: [logs.service, metrics.service, traces.service])
    }

    /// The exporter's settings from `telemetry`: every signal over OTLP/HTTP with protobuf to
    /// its path under `otlp_endpoint`, W3C trace context, and the ratio sampler behind the
    /// caller's choice.
    private static func otelConfiguration(_ telemetry: LatchkeyConfiguration.Telemetry, format: LatchkeyLogHandler.Format) -> OTel.Configuration {
        var settings = OTel.Configuration.default
        settings.serviceName = telemetry.serviceName
        settings.propagators = [.traceContext]
        // The exporter's own complaints (a collector that does not answer) go to the log
        // lines directly: through the bootstrapped system they would be exported too.
        settings.diagnosticLogger = .custom(Logger(label: "latchkey.telemetry") { LatchkeyLogHandler(label: $0, format: format) })
        settings.diagnosticLogLevel = .warning
        settings.traces.sampler = .parentBasedTraceIDRatio(ratio: telemetry.sampleRatio) ?? .parentBasedAlwaysOn
        settings.traces.exporter = .otlp
        settings.metrics.exporter = .otlp
        settings.logs.exporter = .otlp
        for (path, keyPath) in [("traces", \OTel.Configuration.traces.otlpExporter), ("metrics", \.metrics.otlpExporter), ("logs", \.logs.otlpExporter)] {
            settings[keyPath: keyPath].endpoint = "\(telemetry.otlpEndpoint)/v1/\(path)"
            settings[keyPath: keyPath].protocol = .httpProtobuf
            settings[keyPath: keyPath].headers = telemetry.headers
        }
        return settings
    }
}
