import Instrumentation
import NIOHTTP1
import Tracing

/// The current span's W3C trace context (`traceparent`, `tracestate`) on a delivery
/// (``WebhookPoster``), whose client span is Latchkey's rather than AsyncHTTPClient's. Without
/// telemetry the instrument is the no-op one, which writes nothing.
enum TraceContext {
    static func inject(into headers: inout HTTPHeaders) {
        guard let context = InstrumentationContext.current else { return }
        InstrumentationSystem.instrument.inject(context, into: &headers, using: HeadersInjector())
    }

    private struct HeadersInjector: Injector {
        func inject(_ value: String, forKey key: String, into headers: inout HTTPHeaders) {
            headers.replaceOrAdd(name: key, value: value)
        }
    }
}
