public import FaceFrame
import Foundation
import HTTPTypes
import IdentityCore
import NIOCore
import WebAuthn
public import Hummingbird

extension Router where Context == FaceRequestContext {
    /// Adds the Kratos face's API flows (what native apps use): registration, login and
    /// settings flows, `/sessions/whoami` and API logout. Every flow ends in the one passkey
    /// pipeline; errors use Kratos's envelopes.
    public func addKratosAPI(_ services: KratosServices) {
        let renderer = KratosErrors()
        let face = face("/self-service", renderer: renderer, limits: services.flows.rateLimits)
        let open = face.all, starts = face.starts, finishes = face.finishes
        get("/.well-known/ory/webauthn.js") { _, _ in KratosScript.response() }
        addKratosFlows(services, open: open, starts: starts, finishes: finishes, completions: face.completions)
        addKratosCodeFlows(services, open: open, starts: starts, finishes: finishes)
        addKratosLogout(services, open: open)
        let sessions = Self.kratosSignedIn(group("/sessions").add(middleware: ErrorRenderingMiddleware<FaceRequestContext, KratosErrors>(renderer)), services)
        sessions.addKratosSessions(services)
        sessions.get("whoami") { _, context in
            let session = try context.caller()
            let user = try await services.accounts.user(session.userID)
            var response = JSONResponse.make(KratosSessionBody(session, user: user, publicURL: services.publicURL))
            response.headers[HTTPField.Name("X-Kratos-Authenticated-Identity-Id")!] = KratosIDs.identity(user.id)
            return response
        }
    }

    /// The routes of `parent` that need a live session.
    static func kratosSignedIn(_ parent: RouterGroup<FaceRequestContext>, _ services: KratosServices) -> RouterGroup<KratosRequestContext> {
        parent.group(context: KratosRequestContext.self).add(middleware: KratosSessionAuthenticator(sessions: services.sessions))
    }

    /// Registration, login and settings flows: started (each `GET` creates one), read, and submitted.
    private func addKratosFlows(
        _ services: KratosServices, open: RouterGroup<FaceRequestContext>, starts: RouterGroup<FaceRequestContext>, finishes: RouterGroup<FaceRequestContext>,
        completions: RouterGroup<FaceRequestContext>
    ) {
        func signedIn(_ parent: RouterGroup<FaceRequestContext>) -> RouterGroup<KratosRequestContext> { Self.kratosSignedIn(parent, services) }
        starts.get("registration/browser") { request, _ in try await KratosBrowser(services: services).start(.registration, request) }
        starts.get("login/browser") { request, _ in try await KratosBrowser(services: services).start(.login, request) }
        starts.get("registration/api") { request, _ in
            let flow = try await services.flows.start(.registration, isBrowser: false, userID: nil, csrfToken: nil, requestURL: services.requestURL(request))
            return JSONResponse.make(try services.renderer.body(flow, options: services.flows.options(of: flow)))
        }
        starts.get("login/api") { request, _ in
            let flow = try await services.flows.start(.login, isBrowser: false, userID: nil, csrfToken: nil, requestURL: services.requestURL(request))
            return JSONResponse.make(try services.renderer.body(flow, options: services.flows.options(of: flow)))
        }
        let signedInStarts = signedIn(starts)
        signedInStarts.get("settings/browser") { request, context in
            try await KratosBrowser(services: services).start(.settings, request, userID: context.caller().userID)
        }
        signedInStarts.get("settings/api") { request, context in
            let session = try context.caller()
            let flow = try await services.flows.start(.settings, isBrowser: false, userID: session.userID, csrfToken: nil, requestURL: services.requestURL(request))
            return JSONResponse.make(try await KratosSettings(services: services).body(flow, userID: session.userID))
        }

        // Reading flows.
        for kind in [InteractiveFlow.Kind.registration, .login] {
            open.get("\(kind.rawValue)/flows") { request, _ in
                let flow = try await Self.existingFlow(services, request, kind: kind, userID: nil)
                return JSONResponse.make(try services.renderer.body(flow, options: services.flows.options(of: flow)))
            }
        }
        signedIn(open).get("settings/flows") { request, context in
            let session = try context.caller()
            let flow = try await Self.existingFlow(services, request, kind: .settings, userID: session.userID)
            return JSONResponse.make(try await KratosSettings(services: services).body(flow, userID: session.userID))
        }

        // Submitting flows.
        completions.post("registration") { request, context in
            try await KratosRegistration(services: services).submit(request, context: context)
        }
        completions.post("login") { request, context in
            try await KratosLogin(services: services).submit(request, context: context)
        }
        signedIn(finishes).post("settings") { request, context in
            try await KratosSettings(services: services).submit(request, session: context.caller(), origin: context.origin)
        }
    }

