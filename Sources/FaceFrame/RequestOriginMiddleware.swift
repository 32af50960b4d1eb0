import IdentityCore
public import Hummingbird

/// Records where each request comes from (``RequestOrigin``) in its context, for the audit
/// events its handler's core call records: the client's address as the connection handler
/// wrote it, the `User-Agent`, and the face its path belongs to.
public struct RequestOriginMiddleware<Context: OriginRequestContext>: RouterMiddleware {
    /// The faces this server serves, whose prefixes name a request's face.
    let faces: [Face]

    /// Names each request's face among `faces`.
    public init(faces: [Face]) { self.faces = faces }

    @concurrent public func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.origin = RequestOrigin(
            ip: request.headers.firstValue(ClientAddressHeader.name),
            userAgent: request.headers.firstValue(.userAgent), face: Face.name(of: request.uri.path, among: faces)
        )
        return try await next(request, context)
    }
}
