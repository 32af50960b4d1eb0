public import HTTPTypes
public import Hummingbird
public import IdentityCore

/// Applies the rate limits to a face's ceremony endpoints, inside the face's route group so
/// that a refusal is rendered in the face's own format (`429`, `Retry-After`). The client is
/// the address the connection handler wrote into `X-Latchkey-Client-Address`.
public struct RateLimitMiddleware<Context: RequestContext>: RouterMiddleware {
    let limits: RateLimits?

    /// Creates the middleware; `nil` limits nothing.
    public init(_ limits: RateLimits?) { self.limits = limits.flatMap { $0.isLimiting ? $0 : nil } }

    /// The header the server's connection handler sets from the socket (or from a trusted
    /// proxy's `X-Forwarded-For`), replacing any the client sent.
    public static var clientAddressHeader: HTTPField.Name { HTTPField.Name("X-Latchkey-Client-Address")! }

    @concurrent public func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        guard let limits, let kind = RateLimitedRoutes.kind(request.method, request.uri.path) else { return try await next(request, context) }
        let client = request.headers[Self.clientAddressHeader] ?? "unknown"
        try await limits.admit(kind, from: client)
        guard kind == .finish, limits.failuresPerWindow > 0 else { return try await next(request, context) }
        // A finish is also refused while the address's failures are over their limit, and
        // counts as one when it fails for the client's reasons (a 4xx other than 429), whether
        // the handler threw or answered with the error itself.
        try await limits.admitAfterFailures(from: client)
        do {
            let response = try await next(request, context)
            if (400..<500).contains(response.status.code), response.status != .tooManyRequests { try await limits.noteFailure(from: client) }
            return response
        } catch let error as IdentityError where error.isClientFailure {
            try await limits.noteFailure(from: client)
            throw error
        }
    }
}

/// The limited endpoints of every face, matched by method and path.
enum RateLimitedRoutes {
    /// Which limit a request counts against: starting a ceremony (a challenge, a flow, an
    /// enrollment, a sign-up) or finishing one (a token request, a flow submission, a
    /// completion). Everything else is not limited.
    static func kind(_ method: HTTPRequest.Method, _ path: String) -> RateLimits.Kind? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        for (routeMethod, pattern, kind) in routes where routeMethod == method && pattern.count == parts.count {
            if zip(pattern, parts).allSatisfy({ $0 == "*" || $0 == $1 }) { return kind }
        }
        return nil
    }

    /// The limited endpoints of every face; `*` stands for one path segment.
    private static let routes: [(HTTPRequest.Method, [Substring], RateLimits.Kind)] = {
        let starts: [(HTTPRequest.Method, String)] = [
            (.post, "passkey/register"), (.post, "passkey/challenge"), (.post, "dbconnections/signup"),
            (.post, "me/v1/authentication-methods"),
            (.get, "self-service/*/api"), (.get, "self-service/*/browser"),
            (.post, "api/web/v1/adminapi/authenticate"), (.post, "api/web/v2/authentication/users/authenticate/*"),
            (.post, "api/web/v1/authentication/passkey"), (.get, "api/web/v1/fidotokens/challenge/*"),
            (.post, "ui/signup"), (.post, "ui/login"), (.post, "ui/passkeys/options"),
        ]
        let finishes: [(HTTPRequest.Method, String)] = [
            (.post, "oauth/token"), (.post, "me/v1/authentication-methods/*/verify"), (.post, "self-service/*"),
            (.post, "api/web/v1/authentication/users/authenticate/*/complete"), (.post, "api/web/v1/fidotokens/complete/*"),
            (.post, "ui/session"), (.post, "ui/password-session"), (.post, "ui/password-signup"), (.post, "ui/passkeys"),
        ]
        return starts.map { ($0.0, $0.1.split(separator: "/"), .start) } + finishes.map { ($0.0, $0.1.split(separator: "/"), .finish) }
    }()
}