    /// Signing out: the browser's logout URL and its `GET` (which ends the session, so its
    /// `HEAD` is refused), and the API's `DELETE`.
    private func addKratosLogout(_ services: KratosServices, open: RouterGroup<FaceRequestContext>) {
        Self.kratosSignedIn(open, services).get("logout/browser") { request, _ in
            // The authenticator found a session; browsers send it only as the cookie.
            guard let token = Cookies.value(KratosServices.sessionCookie, in: request) else { throw KratosError.sessionInactive }
            return JSONResponse.make(KratosBrowser(services: services).logoutURL(session: token))
        }
        open.group().add(middleware: StateCreatingRoutesMiddleware<FaceRequestContext>()).get("logout") { request, context in
            try await KratosBrowser(services: services).logout(request, origin: context.origin)
        }
        open.delete("logout/api") { request, context in
            let body = try await services.body.json(KratosLogoutRequest.self, from: request)
            guard let token = body.session_token, !token.isEmpty else {
                throw KratosError(status: .badRequest, id: "bad_request", reason: "session_token is required", message: "The request was malformed or contained invalid parameters")
            }
            guard try await services.sessions.session(token: token) != nil else {
                throw KratosError(status: .forbidden, id: "forbidden", reason: "The provided Ory Session Token could not be found.", message: "The requested action was forbidden")
            }
            try await services.sessions.end(token: token, origin: context.origin)
            return Response(status: .noContent, headers: [.cacheControl: "no-store"])
        }
    }

    /// A flow named by `?id=`, readable while it has not expired. A browser flow is shown
    /// only to the browser that holds its CSRF cookie: its nodes carry the CSRF token, which
    /// another page must never learn.
    static func existingFlow(_ services: KratosServices, _ request: Request, kind: InteractiveFlow.Kind, userID: UserID?) async throws -> InteractiveFlow {
        guard let id = request.uri.queryParameters.get("id"), let flow = try await services.flows.flow(id: id), flow.kind == kind else {
            throw InteractiveFlowService.Refusal.unknown
        }
        guard flow.userID == userID else { throw InteractiveFlowService.Refusal.wrongOwner(flow) }
        if flow.isBrowser {
            guard let expected = flow.csrfToken, let cookie = Cookies.value(KratosServices.csrfCookie, in: request),
                KratosBrowser.sameSecret(cookie, expected)
            else { throw KratosError.csrfViolation }
        }
        return flow
    }
}

/// What every flow submission shares: reading `?flow=`, the body, and Kratos's rules for API
/// flows (no `Origin` header, no cookies).
struct KratosSubmissionReader {
    let services: KratosServices

    func read(_ request: Request, kind: InteractiveFlow.Kind, userID: UserID? = nil) async throws -> (InteractiveFlow, KratosSubmission) {
        guard let id = request.uri.queryParameters.get("flow"), !id.isEmpty else {
            throw KratosError(status: .badRequest, id: "bad_request", reason: "the flow query parameter is missing", message: "The request was malformed or contained invalid parameters")
        }
        let flow = try await services.flows.open(id: String(id), kind: kind, userID: userID)
        let submission = try await services.body.jsonOrForm(KratosSubmission.self, from: request, form: KratosSubmission.init(form:))
        if flow.isBrowser {
            try KratosBrowser.checkCSRF(flow, submission, request, services: services)
        } else if let problem = Self.browserHeaders(request) {
            throw KratosFlowRejection(status: .badRequest, flow: try await rendered(flow, messages: [KratosMessages.generic(problem)]))
        }
        return (flow, submission)
    }

    /// Kratos refuses an API flow submission that looks like it came from a browser
    /// (`selfservice/flow/request.go`, `EnsureCSRF`): that is what stops CSRF on them.
    private static func browserHeaders(_ request: Request) -> String? {
        if request.headers[.origin] != nil {
            return "The HTTP Request Header included the \"Origin\" key, indicating that this request was made as part of an AJAX request in a Browser. The flow however was initiated as an API request. To prevent potential misuse and mitigate several attack vectors including CSRF, the request has been blocked. Please consult the documentation."
        }
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let name = pair.split(separator: "=", maxSplits: 1).first?.trimmingCharacters(in: .whitespaces) ?? ""
                if !name.isEmpty, !name.hasPrefix("__cf"), !name.hasPrefix("_cf"), !name.hasPrefix("cf_") {
                    return "The HTTP Request Header included the \"Cookie\" key, indicating that this request was made by a Browser. The flow however was initiated as an API request. To prevent potential misuse and mitigate several attack vectors including CSRF, the request has been blocked. Please consult the documentation."
                }
            }
        }
        return nil
    }

    /// The flow again, with messages, as a refused submission is answered.
    func rendered(_ flow: InteractiveFlow, messages: [KratosMessage] = [], echo: KratosFlowRenderer.Echo = .init()) async throws -> KratosFlowBody {
        var echo = echo
        echo.messages += messages
        if flow.kind == .settings, let userID = flow.userID {
            let account = KratosFlowRenderer.Account(user: try await services.accounts.user(userID), passkeys: try await services.accounts.passkeys(of: userID))
            return services.renderer.body(flow, options: try services.flows.options(of: flow), account: account, echo: echo)
        }
        return services.renderer.body(flow, options: try services.flows.options(of: flow), echo: echo)
    }

    func reject(_ flow: InteractiveFlow, _ messages: [KratosMessage], echo: KratosFlowRenderer.Echo = .init()) async throws -> KratosFlowRejection {
        KratosFlowRejection(status: .badRequest, flow: try await rendered(flow, messages: messages, echo: echo))
    }
}

/// `DELETE /self-service/logout/api`'s body.
struct KratosLogoutRequest: Decodable {
    let session_token: String?
}
