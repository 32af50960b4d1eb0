public import FaceFrame
import Foundation
import IdentityCore
public import Hummingbird

extension Router where Context == FaceRequestContext {
    /// Adds the IDaaS face: the Administration API's application authentication, user lookup
    /// and FIDO token operations; the signed-in user's own FIDO tokens; and passkey sign-in
    /// through the Authentication API. Every error is an `ErrorInfo`.
    public func addIDaaS(_ services: IDaaSServices) {
        let face = face("/api/web", renderer: IDaaSErrors(), limits: services.passkeys.rateLimits)
        let open = face.all, starts = face.starts, finishes = face.finishes
        addIDaaSAdministration(services, open: open, starts: starts, finishes: finishes)
        addIDaaSSelfService(services, open: open, starts: starts, finishes: finishes)
        addIDaaSAuthentication(services, open: open, starts: starts, completions: face.completions)
    }

    /// The Administration API: an application's authentication, then (with its token) user
    /// lookup and the users' FIDO tokens.
    private func addIDaaSAdministration(
        _ services: IDaaSServices, open: RouterGroup<FaceRequestContext>, starts: RouterGroup<FaceRequestContext>, finishes: RouterGroup<FaceRequestContext>
    ) {
        /// The Administration API's routes of `parent`: an administration token is required.
        func administration(_ parent: RouterGroup<FaceRequestContext>) -> RouterGroup<IDaaSAdminContext> {
            parent.group(context: IDaaSAdminContext.self).add(middleware: IDaaSAdminAuthenticator(administration: services.administration))
        }
        let enrollment = IDaaSEnrollment(services: services)
        let management = IDaaSTokenManagement(services: services)
        starts.post("v1/adminapi/authenticate") { request, context in
            let body = try await services.body.json(IDaaSAdminAuthenticateRequest.self, from: request)
            let (token, record) = try await services.administration.authenticate(applicationID: body.applicationId, sharedSecret: body.sharedSecret, origin: context.origin)
            return JSONResponse.make(IDaaSAdminAuthenticateResponse(
                authToken: token, creationTime: WireTime.text(record.createdAt), expirationTime: WireTime.text(record.expiresAt)
            ))
        }
        let admin = administration(open)
        admin.post("v3/users/userid") { request, _ in
            let body = try await services.body.json(IDaaSUserLookupRequest.self, from: request)
            guard let user = try await services.accounts.user(identifiedBy: body.userId) else { throw IDaaSError.userNotFound }
            return JSONResponse.make(IDaaSUser(user))
        }
        administration(starts).get("v1/fidotokens/challenge/:id") { _, context in
            let application = try context.caller()
            return try await enrollment.start(for: try await Self.idaasUser(services, context), clientID: IDaaSServices.adminClientID(application), by: .administrator(application.id))
        }
        administration(finishes).post("v1/fidotokens/complete/:id") { request, context in
            let application = try context.caller()
            return try await enrollment.complete(
                request, for: try await Self.idaasUser(services, context), clientID: IDaaSServices.adminClientID(application), by: .administrator(application.id), origin: context.origin
            )
        }
        admin.get("v1/fidotokens/:fidoid") { request, context in
            management.read(try await management.credential(request, context: context))
        }
        admin.put("v1/fidotokens/:fidoid") { request, context in
            try await management.update(request, try await management.credential(request, context: context), by: .administrator(context.caller().id), origin: context.origin)
        }
        admin.delete("v1/fidotokens/:fidoid") { request, context in
            try await management.delete(try await management.credential(request, context: context), by: .administrator(context.caller().id), origin: context.origin)
        }
    }

    /// The signed-in user's own tokens. Adding, turning off and deleting one need a recent
    /// sign-in, which the core checks; an administrator's turning one off holds.
    private func addIDaaSSelfService(
        _ services: IDaaSServices, open: RouterGroup<FaceRequestContext>, starts: RouterGroup<FaceRequestContext>, finishes: RouterGroup<FaceRequestContext>
    ) {
        /// The signed-in user's routes of `parent`, under `v1/self`: a sign-in token is required.
        func signedIn(_ parent: RouterGroup<FaceRequestContext>) -> RouterGroup<IDaaSUserContext> {
            parent.group("v1/self", context: IDaaSUserContext.self).add(middleware: IDaaSSessionAuthenticator(sessions: services.sessions))
        }
        let enrollment = IDaaSEnrollment(services: services)
        let management = IDaaSTokenManagement(services: services)
        signedIn(starts).get("fidotokens") { _, context in
            let signIn = try context.caller().signIn
            return try await enrollment.start(for: try await services.accounts.user(signIn.userID), clientID: IDaaSServices.selfServiceClientID, by: .owner(signIn))
        }
        signedIn(finishes).post("fidotokens") { request, context in
            let signIn = try context.caller().signIn
            return try await enrollment.complete(
                request, for: try await services.accounts.user(signIn.userID), clientID: IDaaSServices.selfServiceClientID, by: .owner(signIn), origin: context.origin
            )
        }
        let own = signedIn(open)
        own.get("fidotokens/:fidoid") { request, context in
            management.read(try await management.credential(request, context: context, owner: context.caller().userID))
        }
        own.put("fidotokens/:fidoid") { request, context in
            let signIn = try context.caller().signIn
            return try await management.update(request, try await management.credential(request, context: context, owner: signIn.userID), by: .owner(signIn), origin: context.origin)
        }
        own.delete("fidotokens/:fidoid") { request, context in
            let signIn = try context.caller().signIn
            return try await management.delete(try await management.credential(request, context: context, owner: signIn.userID), by: .owner(signIn), origin: context.origin)
        }
    }

    /// The Authentication API: a passkey's challenge and its completion, and signing out.
    private func addIDaaSAuthentication(
        _ services: IDaaSServices, open: RouterGroup<FaceRequestContext>, starts: RouterGroup<FaceRequestContext>,
        completions: RouterGroup<FaceRequestContext>
    ) {
        let authentication = IDaaSAuthentication(services: services)
        starts.post("v2/authentication/users/authenticate/:authenticator") { request, context in
            try await authentication.challenge(request, try IDaaSAuthentication.Authenticator(request, context: context))
        }
        // The deprecated form of the PASSKEY challenge, which older clients still call.
        starts.post("v1/authentication/passkey") { request, _ in
            try await authentication.challenge(request, .passkey)
        }
        completions.post("v1/authentication/users/authenticate/:authenticator/complete") { request, context in
            _ = try IDaaSAuthentication.Authenticator(request, context: context)
            return try await authentication.complete(request, context: context)
        }
        open.post("v1/authentication/logout") { request, context in
            try await authentication.logout(request, origin: context.origin)
        }
    }

    /// The user a path's `{id}` (a user UUID) names.
    private static func idaasUser(_ services: IDaaSServices, _ context: some RequestContext) async throws -> User {
        guard let id = context.parameters.get("id"), let userID = UserID(uuid: id), let user = try await services.accounts.existingUser(userID) else {
            throw IDaaSError.userNotFound
        }
        return user
    }
}
