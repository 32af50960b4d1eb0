import Foundation
public import Hummingbird
import IdentityCore

extension Router where Context == BasicRequestContext {
    /// Adds the IDaaS face: the Administration API's application authentication, user lookup
    /// and FIDO token operations; the signed-in user's own FIDO tokens; and passkey sign-in
    /// through the Authentication API. Every error is an `ErrorInfo`.
    public func addIDaaS(_ services: IDaaSServices) {
        let open = group("/api/web").add(middleware: ErrorRenderingMiddleware<BasicRequestContext, IDaaSErrors>(IDaaSErrors()))
            .add(middleware: RateLimitMiddleware(services.passkeys.rateLimits))
        let admin = group("/api/web", context: IDaaSAdminContext.self)
            .add(middleware: ErrorRenderingMiddleware<IDaaSAdminContext, IDaaSErrors>(IDaaSErrors()))
            .add(middleware: RateLimitMiddleware(services.passkeys.rateLimits))
            .add(middleware: IDaaSAdminMiddleware(administration: services.administration))
        let signedIn = group("/api/web/v1/self", context: IDaaSUserContext.self)
            .add(middleware: ErrorRenderingMiddleware<IDaaSUserContext, IDaaSErrors>(IDaaSErrors()))
            .add(middleware: IDaaSSessionMiddleware(sessions: services.sessions))
        let enrollment = IDaaSEnrollment(services: services)
        let management = IDaaSTokenManagement(services: services)
        let authentication = IDaaSAuthentication(services: services)

        // Administration API.
        open.post("v1/adminapi/authenticate") { request, _ in
            let body = try await services.body.json(IDaaSAdminAuthenticateRequest.self, from: request)
            let (token, record) = try await services.administration.authenticate(applicationID: body.applicationId, sharedSecret: body.sharedSecret)
            return JSONResponse.make(IDaaSAdminAuthenticateResponse(
                authToken: token, creationTime: WireTime.text(record.createdAt), expirationTime: WireTime.text(record.expiresAt)
            ))
        }
        admin.post("v3/users/userid") { request, _ in
            let body = try await services.body.json(IDaaSUserLookupRequest.self, from: request)
            guard let user = try await services.accounts.user(identifiedBy: body.userId) else { throw IDaaSError.userNotFound }
            return JSONResponse.make(IDaaSUser(user))
        }
        admin.get("v1/fidotokens/challenge/:id") { _, context in
            try await enrollment.start(for: try await Self.idaasUser(services, context), clientID: IDaaSServices.adminClientID(try context.requireApplication()))
        }
        admin.post("v1/fidotokens/complete/:id") { request, context in
            let application = try context.requireApplication()
            return try await enrollment.complete(
                request, for: try await Self.idaasUser(services, context), clientID: IDaaSServices.adminClientID(application), actor: application
            )
        }
        admin.get("v1/fidotokens/:fidoid") { request, context in
            management.read(try await management.credential(request, context: context))
        }
        admin.put("v1/fidotokens/:fidoid") { request, context in
            try await management.update(request, try await management.credential(request, context: context), actor: try context.requireApplication())
        }
        admin.delete("v1/fidotokens/:fidoid") { request, context in
            try await management.delete(try await management.credential(request, context: context), actor: try context.requireApplication())
        }

        // The signed-in user's own tokens.
        signedIn.get("fidotokens") { _, context in
            try await enrollment.start(for: try await services.accounts.user(context.requireSession().userID), clientID: IDaaSServices.selfServiceClientID)
        }
        signedIn.post("fidotokens") { request, context in
            try await enrollment.complete(
                request, for: try await services.accounts.user(context.requireSession().userID), clientID: IDaaSServices.selfServiceClientID, actor: nil
            )
        }
        signedIn.get("fidotokens/:fidoid") { request, context in
            management.read(try await management.credential(request, context: context, owner: context.requireSession().userID))
        }
        signedIn.put("fidotokens/:fidoid") { request, context in
            try await management.update(request, try await management.credential(request, context: context, owner: context.requireSession().userID), actor: nil)
        }
        signedIn.delete("fidotokens/:fidoid") { request, context in
            try await management.delete(try await management.credential(request, context: context, owner: context.requireSession().userID), actor: nil)
        }

        // Authentication API.
        open.post("v2/authentication/users/authenticate/:authenticator") { request, context in
            try await authentication.challenge(request, try IDaaSAuthentication.Authenticator(request, context: context))
        }
        // The deprecated form of the PASSKEY challenge, which older clients still call.
        open.post("v1/authentication/passkey") { request, _ in
            try await authentication.challenge(request, .passkey)
        }
        open.post("v1/authentication/users/authenticate/:authenticator/complete") { request, context in
            _ = try IDaaSAuthentication.Authenticator(request, context: context)
            return try await authentication.complete(request)
        }
        open.post("v1/authentication/logout") { request, _ in
            try await authentication.logout(request)
        }

        // A path under /api/web that no route answers, or a method a route does not take,
        // gets IDaaS's ErrorInfo too, not the router's bare 404.
        add(middleware: UnroutedPathMiddleware(prefix: "/api/web/", renderer: IDaaSErrors()))
    }

    /// The user a path's `{id}` (a user UUID) names.
    private static func idaasUser(_ services: IDaaSServices, _ context: some RequestContext) async throws -> User {
        guard let id = context.parameters.get("id"), let userID = UserID(uuid: id), let user = try await services.accounts.existingUser(userID) else {
            throw IDaaSError.userNotFound
        }
        return user
    }
}
