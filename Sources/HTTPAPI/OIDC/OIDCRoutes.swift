import Foundation
import HTTPTypes
public import Hummingbird
import IdentityCore

/// OpenID Provider metadata (OpenID Connect Discovery 1.0 §3).
struct ProviderMetadata: Encodable {
    let issuer: String
    let authorization_endpoint: String
    let token_endpoint: String
    let userinfo_endpoint: String
    let jwks_uri: String
    let revocation_endpoint: String
    let response_types_supported: [String]
    let response_modes_supported: [String]
    let code_challenge_methods_supported: [String]
    let prompt_values_supported: [String]
    let authorization_response_iss_parameter_supported: Bool
    let subject_types_supported: [String]
    let id_token_signing_alg_values_supported: [String]
    let scopes_supported: [String]
    let claims_supported: [String]
    let grant_types_supported: [String]
    let token_endpoint_auth_methods_supported: [String]
    let revocation_endpoint_auth_methods_supported: [String]
}

extension Router where Context == BasicRequestContext {
    /// Adds discovery, the JWKS and userinfo.
    public func addOpenIDConnect(_ services: OpenIDConnectServices) {
        let documents = group().add(middleware: ErrorRenderingMiddleware(AuthenticationAPIErrors()))
        documents.get("/.well-known/openid-configuration") { _, _ in
            let issuer = services.tokens.issuer
            let clientAuth = ["none", "client_secret_post", "client_secret_basic"]
            let metadata = ProviderMetadata(
                issuer: issuer,
                authorization_endpoint: issuer + "authorize",
                token_endpoint: issuer + "oauth/token",
                userinfo_endpoint: issuer + "userinfo",
                jwks_uri: issuer + ".well-known/jwks.json",
                revocation_endpoint: issuer + "oauth/revoke",
                response_types_supported: ["code"],
                response_modes_supported: ["query"],
                code_challenge_methods_supported: ["S256"],
                prompt_values_supported: ["none", "login"],
                authorization_response_iss_parameter_supported: true,
                subject_types_supported: ["public"],
                id_token_signing_alg_values_supported: ["ES256"],
                scopes_supported: Scopes.known,
                claims_supported: [
                    "sub", "iss", "aud", "exp", "iat", "auth_time", "sid", "nonce", "amr", "name", "given_name", "family_name",
                    "nickname", "picture", "preferred_username", "updated_at", "email", "email_verified", "phone_number",
                    "phone_number_verified",
                ],
                grant_types_supported: [GrantType.authorizationCode.rawValue, GrantType.webauthn.rawValue, GrantType.refreshToken.rawValue],
                token_endpoint_auth_methods_supported: clientAuth,
                revocation_endpoint_auth_methods_supported: clientAuth
            )
            return Self.cacheable(JSONResponse.make(metadata), seconds: 300)
        }
        documents.get("/.well-known/jwks.json") { _, _ in
            Self.cacheable(JSONResponse.make(try await services.tokens.keySet()), seconds: 300)
        }
        let userinfo = group("/userinfo", context: BearerRequestContext.self)
            .add(middleware: ErrorRenderingMiddleware(AuthenticationAPIErrors()))
            .add(middleware: BearerAuthenticator(tokens: services.tokens, audience: nil))
        let claims: @Sendable (Request, BearerRequestContext) async throws -> Response = { _, context in
            let grant = try context.grant(requiring: Scopes.openID)
            let user = try await services.accounts.user(grant.userID)
            return JSONResponse.make(UserClaims(user: user, scopes: Array(grant.scopes)))
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
