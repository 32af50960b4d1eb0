import FaceFrame
import HTTPTypes
import Hummingbird
import Instrumentation
import Tracing

/// A server span for each request, after OpenTelemetry's HTTP conventions: named by the
/// method and the route template (`POST /oauth/token`), with the status, the client's
/// address and the path, and the caller's `traceparent` and `tracestate` as its parent.
///
/// Not Hummingbird's `TracingMiddleware`, which records the query (where the faces carry
/// codes, tokens and flow IDs) and the socket's peer (a proxy's address, where the client's
/// is the one the connection handler resolved behind trusted proxies).
struct RequestTracingMiddleware<Context: RequestContext>: RouterMiddleware {
    @concurrent func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        var parent = InstrumentationContext.current ?? .topLevel
        InstrumentationSystem.instrument.extract(request.headers, into: &parent, using: FieldExtractor())
        let span = startSpan(request.method.rawValue, context: parent, ofKind: .server)
        defer { span.end() }
        span.updateAttributes { attributes in
            attributes["http.request.method"] = request.method.rawValue
            attributes["url.path"] = request.uri.path
            attributes["client.address"] = request.headers.firstValue(ClientAddressHeader.name)
            attributes["user_agent.original"] = request.headers.firstValue(.userAgent)
        }
        do {
            let response = try await InstrumentationContext.$current.withValue(span.context) { try await next(request, context) }
            describe(span, route: context.endpointPath, method: request.method, status: Int(response.status.code))
            return response
        } catch {
            let status = Int((error as? any HTTPResponseError)?.status.code ?? 500)
            describe(span, route: context.endpointPath, method: request.method, status: status)
            throw error
        }
    }

    /// The route and status, known once the router has answered. A 5xx is an error span;
    /// a 4xx is the caller's mistake, and the server's span is fine (the conventions' rule).
    private func describe(_ span: any Span, route: String?, method: HTTPRequest.Method, status: Int) {
        if let route {
            span.operationName = "\(method.rawValue) \(route)"
            span.attributes["http.route"] = route
        }
        span.attributes["http.response.status_code"] = status
        if status >= 500 { span.setStatus(SpanStatus(code: .error)) }
    }
}

/// Reads `traceparent` and `tracestate` from a request's fields.
private struct FieldExtractor: Extractor {
    func extract(key name: String, from fields: HTTPFields) -> String? {
        HTTPField.Name(name).flatMap { fields.firstValue($0) }
    }
}
