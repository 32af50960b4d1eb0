import FaceFrame
import Foundation
import HTTPTypes
import Hummingbird
import IdentityCore
import Localization

extension RouterGroup where Context == HostedPageContext {
    /// Signing out at an app's request, which ends this browser's session on the hosted
    /// pages: OpenID Connect RP-Initiated Logout 1.0 at discovery's `end_session_endpoint`
    /// (`GET` and `POST /oidc/logout`), and Auth0's `GET /v2/logout`. A refused request is
    /// shown on a page, never redirected (§4).
    func addLogoutEndpoints(_ pages: HostedPages) {
        let endSession: @Sendable (Request, HostedPageContext) async throws -> Response = { request, context in
            var parameters = try QueryString.parameters(of: request, reader: pages.body)
            if request.method == .post {
                for (name, value) in try pages.body.form(from: try await pages.body.bytes(of: request)) { parameters[name] = value }
            }
            // An app's cross-site form POST arrives without the session cookie (SameSite=Lax):
            // the same request as a GET, a top-level navigation, carries it.
            if request.method == .post, parameters["confirm"] == nil, Cookies.value(pages.sessionCookie, in: request) == nil,
                let query = Self.query(parameters)
            {
                var response = PageResponses.redirect("/oidc/logout?" + query)
                response.status = .seeOther
                return response
            }
            let decision: LogoutService.Decision
            do {
                decision = try await pages.logout.decide(LogoutService.Request(parameters))
            } catch let refusal as LogoutService.Refusal {
                return Self.refused(pages, request, refusal)
            }
            // Without a hint saying who asks, the person confirms first (§2); the
            // confirmation is this page's own form, so it carries the page's CSRF token.
            if decision.needsConfirmation {
                let csrf = pages.csrfToken(for: request)
                guard request.method == .post, parameters["confirm"] == "yes", let sent = parameters["csrf_token"], sent == csrf.token, csrf.setCookie == nil else {
                    return Self.confirmation(pages, request, decision, parameters)
                }
            } else if let session = context.identity, session.userID != decision.userID {
                // The hint is another account's: this browser's session is not the one the app
                // ends, so the person is asked (§2, "MUST ask").
                return Self.confirmation(pages, request, decision, parameters)
            }
            return try await Self.signOut(pages, request, to: decision.redirect, origin: context.origin)
        }
        get("/oidc/logout", use: endSession)
        post("/oidc/logout", use: endSession)

        get("/v2/logout") { request, context in
            let parameters = try QueryString.parameters(of: request, reader: pages.body)
            let destination: String?
            do throws(LogoutService.Refusal) {
                destination = try pages.logout.auth0ReturnTo(parameters["returnTo"], clientID: parameters["client_id"])
            } catch {
                return Self.refused(pages, request, error)
            }
            return try await Self.signOut(pages, request, to: destination, origin: context.origin)
        }
    }

    /// The parameters as a query string.
    private static func query(_ parameters: [String: String]) -> String? {
        let unreserved = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        let pairs = parameters.sorted { $0.key < $1.key }.compactMap { name, value in
            value.addingPercentEncoding(withAllowedCharacters: unreserved).map { name + "=" + $0 }
        }
        return pairs.isEmpty ? nil : pairs.joined(separator: "&")
    }

    /// The question, carrying the request's own parameters back.
    private static func confirmation(_ pages: HostedPages, _ request: Request, _ decision: LogoutService.Decision, _ parameters: [String: String]) -> Response {
        var fields = parameters.filter { ["client_id", "post_logout_redirect_uri", "state"].contains($0.key) }
        // The client the hint named, so that the confirmation (which carries no hint) keeps its return address.
        if let clientID = decision.clientID { fields["client_id"] = clientID }
        let t = pages.strings(for: request)
        return pages.render(
            request, t, title: t("logout.title"), page: "logout",
            body: Pages.logoutConfirmation(t, appName: decision.clientName, fields: fields, csrfToken: pages.csrfToken(for: request).token)
        )
    }

    /// Ends this browser's session and clears its cookie, then sends it on or says it is done.
    private static func signOut(_ pages: HostedPages, _ request: Request, to destination: String?, origin: RequestOrigin?) async throws -> Response {
        try await pages.sessions.end(token: Cookies.value(pages.sessionCookie, in: request), origin: origin)
        let clear = Cookies.setCookie(pages.sessionCookie, "", maxAge: 0, sameSite: "Lax", secure: pages.secureCookies)
        if let destination {
            var response = PageResponses.redirect(destination, setCookies: [clear])
            response.status = .seeOther
            return response
        }
        let t = pages.strings(for: request)
        var response = pages.render(request, t, title: t("signed_out.title"), page: "logout", body: Pages.signedOut(t, siteName: pages.siteName))
        response.headers.append(HTTPField(name: .setCookie, value: clear))
        return response
    }

    private static func refused(_ pages: HostedPages, _ request: Request, _ refusal: LogoutService.Refusal) -> Response {
        let t = pages.strings(for: request)
        let words = FailureWords.of(code: "invalid_request", reason: nil, message: refusal.description, t)
        return PageResponses.errorPage(
            pages, request, title: t("error.title.sign_out_link_invalid"), message: words.message, code: "invalid_request", details: words.details, status: .badRequest
        )
    }
}
