import IdentityCore
public import Hummingbird

/// Records where each request comes from (``RequestOrigin``) for the audit events made while
/// it is served: the client's address as the connection handler wrote it, the `User-Agent`,
/// and the face its path belongs to.
public struct RequestOriginMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The faces this server serves, whose prefixes name a request's face.
    let faces: [Face]

    /// Names each request's face among `faces`.
    public init(faces: [Face]) { self.faces = faces }

    @concurrent public func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        let origin = RequestOrigin(
            ip: request.headers.firstValue(ClientAddressHeader.name),
            userAgent: request.headers.firstValue(.userAgent), face: Face.name(of: request.uri.path, among: faces)
        )
        return try await RequestOrigin.$current.withValue(origin) { try await next(request, context) }
    }
}
