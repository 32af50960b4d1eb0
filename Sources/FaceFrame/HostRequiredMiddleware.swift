import IdentityCore
public import Hummingbird

/// Refuses a request without `Host` before any route (RFC 9112 §3.2: a server answers 400
/// to an HTTP/1.1 request that lacks it), in the envelope of the face whose path it names.
/// The URLs Latchkey writes come from its public URL, not from `Host`; such requests come
/// only from tools probing the edge.
public struct HostRequiredMiddleware<Context: RequestContext>: RouterMiddleware {
    let envelopes: FaceEnvelopes

    public init(envelopes: FaceEnvelopes) { self.envelopes = envelopes }

    @concurrent public func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        guard request.head.authority == nil else { return try await next(request, context) }
        var response = envelopes.renderer(for: request.uri.path).response(for: IdentityError(.invalidRequest, "the request has no Host header"))
        response.headers[.connection] = "close"
        return response
    }
}
