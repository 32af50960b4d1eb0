import Foundation
public import Hummingbird
public import IdentityCore

/// The request context of routes that need a bearer access token: the authentication
/// middleware fills ``grant`` before any handler runs.
public struct BearerRequestContext: ChildRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The verified access token's grant; set by ``BearerAuthenticationMiddleware``.
    public var grant: AccessGrant?

    public init(context: BasicRequestContext) throws {
        self.coreContext = context.coreContext
    }

    /// The grant, requiring a scope.
    /// - Throws: `invalid_token` when no middleware authenticated the request, and
    ///   `insufficient_scope` when the token lacks `scope`.
    /// The grant, when it carries any one of `scopes`.
    public func grant(requiringAnyOf scopes: [String]) throws -> AccessGrant {
        guard let grant else { throw IdentityError(.invalidToken, "a bearer access token is required") }
        guard scopes.contains(where: grant.scopes.contains) else {
            throw IdentityError(.insufficientScope, "the access token needs one of the scopes \(scopes.joined(separator: ", "))", reason: .missingScope(scopes[0]))
        }
        return grant
    }

    public func grant(requiring scope: String) throws -> AccessGrant {
        guard let grant else { throw IdentityError(.invalidToken, "a bearer access token is required") }
        guard grant.scopes.contains(scope) else {
            throw IdentityError(.insufficientScope, "the access token lacks the \(scope) scope", reason: .missingScope(scope))
        }
        return grant
    }
}

/// Turns `Authorization: Bearer …` into a verified ``AccessGrant`` on the context, for one
/// audience; a missing, malformed, expired or revoked token is refused before the handler.
public struct BearerAuthenticationMiddleware: RouterMiddleware {
    public typealias Context = BearerRequestContext
    let tokens: TokenService
    let audience: String?

    /// Creates the middleware.
    /// - Parameter audience: The audience the token must be for; `nil` accepts any of this issuer's.
    public init(tokens: TokenService, audience: String?) {
        self.tokens = tokens
        self.audience = audience
    }

    @concurrent public func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.grant = try await tokens.authorize(BearerToken.from(request), audience: audience)
        return try await next(request, context)
    }
}

/// Reading `Authorization: Bearer …` (RFC 6750 §2.1).
package enum BearerToken {
    package static func from(_ request: Request) -> String? {
        guard let header = request.headers[.authorization] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return parts[1].trimmingCharacters(in: .whitespaces)
    }
}
