public import FaceFrame
import Foundation
import HTTPTypes
import IdentityCore
import LatchkeyWire
public import Hummingbird

extension Router where Context == FaceRequestContext {
    /// Adds discovery, the JWKS and userinfo.
    public func addOpenIDConnect(_ services: OpenIDConnectServices) {
        let documents = group().add(middleware: ErrorRenderingMiddleware(AuthenticationAPIErrors()))
        documents.get("/.well-known/openid-configuration") { _, _ in
            let issuer = services.tokens.issuer
            let clientAuth = ["none", "client_secret_post", "client_secret_basic"]
            let metadata = ProviderMetadata(
                issuer: issuer,
                authorizationEndpoint: issuer + "authorize",
                tokenEndpoint: issuer + "oauth/token",
                userinfoEndpoint: issuer + "userinfo",
                jwksURI: issuer + "oauth/jwks",
                revocationEndpoint: issuer + "oauth/revoke",
                responseTypesSupported: ["code"],
                responseModesSupported: ["query"],
                codeChallengeMethodsSupported: ["S256"],
                promptValuesSupported: ["none", "login"],
                authorizationResponseIssParameterSupported: true,
                subjectTypesSupported: ["public"],
                // RS256 first: OpenID Connect Discovery §3 makes it mandatory to support.
                idTokenSigningAlgValuesSupported: ["RS256", "PS256", "ES256"],
                scopesSupported: Scopes.known,
                claimsSupported: [
                    "sub", "iss", "aud", "exp", "iat", "auth_time", "sid", "nonce", "acr", "amr", "name", "given_name", "family_name",
                    "nickname", "picture", "preferred_username", "updated_at", "email", "email_verified", "phone_number",
                    "phone_number_verified", "external_id",
                ],
                grantTypesSupported: [GrantType.authorizationCode.rawValue, GrantType.webauthn.rawValue, GrantType.refreshToken.rawValue],
                tokenEndpointAuthMethodsSupported: clientAuth,
                revocationEndpointAuthMethodsSupported: clientAuth,
                endSessionEndpoint: issuer + "oidc/logout",
                // Every session's end is posted to a client with a backchannel_logout_uri,
                // with `sid`, which its ID tokens carry too.
                backchannelLogoutSupported: true,
                backchannelLogoutSessionSupported: true,
                acrValuesSupported: AuthenticationLevel.supportedValues
            )
            return Self.cacheable(JSONResponse.make(metadata), seconds: 300)
        }
        // Every key, of every algorithm: what discovery's `jwks_uri` names.
        documents.get("/oauth/jwks") { _, _ in
            Self.cacheable(JSONResponse.make(try await services.tokens.keySet()), seconds: 300)
        }
        // The RSA keys alone, as Auth0 publishes at this address: Auth0's SDKs read every key
        // here as an RSA key, and refuse the whole set over one EC key.
        documents.get("/.well-known/jwks.json") { _, _ in
            Self.cacheable(JSONResponse.make(try await services.tokens.keySet(rsaOnly: true)), seconds: 300)
        }
        let userinfo = group("/userinfo", context: BearerRequestContext.self)
            .add(middleware: ErrorRenderingMiddleware(AuthenticationAPIErrors()))
            .add(middleware: BearerAuthenticator(tokens: services.tokens, audience: nil))
        let claims: @Sendable (Request, BearerRequestContext) async throws -> Response = { _, context in
            let grant = try context.grant(requiring: Scopes.openID)
            let user = try await services.accounts.user(grant.userID)
            return JSONResponse.make(UserInfo(user: user, scopes: Array(grant.scopes)))
        }
        userinfo.get(use: claims)
        userinfo.post(use: claims)
    }

    /// Public documents may be cached; everything else is `no-store`.
    private static func cacheable(_ response: Response, seconds: Int) -> Response {
        var response = response
        response.headers[.cacheControl] = "public, max-age=\(seconds)"
        response.headers[HTTPField.Name("Pragma")!] = nil
        return response
    }
}
