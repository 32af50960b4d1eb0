public import FaceFrame
import Foundation
import IdentityCore
import NIOCore
import WebAuthn
public import Hummingbird

extension Router where Context == FaceRequestContext {
    /// Adds the hosted pages: `/`, `/signup`, `/login`, `/account` (also served as
    /// `/account/passkeys`), `/account/passkeys/new`, `/authorize`, their JSON calls under
    /// `/ui/`, and the scripts `latchkey.js` and `ui.js`.
    public func addHostedPages(_ pages: HostedPages) {
        let open = group(context: HostedPageContext.self)
            .add(middleware: PageErrorMiddleware(pages: pages))
            .add(middleware: BrowserSessionAuthenticator(pages: pages))
        let signedIn = open.group().add(middleware: SignInRequiredMiddleware(isPage: true))

        open.get("/") { request, context in
            if context.identity != nil { return PageResponses.redirect("/account") }
            return pages.render(request, title: "Welcome", page: "home", body: Pages.home(siteName: pages.relyingPartyName))
        }
        open.get("/signup") { request, context in
            if context.identity != nil { return PageResponses.redirect("/account") }
            let returnTo = ReturnTo.validated(try? QueryString.parameters(of: request, reader: pages.body)["return_to"])
            return pages.render(
                request, title: "Create your account", page: "signup", body: Pages.signup(identifiers: pages.signupIdentifiers),
                data: ["return-to": returnTo, "rp-id": pages.relyingPartyID]
            )
        }
        open.get("/login") { request, context in
            let parameters = (try? QueryString.parameters(of: request, reader: pages.body)) ?? [:]
            let returnTo = ReturnTo.validated(parameters["return_to"])
            // `reauthenticate` comes from prompt=login: show the page even when signed in.
            if parameters["reauthenticate"] == nil, context.identity != nil {
                return PageResponses.redirect(returnTo)
            }
            let notice = parameters["step_up"] == "3"
                ? "This app asks for a stronger sign-in: use a passkey that stays on one device, such as a security key, and unlock it."
                : parameters["step_up"] != nil ? "This app asks for a stronger sign-in: use a passkey that asks for your fingerprint, face or PIN."
                : parameters["signed_out"] != nil
                ? "You have signed out."
                : parameters["password_removed"] != nil
                    ? "Your password is removed, and the sessions it signed in are ended. Sign in with your passkey."
                    : parameters["reauthenticate"] != nil ? "Confirm it's you: sign in with your passkey again to continue."
                    : parameters["recovered"] != nil ? "Your new passkey is ready. Sign in with it." : nil
            return pages.render(
                request, title: "Sign in", page: "login", body: Pages.login(notice: notice), data: ["return-to": returnTo, "rp-id": pages.relyingPartyID]
            )
        }
        open.get("/enroll") { request, _ in
            pages.render(request, title: "Add a passkey to your account", page: "enrollment-link", body: Pages.enrollmentLink())
        }
        open.get("/recover") { request, context in
            if context.identity != nil { return PageResponses.redirect("/account") }
            return pages.render(request, title: "Get back into your account", page: "recover", body: Pages.recover(codeMinutes: Int(pages.recovery.settings.codeLifetime / 60)))
        }
        for path in ["/account", "/account/passkeys"] {
            signedIn.get(RouterPath(path)) { request, context in
                let session = try context.caller()
                let user = try await pages.accounts.user(session.userID)
                let passkeys = try await pages.accounts.passkeys(of: session.userID)
                let password = try await pages.passwords.password(of: session.userID)
                let data = pages.accountData(user, passkeys)
                let consents = try await pages.authorization.consents(of: session.userID)
                let query = (try? QueryString.parameters(of: request, reader: pages.body)) ?? [:]
                let notice = query["added"] != nil ? "Passkey added."
                    : query["recovered"] != nil ? "You are back in with your new passkey. Replace your recovery codes now, and remove the passkey you lost." : nil
                let recoveryCodes = try await pages.recovery.recoveryCodeStatus(userID: session.userID)
                let places = try await pages.accountCenter.places(of: session.userID, currentID: SessionSummary.browserSessionID(tokenHash: session.tokenHash))
                let activity = try await pages.accountCenter.activity(of: session.userID)
                let center = Pages.signedInPlaces(places, clientName: pages.authorization.clientName(of:)) + "\n" + Pages.recentActivity(activity)
                return pages.render(
                    request, title: "Your account", page: "account",
                    body: Pages.account(
                        user: user, passkeys: passkeys, password: password, names: pages.authenticatorNames, data: data, notice: notice,
                        consents: consents, recoveryCodes: recoveryCodes, accountCenter: center
                    ),
                    data: ["rp-id": pages.relyingPartyID], signedIn: true
                )
            }
        }
        signedIn.get("/account/passkeys/new") { request, context in
            let session = try context.caller()
            let user = try await pages.accounts.user(session.userID)
            return pages.render(
                request, title: "Add a passkey", page: "enroll", body: Pages.enroll(accountName: user.accountName, recovering: session.isRecovery), signedIn: true
            )
        }
        // `/authorize` issues a code to a signed-in browser: its HEAD must not.
        open.group().add(middleware: StateCreatingRoutesMiddleware<HostedPageContext>()).addAuthorizationEndpoint(pages)
        // Signing out is a change: a HEAD of these GETs must not make it.
        open.group().add(middleware: StateCreatingRoutesMiddleware<HostedPageContext>()).addLogoutEndpoints(pages)
        addHostedPageActions(pages)
        addHostedAssets()
        addBrandAssets(pages.branding)
    }
}

extension HostedPages {
    /// What the account page's script passes to the Signal API: the account's names and the
    /// passkeys it accepts.
    func accountData(_ user: User, _ passkeys: [PasskeyCredential]) -> Pages.AccountData {
        Pages.AccountData(
            rpId: relyingPartyID, userId: Base64URL.encode(user.userHandle), name: user.accountName,
            displayName: user.displayName, credentialIds: passkeys.map { Base64URL.encode($0.credentialID) }
        )
    }

    /// A page in the shared layout, setting the CSRF cookie when the browser has none.
    func render(_ request: Request, title: String, page: String, body: String, data: [String: String] = [:], signedIn: Bool = false) -> Response {
        let csrf = csrfToken(for: request)
        let layout = PageLayout(title: title, branding: branding, siteName: siteName, page: page, csrfToken: csrf.token, dataAttributes: data, signedIn: signedIn)
        return PageResponses.html(layout.render(body), setCookies: csrf.setCookie.map { [$0] } ?? [])
    }
}
