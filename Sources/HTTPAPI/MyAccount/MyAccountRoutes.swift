import Foundation
public import Hummingbird
import IdentityCore
import WebAuthn

extension Router where Context == BasicRequestContext {
    /// Adds the My Account API's authentication methods: enroll, list, read, rename and
    /// delete passkeys, with a bearer token for the My Account audience.
    public func addMyAccountAPI(_ services: MyAccountServices) {
        let base = "/me/v1/authentication-methods"
        let methods = group(RouterPath(base), context: BearerRequestContext.self)
            .add(middleware: ErrorRenderingMiddleware(MyAccountErrors()))
            .add(middleware: BearerAuthenticationMiddleware(tokens: services.tokens, audience: services.tokens.issuer + "me/"))

        methods.post { request, context in
            let grant = try context.grant(requiring: Scopes.createAuthenticationMethods)
            let body = try await services.body.json(CreateMethodRequest.self, from: request)
            guard body.type == "passkey" else {
                throw IdentityError(.invalidRequest, "type must be \"passkey\"", field: "type")
            }
            if let identity = body.identity_user_id, identity != grant.userID.rawValue {
                throw IdentityError(.invalidRequest, "identity_user_id must be the signed-in user", field: "identity_user_id")
            }
            let challenge = try await services.passkeys.startEnrollment(userID: grant.userID, clientID: grant.clientID)
            return JSONResponse.make(
                EnrollmentChallengeBody(auth_session: challenge.authSession, authn_params_public_key: challenge.options),
                status: .accepted,
                headers: [.location: services.publicURL + base + "/passkey%7Cnew"]
            )
        }
        methods.post(":id/verify") { request, context in
            let grant = try context.grant(requiring: Scopes.createAuthenticationMethods)
            guard Self.methodID(context) == "passkey|new" else {
                throw IdentityError(.notFound, "only passkey|new can be verified")
            }
            let body = try await services.body.json(VerifyMethodRequest.self, from: request)
            guard let authSession = body.auth_session, !authSession.isEmpty else {
                throw IdentityError(.invalidRequest, "auth_session is required", field: "auth_session")
            }
            guard let response = body.authn_response else {
                throw IdentityError(.invalidRequest, "authn_response is required", field: "authn_response")
            }
            let credential = try await services.passkeys.finishEnrollment(
                userID: grant.userID, clientID: grant.clientID, authSession: authSession, response: response
            )
            let user = try await services.accounts.user(grant.userID)
            let method = AuthenticationMethodBody(credential, user: user, names: services.authenticatorNames)
            return JSONResponse.make(method, status: .created, headers: [.location: Self.location(services, base, method.id)])
        }
        methods.get { _, context in
            let grant = try context.grant(requiring: Scopes.readAuthenticationMethods)
            let user = try await services.accounts.user(grant.userID)
            let methods = try await services.accounts.passkeys(of: grant.userID)
                .map { AuthenticationMethodBody($0, user: user, names: services.authenticatorNames) }
            return JSONResponse.make(AuthenticationMethodList(authentication_methods: methods))
        }
        methods.get(":id") { _, context in
            let grant = try context.grant(requiring: Scopes.readAuthenticationMethods)
            let credential = try await services.accounts.passkey(of: grant.userID, methodID: Self.methodID(context))
            let user = try await services.accounts.user(grant.userID)
            return JSONResponse.make(AuthenticationMethodBody(credential, user: user, names: services.authenticatorNames))
        }
        methods.patch(":id") { request, context in
            let grant = try context.grant(requiring: Scopes.updateAuthenticationMethods)
            let body = try await services.body.json(UpdateMethodRequest.self, from: request)
            let credential = try await services.accounts.rename(of: grant.userID, methodID: Self.methodID(context), to: body.name)
            let user = try await services.accounts.user(grant.userID)
            return JSONResponse.make(AuthenticationMethodBody(credential, user: user, names: services.authenticatorNames))
        }
        methods.delete(":id") { _, context in
            let grant = try context.grant(requiring: Scopes.deleteAuthenticationMethods)
            try await services.accounts.delete(of: grant.userID, methodID: Self.methodID(context))
            return Response(status: .noContent, headers: [.cacheControl: "no-store"])
        }
    }

    /// The method ID from the path, percent-decoded (`passkey%7C…` → `passkey|…`).
    private static func methodID(_ context: BearerRequestContext) -> String {
        let raw = context.parameters.get("id") ?? ""
        return raw.removingPercentEncoding ?? raw
    }

    private static func location(_ services: MyAccountServices, _ base: String, _ methodID: String) -> String {
        let encoded = methodID.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "|"))) ?? methodID
        return services.publicURL + base + "/" + encoded
    }
}
