import FaceFrame
import Foundation
import HTTPTypes
import Hummingbird
import IdentityCore
import NIOCore
import WebAuthn

/// The bodies of the hosted pages' JSON calls.
struct SignupStart: Decodable {
    let email, phone_number, name: String?
}

struct LoginStart: Decodable {
    let username: String?
    /// `hybrid` for "use a phone or tablet".
    let hints: [String]?
}

struct EnrollmentStart: Decodable {
    /// `client-device` for the passkey offered on this device after a sign-in with another's.
    let hints: [String]?
}

/// A passkey sign-in's answer: where to go, and whether to offer a passkey on this device
/// first (the passkey used was on another device).
struct SessionResult: Encodable {
    let redirect_to: String
    let offer_local_passkey: Bool?
}

struct CeremonyFinish: Decodable {
    let auth_session: String
    let response: PublicKeyCredentialResponse
    let return_to: String?
}

struct EnrollmentFinish: Decodable {
    let auth_session: String
    let response: RegistrationResponseJSON
    /// A recovery's last step: end every session of the account, this one included.
    let sign_out_everywhere: Bool?
}

struct SessionEnd: Decodable {
    /// The session's ID, as the account page lists it.
    let id: String?
}

struct NameChange: Decodable {
    let name: String?
}

struct PasswordSignIn: Decodable {
    let username, password, return_to: String?
}

struct PasswordSignup: Decodable {
    let email, password, name, return_to: String?
}

/// A password sign-in's answer: where to go, and, for an account without a passkey, the
/// automatic upgrade to try first.
struct PasswordSessionResult: Encodable {
    let redirect_to: String
    let upgrade: CeremonyOptions<PublicKeyCredentialCreationOptionsJSON>?
}

struct CeremonyOptions<Options: Encodable>: Encodable {
    let options: Options
    let auth_session: String
}

extension Router where Context == FaceRequestContext {
    /// The hosted pages' JSON calls. Each checks CSRF first; the account calls then require
    /// a live browser session. Errors use the Authentication API's envelope, in words for
    /// the person at the page. The rules (step-up, limits) live in the core and on the groups.
    func addHostedPageActions(_ pages: HostedPages) {
        // The language is set outside the face's error rendering, so that refusals are in it too.
        let face = group("/ui", context: HostedPageContext.self).add(middleware: RequestLanguageMiddleware(pages: pages))
            .face(renderer: HostedPageErrors(catalog: pages.catalog), limits: pages.passkeys.rateLimits)
        // Added to every call, before the start and finish groups' own middleware runs.
        let actions = face.all.add(middleware: CSRFMiddleware(pages: pages)).add(middleware: BrowserSessionAuthenticator(pages: pages))
        let starts = face.starts, finishes = face.finishes
        addSignInActions(pages, actions: actions, starts: starts, finishes: finishes, completions: face.completions)
        let account = Self.signedIn(actions)
        addAccountActions(pages, account: account, starts: Self.signedIn(starts), finishes: Self.signedIn(finishes))
        account.addConsentActions(pages)
        addRecoveryActions(pages, starts: starts, finishes: finishes, account: account, accountStarts: Self.signedIn(starts))
    }

    /// The calls of `parent` that need a signed-in browser.
    private static func signedIn(_ parent: RouterGroup<HostedPageContext>) -> RouterGroup<HostedPageContext> {
        parent.group().add(middleware: SignInRequiredMiddleware(isPage: false))
    }

