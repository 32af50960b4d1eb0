public import FaceFrame
import Foundation
import IdentityCore
import Localization
import NIOCore
import WebAuthn
public import Hummingbird

extension Router where Context == FaceRequestContext {
    /// Adds the hosted pages: `/`, `/signup`, `/login`, `/account` (also served as
    /// `/account/passkeys`), `/account/passkeys/new`, `/authorize`, their JSON calls under
    /// `/ui/`, and the scripts `latchkey.js` and `ui.js`.
    public func addHostedPages(_ pages: HostedPages) {
        let open = group(context: HostedPageContext.self)
            .add(middleware: RequestLanguageMiddleware(pages: pages))
            .add(middleware: PageErrorMiddleware(pages: pages))
            .add(middleware: BrowserSessionAuthenticator(pages: pages))
        let signedIn = open.group().add(middleware: SignInRequiredMiddleware(isPage: true))

        open.get("/") { request, context in
            if context.identity != nil { return PageResponses.redirect("/account") }
            let t = pages.strings(for: request)
            return pages.render(request, t, title: t("home.title"), page: "home", body: Pages.home(t, siteName: pages.siteName))
        }
        open.get("/signup") { request, context in
            if context.identity != nil { return PageResponses.redirect("/account") }
            let returnTo = ReturnTo.validated(try? QueryString.parameters(of: request, reader: pages.body)["return_to"])
            let t = pages.strings(for: request)
            return pages.render(
                request, t, title: t("signup.title"), page: "signup", body: Pages.signup(t, identifiers: pages.signupIdentifiers),
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
            let t = pages.strings(for: request)
            let notice = parameters["step_up"] == "3" ? "login.notice.step_up_device_bound"
                : parameters["step_up"] != nil ? "login.notice.step_up"
                : parameters["signed_out"] != nil ? "login.notice.signed_out"
                : parameters["password_removed"] != nil ? "login.notice.password_removed"
                : parameters["reauthenticate"] != nil ? "login.notice.reauthenticate"
                : parameters["recovered"] != nil ? "login.notice.recovered" : nil
            return pages.render(
                request, t, title: t("login.title"), page: "login", body: Pages.login(t, notice: notice.map { t($0) }),
                data: ["return-to": returnTo, "rp-id": pages.relyingPartyID]
            )
        }
        open.get("/enroll") { request, _ in
            let t = pages.strings(for: request)
            return pages.render(request, t, title: t("enrollment_link.title"), page: "enrollment-link", body: Pages.enrollmentLink(t))
        }
        open.get("/recover") { request, context in
            if context.identity != nil { return PageResponses.redirect("/account") }
            let t = pages.strings(for: request)
            return pages.render(request, t, title: t("recover.title"), page: "recover", body: Pages.recover(t, codeMinutes: Int(pages.recovery.settings.codeLifetime / 60)))
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
                let t = pages.strings(for: request)
                let notice = query["added"] != nil ? t("account.notice.added") : query["recovered"] != nil ? t("account.notice.recovered") : nil
                let recoveryCodes = try await pages.recovery.recoveryCodeStatus(userID: session.userID)
                let places = try await pages.accountCenter.places(of: session.userID, currentID: SessionSummary.browserSessionID(tokenHash: session.tokenHash))
                let activity = try await pages.accountCenter.activity(of: session.userID)
                let center = Pages.signedInPlaces(t, places, clientName: pages.authorization.clientName(of:)) + "\n" + Pages.recentActivity(t, activity)
                return pages.render(
                    request, t, title: t("account.title"), page: "account",
                    body: Pages.account(
                        t, user: user, passkeys: passkeys, password: password, names: pages.authenticatorNames, data: data, notice: notice,
                        consents: consents, recoveryCodes: recoveryCodes, accountCenter: center
                    ),
                    data: ["rp-id": pages.relyingPartyID], signedIn: true
                )
            }
        }
        signedIn.get("/account/passkeys/new") { request, context in
            let session = try context.caller()
            let user = try await pages.accounts.user(session.userID)
            let t = pages.strings(for: request)
            return pages.render(
                request, t, title: t("enroll.title"), page: "enroll", body: Pages.enroll(t, accountName: user.accountName, recovering: session.isRecovery), signedIn: true
            )
        }
        // `/authorize` issues a code to a signed-in browser: its HEAD must not.
        open.group().add(middleware: StateCreatingRoutesMiddleware<HostedPageContext>()).addAuthorizationEndpoint(pages)
        // Signing out is a change: a HEAD of these GETs must not make it.
        open.group().add(middleware: StateCreatingRoutesMiddleware<HostedPageContext>()).addLogoutEndpoints(pages)
        addHostedPageActions(pages)
        addHostedAssets()
        addMessageAssets(pages)
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

    /// A page in the shared layout and the language of `t`, setting the CSRF cookie when
    /// the browser has none and the language cookie when `?lang=` picked one.
    func render(_ request: Request, _ t: Strings, title: String, page: String, body: String, data: [String: String] = [:], signedIn: Bool = false) -> Response {
        let csrf = csrfToken(for: request)
        let layout = layout(request, t, title: title, page: page, csrfToken: csrf.token, data: data, signedIn: signedIn)
        let cookies = [csrf.setCookie, languageCookieUpdate(for: request)].compactMap { $0 }
        return PageResponses.html(layout.render(body), language: t.language, setCookies: cookies)
    }
}
