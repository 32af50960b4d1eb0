public import FaceFrame
import Foundation
import IdentityCore
import LatchkeyWire
import WebAuthn
public import Hummingbird

extension Router where Context == FaceRequestContext {
    /// Adds the My Account API, with a bearer token for the My Account audience: the
    /// authentication methods (enroll, list, read, rename and delete passkeys), the
    /// account's signals for credential managers, and its display name.
    public func addMyAccountAPI(_ services: MyAccountServices) {
        let open = face("/me/v1", renderer: MyAccountErrors(), limits: services.passkeys.rateLimits)
        // Every route needs a token for the My Account audience; the ceremony routes are
        // counted against their limits before the token is checked.
        func signedIn(_ parent: RouterGroup<FaceRequestContext>) -> RouterGroup<BearerRequestContext> {
            parent.group(context: BearerRequestContext.self)
                .add(middleware: BearerAuthenticator(tokens: services.tokens, audience: services.tokens.issuer + "me/"))
        }
        let me = signedIn(open.all), starts = signedIn(open.starts), finishes = signedIn(open.finishes)
        addAccountRoutes(me, starts: starts, services: services)
        addVerificationAndRecoveryCodes(me, starts: starts, finishes: finishes, services: services)
        addPasskeyEnrollment(starts: starts, finishes: finishes, services: services)
        addAuthenticationMethods(me.group("authentication-methods"), services: services)
    }

    /// The account's signals for credential managers, its profile, and "sign out everywhere".
    private func addAccountRoutes(_ me: RouterGroup<BearerRequestContext>, starts: RouterGroup<BearerRequestContext>, services: MyAccountServices) {
        me.get("signals") { _, context in
            let grant = try context.grant(requiring: Scopes.readAuthenticationMethods)
            return JSONResponse.make(LatchkeyWire.AccountSignals(try await services.accounts.signals(of: grant.userID, relyingPartyID: services.passkeys.relyingPartyID)))
        }
        // A new email address is mailed a code: the route counts as a start against the
        // address's limit, as every route that sends mail does.
        starts.patch("profile") { request, context in
            let grant = try context.grant(requiring: Scopes.updateProfile)
            let body = try await services.body.json(UpdateProfileRequest.self, from: request)
            // A new email address is proved first: a code goes to it, and
            // `POST /me/v1/email-verification/verify` makes the change.
            switch try await services.profiles.update(by: grant.signIn, name: body.name, email: body.email, relyingPartyID: services.passkeys.relyingPartyID, origin: context.origin) {
            case .emailPending(let address): return JSONResponse.make(PendingEmailResponse(pendingEmail: address), status: .accepted)
            case .updated(let signals): return JSONResponse.make(SignalsResponse(signals))
            }
        }

        // "Sign out everywhere": every session and refresh family of the account, this one too.
        // It changes the account, so a token that may only read is refused.
        me.delete("sessions") { _, context in
            let grant = try context.grant(requiringAnyOf: [Scopes.updateAuthenticationMethods, Scopes.deleteAuthenticationMethods])
            _ = try await services.accounts.signOutEverywhere(userID: grant.userID, clientID: grant.clientID, origin: context.origin)
            return Response(status: .noContent, headers: [.cacheControl: "no-store"])
        }
    }