    /// Signing up and in (with a passkey, or a password where a browser cannot make one), and out.
    private func addSignInActions(
        _ pages: HostedPages, actions: RouterGroup<HostedPageContext>, starts: RouterGroup<HostedPageContext>, finishes: RouterGroup<HostedPageContext>,
        completions: RouterGroup<HostedPageContext>
    ) {
        let client = OAuthClient.hostedPages
        starts.post("signup") { request, _ in
            let body = try await pages.body.json(SignupStart.self, from: request)
            let phone = Self.nonEmpty(body.phone_number).map { PhoneNumberInput.normalized($0, defaultRegion: pages.defaultRegion) }
            let profile = UserProfile(email: Self.nonEmpty(body.email), phoneNumber: phone, name: Self.nonEmpty(body.name))
            let challenge = try await pages.passkeys.startSignup(client: client, profile: profile)
            return JSONResponse.make(CeremonyOptions(options: challenge.options, auth_session: challenge.authSession))
        }
        starts.post("login") { request, _ in
            let body = try await pages.body.json(LoginStart.self, from: request)
            // A phone number is looked up as it was stored: in E.164.
            let username = Self.nonEmpty(body.username).map { PhoneNumberInput.looksLikePhoneNumber($0) ? PhoneNumberInput.normalized($0, defaultRegion: pages.defaultRegion) : $0 }
            let challenge = try await pages.passkeys.startLogin(client: client, username: username, hints: body.hints)
            return JSONResponse.make(CeremonyOptions(options: challenge.options, auth_session: challenge.authSession))
        }
        completions.post("session") { request, context in
            let body = try await pages.body.json(CeremonyFinish.self, from: request)
            let (signedIn, (token, session)) = try await pages.passkeys.finishCeremony(
                client: client, authSession: body.auth_session, response: body.response, origin: context.origin, failureCheck: context.failureCheck,
                startSession: pages.sessions.begin
            )
            let result = SessionResult(redirect_to: ReturnTo.validated(body.return_to), offer_local_passkey: signedIn.isCrossDevice ? true : nil)
            return try await Self.signedIn(pages, request, token: token, session: session, result, origin: context.origin)
        }
        finishes.post("password-session") { request, context in
            let body = try await pages.body.json(PasswordSignIn.self, from: request)
            let started = try await pages.passwordSignIns.signIn(client: client, username: body.username, password: body.password, origin: context.origin)
            let upgrade = started.upgrade.map { CeremonyOptions(options: $0.options, auth_session: $0.authSession) }
            let result = PasswordSessionResult(redirect_to: ReturnTo.validated(body.return_to), upgrade: upgrade)
            return try await Self.signedIn(pages, request, token: started.token, session: started.session, result, origin: context.origin)
        }
        // Only for browsers that cannot create a passkey: sign-up stays passkey-first.
        finishes.post("password-signup") { request, context in
            let body = try await pages.body.json(PasswordSignup.self, from: request)
            let started = try await pages.passwordSignIns.signUp(client: client, email: body.email, password: body.password, name: body.name, origin: context.origin)
            let result = PasswordSessionResult(redirect_to: ReturnTo.validated(body.return_to), upgrade: nil)
            return try await Self.signedIn(pages, request, token: started.token, session: started.session, result, origin: context.origin)
        }
        actions.post("logout") { request, context in
            try await pages.sessions.end(token: Cookies.value(pages.sessionCookie, in: request), origin: context.origin)
            return Self.signedOut(pages, to: "/login?signed_out=1")
        }
    }

