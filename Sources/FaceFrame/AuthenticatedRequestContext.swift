import Foundation
public import Hummingbird
public import HummingbirdAuth
public import IdentityCore

/// The request context of a face's routes that need a caller: the group's authenticator
/// middleware (hummingbird-auth's `AuthenticatorMiddleware`) puts the caller's identity here
/// before any handler runs. One generic shape for every credential a face takes: a bearer
/// access token (``AccessGrant``), a session token or cookie (``BrowserSession``), an
/// administration token (``AdminApplication``).
public struct AuthenticatedRequestContext<Identity: Sendable>: AuthRequestContext, ChildRequestContext, OriginRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The authenticated caller; set by the group's authenticator.
    public var identity: Identity?
    public var origin: RequestOrigin?
    public var failureCheck: FailureCheck?

    /// Carries the parent's origin and check over to the signed-in routes.
    public init(context: FaceRequestContext) throws {
        self.coreContext = context.coreContext
        self.origin = context.origin
        self.failureCheck = context.failureCheck
    }

    /// The caller the group's authenticator found. Routes reach this only through such a
    /// group, so a missing caller is refused as an invalid token (each face words it), never
    /// as hummingbird-auth's bare 401.
    public func caller() throws(IdentityError) -> Identity {
        guard let identity else { throw IdentityError(.invalidToken, "this endpoint needs a signed-in caller") }
        return identity
    }
}

/// Routes that need a bearer access token: the grant is the identity.
public typealias BearerRequestContext = AuthenticatedRequestContext<AccessGrant>

extension AuthenticatedRequestContext where Identity == AccessGrant {
    /// The grant, when it carries any one of `scopes`.
    /// - Throws: `invalid_token` without a grant, `insufficient_scope` without the scopes.
    public func grant(requiringAnyOf scopes: [String]) throws -> AccessGrant {
        let grant = try caller()
        guard scopes.contains(where: grant.scopes.contains) else {
            throw IdentityError(.insufficientScope, "the access token needs one of the scopes \(scopes.joined(separator: ", "))", reason: .missingScope(scopes[0]))
        }
        return grant
    }

    /// The grant, requiring `scope`.
    public func grant(requiring scope: String) throws -> AccessGrant {
        try grant(requiringAnyOf: [scope])
    }
}

/// Turns `Authorization: Bearer …` into a verified ``AccessGrant`` on the context, for one
/// audience; a missing, malformed, expired or revoked token is refused before the handler.
public struct BearerAuthenticator: AuthenticatorMiddleware {
    public typealias Context = BearerRequestContext
    let tokens: TokenService
    let audience: String?

    /// - Parameter audience: The audience the token must be for; `nil` accepts any of this issuer's.
    public init(tokens: TokenService, audience: String?) {
        self.tokens = tokens
        self.audience = audience
    }

    @concurrent public func authenticate(request: Request, context: Context) async throws -> AccessGrant? {
        try await tokens.authorize(BearerToken.from(request), audience: audience)
    }
}

/// Reading `Authorization: Bearer …` (RFC 6750 §2.1; the scheme is case-insensitive, which
/// hummingbird-auth's `headers.bearer` is not).
package enum BearerToken {
    package static func from(_ request: Request) -> String? {
        guard let header = request.headers[.authorization] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return parts[1].trimmingCharacters(in: .whitespaces)
    }
}
