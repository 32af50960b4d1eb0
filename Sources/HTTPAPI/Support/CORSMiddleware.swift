import HTTPTypes
public import Hummingbird

/// Cross-origin access to the JSON APIs, for web apps that call Latchkey from their own
/// origin: `latchkey.js` against the passkey endpoints, a single-page app exchanging its
/// authorization code. Only the listed origins are answered, and never with credentials:
/// these endpoints authenticate with client IDs and bearer tokens, not cookies, so a
/// cross-origin page cannot act with a signed-in person's session.
public struct CORSMiddleware<Context: RequestContext>: RouterMiddleware {
    private let allowedOrigins: Set<String>
    private let pathPrefixes: [String]

    /// Creates the middleware.
    /// - Parameters:
    ///   - allowedOrigins: Exact origins (`https://app.example.com`) that may call.
    ///   - pathPrefixes: The paths that take part; everything else gets no CORS headers.
    public init(allowedOrigins: Set<String>, pathPrefixes: [String] = ["/passkey/", "/oauth/", "/userinfo", "/me/", "/.well-known/openid-configuration", "/.well-known/jwks.json"]) {
        self.allowedOrigins = allowedOrigins
        self.pathPrefixes = pathPrefixes
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let origin = request.headers[.origin], pathPrefixes.contains(where: request.uri.path.hasPrefix) else {
            return try await next(request, context)
        }
        let allowed = allowedOrigins.contains(origin)
        if request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            // A preflight. A refused origin gets no CORS headers, so the browser blocks the call.
            var headers: HTTPFields = [.vary: "Origin"]
            if allowed {
                headers[.accessControlAllowOrigin] = origin
                headers[.accessControlAllowMethods] = "GET, POST, PATCH, DELETE"
                headers[.accessControlAllowHeaders] = "Authorization, Content-Type, Auth0-Client"
                headers[.accessControlMaxAge] = "600"
            }
            return Response(status: .noContent, headers: headers)
        }
        var response = try await next(request, context)
        response.headers.append(HTTPField(name: .vary, value: "Origin"))
        if allowed {
            response.headers[.accessControlAllowOrigin] = origin
            response.headers[.accessControlExposeHeaders] = "Location, WWW-Authenticate"
        }
        return response
    }
}