    /// The signed-in account's calls: its passkeys (added, renamed, removed), its password,
    /// its name, and "sign out everywhere".
    private func addAccountActions(
        _ pages: HostedPages, account: RouterGroup<HostedPageContext>, starts: RouterGroup<HostedPageContext>, finishes: RouterGroup<HostedPageContext>
    ) {
        let client = OAuthClient.hostedPages
        account.delete("password") { _, context in
            let session = try context.caller()
            try await pages.passwords.remove(by: session.signIn, origin: context.origin)
            // A password session ends with the password: the page goes to sign in with a passkey.
            if session.method == .password { return Self.signedOut(pages, to: "/login?password_removed=1") }
            return try await Self.signalData(pages, session.userID)
        }
        account.post("sessions/end") { request, context in
            let session = try context.caller()
            let body = try await pages.body.json(SessionEnd.self, from: request)
            guard let id = body.id, !id.isEmpty else { throw IdentityError(.invalidRequest, "id is required: the session to sign out", field: "id") }
            try await pages.accountCenter.endSession(id: id, by: session.signIn, clientID: client.clientID, origin: context.origin)
            return JSONResponse.make(["ended": 1])
        }
        account.post("sessions/end-others") { _, context in
            let session = try context.caller()
            let ended = try await pages.accountCenter.endOtherSessions(
                keeping: SessionSummary.browserSessionID(tokenHash: session.tokenHash), by: session.signIn, clientID: client.clientID, origin: context.origin
            )
            return JSONResponse.make(["ended": ended])
        }
        account.post("logout-everywhere") { _, context in
            try await pages.accounts.signOutEverywhere(userID: try context.caller().userID, clientID: client.clientID, origin: context.origin)
            return Self.signedOut(pages, to: "/login?signed_out=1")
        }
        starts.post("passkeys/options") { request, context in
            let body = try await pages.body.json(EnrollmentStart.self, from: request)
            let challenge = try await pages.passkeys.startEnrollment(for: try context.caller().signIn, clientID: client.clientID, hints: body.hints)
            return JSONResponse.make(CeremonyOptions(options: challenge.options, auth_session: challenge.authSession))
        }
        finishes.post("passkeys") { request, context in
            let session = try context.caller()
            let body = try await pages.body.json(EnrollmentFinish.self, from: request)
            let credential = try await pages.passkeys.finishEnrollment(
                userID: session.userID, clientID: client.clientID, authSession: body.auth_session, response: body.response, by: .owner(session.signIn), origin: context.origin
            )
            // A recovery's session has done its one job: it ends, and the person signs in with
            // the new passkey.
            if session.isRecovery {
                if body.sign_out_everywhere == true { _ = try await pages.accounts.signOutEverywhere(userID: session.userID, clientID: client.clientID, origin: context.origin) }
                try await pages.sessions.end(token: Cookies.value(pages.sessionCookie, in: request), origin: context.origin)
                // Back on the account page after that sign-in, where the person is asked to
                // replace the recovery codes.
                return Self.signedOut(pages, to: "/login?recovered=1&return_to=%2Faccount%3Frecovered%3D1")
            }
            return JSONResponse.make(["id": Base64URL.encode(credential.credentialID)], status: .created)
        }
        account.patch("passkeys/:id") { request, context in
            let session = try context.caller()
            let body = try await pages.body.json(NameChange.self, from: request)
            let credential = try await pages.accounts.rename(of: session.userID, methodID: Self.methodID(context), to: body.name, origin: context.origin)
            return JSONResponse.make(["id": Base64URL.encode(credential.credentialID), "name": pages.authenticatorNames.displayName(of: credential)])
        }
        account.delete("passkeys/:id") { _, context in
            let session = try context.caller()
            try await pages.accounts.delete(methodID: Self.methodID(context), by: session.signIn, origin: context.origin)
            return try await Self.signalData(pages, session.userID)
        }
        account.patch("profile") { request, context in
            let session = try context.caller()
            let body = try await pages.body.json(NameChange.self, from: request)
            _ = try await pages.accounts.updateName(of: session.userID, to: body.name, origin: context.origin)
            return try await Self.signalData(pages, session.userID)
        }
    }

    /// Clears the session cookie and sends the browser to the sign-in page at `location`,
    /// which says why.
    static func signedOut(_ pages: HostedPages, to location: String) -> Response {
        var response = JSONResponse.make(["redirect_to": location])
        response.headers.append(HTTPField(
            name: .setCookie, value: Cookies.setCookie(pages.sessionCookie, "", maxAge: 0, sameSite: "Lax", secure: pages.secureCookies)
        ))
        return response
    }

    /// Hands the browser the session just started. A sign-in replaces the browser's previous
    /// session (after `prompt=login`, or as another account), so that one ends.
    /// The cookie lives as long as the session: a recovery's is a quarter of an hour, not the
    /// sign-in lifetime.
    static func signedIn(
        _ pages: HostedPages, _ request: Request, token: String, session: BrowserSession, _ result: some Encodable, origin: RequestOrigin?
    ) async throws -> Response {
        try await pages.sessions.end(token: Cookies.value(pages.sessionCookie, in: request), origin: origin)
        var response = JSONResponse.make(result)
        let lifetime = max(1, Int(session.expiresAt.timeIntervalSince(session.authenticatedAt).rounded(.down)))
        response.headers.append(HTTPField(
            name: .setCookie, value: Cookies.setCookie(pages.sessionCookie, token, maxAge: lifetime, sameSite: "Lax", secure: pages.secureCookies)
        ))
        return response
    }

    /// What the page passes to the Signal API after a change: the account's names and the
    /// passkeys it still accepts.
    private static func signalData(_ pages: HostedPages, _ userID: UserID) async throws -> Response {
        let user = try await pages.accounts.user(userID)
        let passkeys = try await pages.accounts.passkeys(of: userID)
        return JSONResponse.make(pages.accountData(user, passkeys))
    }

    private static func methodID(_ context: HostedPageContext) -> String {
        "passkey|" + (context.parameters.get("id") ?? "")
    }

    private static func nonEmpty(_ text: String?) -> String? {
        guard let text = text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        return text
    }
}

/// Refuses a state-changing call that fails the hosted pages' CSRF checks, before its handler.
struct CSRFMiddleware: RouterMiddleware {
    typealias Context = HostedPageContext
    let pages: HostedPages

    @concurrent func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        try pages.checkCSRF(request)
        return try await next(request, context)
    }
}
