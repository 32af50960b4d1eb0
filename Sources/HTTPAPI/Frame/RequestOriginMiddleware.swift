public import Hummingbird
import IdentityCore

/// Records where each request comes from (``RequestOrigin``) for the audit events made while
/// it is served: the client's address as the connection handler wrote it, the `User-Agent`,
/// and the face its path belongs to.
public struct RequestOriginMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Creates the middleware.
    public init() {}

    @concurrent public func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        let origin = RequestOrigin(
            ip: request.headers.firstValue(ClientAddressHeader.name),
            userAgent: request.headers.firstValue(.userAgent), face: RequestFaces.face(of: request.uri.path)
        )
        return try await RequestOrigin.$current.withValue(origin) { try await next(request, context) }
    }
}

/// Which face a path belongs to, as audit events name it.
public enum RequestFaces {
    /// Path prefixes and the face each belongs to; anything else is the hosted pages'.
    static let faces: [(prefix: String, face: String)] = [
        ("/admin/", "admin_api"), ("/me/", "my_account"), ("/self-service/", "kratos"), ("/sessions", "kratos"), ("/api/web/", "idaas"),
        ("/oauth/", "authentication_api"), ("/passkey/", "authentication_api"), ("/passwordless/", "authentication_api"),
        ("/dbconnections/", "authentication_api"), ("/co/", "authentication_api"), ("/recovery/", "authentication_api"),
        ("/userinfo", "oidc"), ("/.well-known/", "oidc"),
    ]

    /// The face a path belongs to.
    public static func face(of path: String) -> String {
        faces.first { path.hasPrefix($0.prefix) }?.face ?? "hosted_pages"
    }
}