    /// Adding a passkey: the ceremony's start (`passkey|new`) and its verification.
    private func addPasskeyEnrollment(
        starts: RouterGroup<BearerRequestContext>, finishes: RouterGroup<BearerRequestContext>, services: MyAccountServices
    ) {
        let base = "/me/v1/authentication-methods"
        starts.post("authentication-methods") { request, context in
            let grant = try context.grant(requiring: Scopes.createAuthenticationMethods)
            let body = try await services.body.json(CreateAuthenticationMethodRequest.self, from: request)
            guard body.type == "passkey" else {
                throw IdentityError(.invalidRequest, "type must be \"passkey\"", field: "type")
            }
            if let identity = body.identityUserID, identity != grant.userID.rawValue {
                throw IdentityError(.invalidRequest, "identity_user_id must be the signed-in user", field: "identity_user_id")
            }
            let challenge: CreationChallenge
            switch body.mediation {
            case nil, "required", "optional":
                challenge = try await services.passkeys.startEnrollment(for: grant.signIn, clientID: grant.clientID)
            case "conditional":
                challenge = try await services.passkeys.startConditionalEnrollment(grant: grant)
            case let other?:
                throw IdentityError(.invalidRequest, "mediation must be \"conditional\" or absent, not \"\(other.prefix(40))\"", field: "mediation")
            }
            return JSONResponse.make(
                PasskeyChallenge(options: challenge.options, authSession: challenge.authSession),
                status: .accepted,
                headers: [.location: services.publicURL + base + "/passkey%7Cnew"]
            )
        }
        finishes.post("authentication-methods/:id/verify") { request, context in
            let grant = try context.grant(requiring: Scopes.createAuthenticationMethods)
            guard Self.methodID(context) == "passkey|new" else {
                throw IdentityError(.notFound, "only passkey|new can be verified")
            }
            let body = try await services.body.json(VerifyAuthenticationMethodRequest.self, from: request)
            guard let authSession = body.authSession, !authSession.isEmpty else {
                throw IdentityError(.invalidRequest, "auth_session is required", field: "auth_session")
            }
            guard let response = body.authnResponse else {
                throw IdentityError(.invalidRequest, "authn_response is required", field: "authn_response")
            }
            let credential = try await services.passkeys.finishEnrollment(
                userID: grant.userID, clientID: grant.clientID, authSession: authSession, response: response, by: .owner(grant.signIn), origin: context.origin
            )
            let user = try await services.accounts.user(grant.userID)
            let method = AuthenticationMethod(credential, user: user, names: services.authenticatorNames)
            return JSONResponse.make(method, status: .created, headers: [.location: Self.location(services, base, method.id)])
        }
    }

    /// The account's passkeys and password: listed, read, renamed and removed.
    private func addAuthenticationMethods(_ methods: RouterGroup<BearerRequestContext>, services: MyAccountServices) {
        methods.get { _, context in
            let grant = try context.grant(requiring: Scopes.readAuthenticationMethods)
            let user = try await services.accounts.user(grant.userID)
            var methods = try await services.accounts.passkeys(of: grant.userID)
                .map { AuthenticationMethod($0, user: user, names: services.authenticatorNames) }
            if let password = try await services.passwords.password(of: grant.userID) { methods.append(AuthenticationMethod(password)) }
            return JSONResponse.make(AuthenticationMethodList(authenticationMethods: methods))
        }
        methods.get(":id") { _, context in
            let grant = try context.grant(requiring: Scopes.readAuthenticationMethods)
            if Self.methodID(context) == PasswordRecord.methodID(of: grant.userID) {
                guard let password = try await services.passwords.password(of: grant.userID) else {
                    throw IdentityError(.notFound, "this account has no password")
                }
                return JSONResponse.make(AuthenticationMethod(password))
            }
            let credential = try await services.accounts.passkey(of: grant.userID, methodID: Self.methodID(context))
            let user = try await services.accounts.user(grant.userID)
            return JSONResponse.make(AuthenticationMethod(credential, user: user, names: services.authenticatorNames))
        }
        methods.patch(":id") { request, context in
            let grant = try context.grant(requiring: Scopes.updateAuthenticationMethods)
            let body = try await services.body.json(UpdateAuthenticationMethodRequest.self, from: request)
            let credential = try await services.accounts.rename(of: grant.userID, methodID: Self.methodID(context), to: body.name, origin: context.origin)
            let user = try await services.accounts.user(grant.userID)
            return JSONResponse.make(AuthenticationMethod(credential, user: user, names: services.authenticatorNames))
        }
        methods.delete(":id") { _, context in
            let grant = try context.grant(requiring: Scopes.deleteAuthenticationMethods)
            // Removing the password answers with the signals, whose unused_password is what
            // reportUnusedPasswordCredential(domain:userName:) needs. It ends every session a
            // password started, this token's own when a password started it.
            if Self.methodID(context) == PasswordRecord.methodID(of: grant.userID) {
                try await services.passwords.remove(by: grant.signIn, origin: context.origin)
                let signals = try await services.accounts.signals(of: grant.userID, relyingPartyID: services.passkeys.relyingPartyID)
                return JSONResponse.make(SignalsResponse(signals))
            }
            try await services.accounts.delete(methodID: Self.methodID(context), by: grant.signIn, origin: context.origin)
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
