import HTTPTypes
public import Hummingbird

/// Cross-origin access to the JSON APIs, for web apps that call Latchkey from their own
/// origin: `latchkey.js` against the passkey endpoints, a single-page app exchanging its
/// authorization code. Only the listed origins are answered, and never with credentials:
/// these endpoints authenticate with client IDs and bearer tokens, not cookies, so a
/// cross-origin page cannot act with a signed-in person's session.
///
/// The Kratos face's browser flows are the exception, as in Kratos: a custom UI on one of
/// the relying party's own web origins reads flows and `/sessions/whoami` with the
/// browser's cookies. Those paths answer only those origins, with credentials, and their
/// submissions are protected by a CSRF token besides.
public struct CORSMiddleware<Context: RequestContext>: RouterMiddleware {
    private let allowedOrigins: Set<String>
    private let pathPrefixes: [String]
    private let credentialedOrigins: Set<String>
    private let credentialedPathPrefixes: [String]

    /// - Parameters:
    ///   - allowedOrigins: Exact origins (`https://app.example.com`) that may call.
    ///   - pathPrefixes: The paths that take part; everything else gets no CORS headers.
    ///   - credentialedOrigins: Origins that may call `credentialedPathPrefixes` with cookies.
    ///   - credentialedPathPrefixes: The paths that answer with credentials.
    public init(
        allowedOrigins: Set<String>,
        pathPrefixes: [String] = ["/passkey/", "/oauth/", "/userinfo", "/me/", "/.well-known/openid-configuration", "/.well-known/jwks.json"],
        credentialedOrigins: Set<String> = [],
        credentialedPathPrefixes: [String] = ["/self-service/", "/sessions"]
    ) {
        self.allowedOrigins = allowedOrigins
        self.pathPrefixes = pathPrefixes
        self.credentialedOrigins = credentialedOrigins
        self.credentialedPathPrefixes = credentialedPathPrefixes
    }

    @concurrent public func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        guard let origin = request.headers[.origin] else { return try await next(request, context) }
        let path = request.uri.path
        let credentialed = credentialedPathPrefixes.contains(where: path.hasPrefix)
        guard credentialed || pathPrefixes.contains(where: path.hasPrefix) else { return try await next(request, context) }
        let allowed = credentialed ? credentialedOrigins.contains(origin) : allowedOrigins.contains(origin)
        if request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            // A preflight. A refused origin gets no CORS headers, so the browser blocks the call.
            var headers: HTTPFields = [.vary: "Origin"]
            if allowed {
                headers[.accessControlAllowOrigin] = origin
                headers[.accessControlAllowMethods] = "GET, POST, PATCH, DELETE"
                headers[.accessControlAllowHeaders] = credentialed ? "Accept, Content-Type, X-Session-Token" : "Authorization, Content-Type, Auth0-Client"
                headers[.accessControlMaxAge] = "600"
                if credentialed { headers[.accessControlAllowCredentials] = "true" }
            }
            return Response(status: .noContent, headers: headers)
        }
        var response = try await next(request, context)
        response.headers.append(HTTPField(name: .vary, value: "Origin"))
        if allowed {
            response.headers[.accessControlAllowOrigin] = origin
            if credentialed {
                response.headers[.accessControlAllowCredentials] = "true"
                response.headers[.accessControlExposeHeaders] = "X-Kratos-Authenticated-Identity-Id"
            } else {
                response.headers[.accessControlExposeHeaders] = "Location, WWW-Authenticate"
            }
        }
        return response
    }
}
