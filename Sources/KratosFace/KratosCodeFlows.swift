import FaceFrame
import Foundation
import HTTPTypes
import Hummingbird
import IdentityCore

extension Router where Context == FaceRequestContext {
    /// Kratos's recovery and verification flows with the `code` method: start (`/api`,
    /// `/browser`), read (`/flows?id=`), and submit an address, then the code it was sent.
    /// A recovery ends with a short session and a settings flow to add a passkey in
    /// (`continue_with`: `set_ory_session_token`, `show_settings_ui`), as Kratos answers
    /// native apps with its continue-with transitions.
    func addKratosCodeFlows(
        _ services: KratosServices, open: RouterGroup<FaceRequestContext>, starts: RouterGroup<FaceRequestContext>, finishes: RouterGroup<FaceRequestContext>
    ) {
        for kind in [InteractiveFlow.Kind.recovery, .verification] {
            starts.get("\(kind.rawValue)/api") { request, _ in
                if kind == .recovery { try await KratosCodeFlow.refuseWithSession(request, services: services) }
                let flow = try await services.flows.start(kind, isBrowser: false, userID: nil, csrfToken: nil, requestURL: services.requestURL(request))
                return JSONResponse.make(services.renderer.body(flow, options: try services.flows.options(of: flow)))
            }
            starts.get("\(kind.rawValue)/browser") { request, _ in
                if kind == .recovery { try await KratosCodeFlow.refuseWithSession(request, services: services) }
                return try await KratosBrowser(services: services).start(kind, request)
            }
            open.get("\(kind.rawValue)/flows") { request, _ in
                let owner = kind == .verification ? try await KratosCodeFlow.owner(of: request.uri.queryParameters.get("id"), services: services) : nil
                let flow = try await Self.existingFlow(services, request, kind: kind, userID: owner)
                return JSONResponse.make(services.renderer.body(flow, options: try services.flows.options(of: flow)))
            }
            finishes.post(RouterPath(kind.rawValue)) { request, context in
                try await KratosCodeFlow(services: services, kind: kind).submit(request, origin: context.origin)
            }
        }
    }
}

/// One submission to a recovery or verification flow.
struct KratosCodeFlow {
    let services: KratosServices
    let kind: InteractiveFlow.Kind

    private var isRecovery: Bool { kind == .recovery }

    func submit(_ request: Request, origin: RequestOrigin?) async throws -> Response {
        let reader = KratosSubmissionReader(services: services)
        // A verification flow a settings change started belongs to that account; its code,
        // sent to the new address, is what proves the submitter.
        let owner = kind == .verification ? try await Self.owner(of: request.uri.queryParameters.get("flow"), services: services) : nil
        let (flow, submission) = try await reader.read(request, kind: kind, userID: owner)
        guard case .code(let state) = try services.flows.options(of: flow) else { throw InteractiveFlowService.Refusal.unknown }
        let email = submission["email"], code = submission["code"]
        // Kratos's rule: past the first step, a submission without an address is a code.
        if state.step != .chooseMethod, email == nil {
            return try await check(code ?? "", flow: flow, state: state, request: request, origin: origin)
        }
        guard submission["method"] == "code" || (!isRecovery && submission["method"] == nil && email != nil) else {
            return respond(flow, state: state, messages: [isRecovery ? KratosMessages.noRecoveryStrategy : KratosMessages.generic("Could not find a strategy to verify your account with. Did you fill out the form correctly?")], status: .badRequest)
        }
        if isRecovery { try await Self.refuseWithSession(request, services: services) }
        guard let email else {
            return respond(flow, state: state, emailMessages: [KratosMessages.missingProperty("email")], status: .badRequest)
        }
        do {
            if isRecovery {
                try await services.recovery.startRecovery(email: email)
            } else {
                try await services.recovery.sendVerification(toAddress: email)
            }
        } catch let error as IdentityError where error.reason == .malformedIdentifier {
            let message = KratosMessage.error(4_000_001, "\"\(email.prefix(80))\" is not valid \"email\"", context: ["reason": .text("\"\(email.prefix(80))\" is not valid \"email\"")])
            return respond(flow, state: .init(step: state.step, email: email), emailMessages: [message], status: .badRequest)
        }
        // Sent, or not (an unknown address): the same answer either way.
        let sent = InteractiveFlowService.CodeFlowState(step: .sentEmail, email: email)
        let advanced = try await services.flows.advance(flow, to: sent)
        return respond(advanced, state: sent, messages: [isRecovery ? KratosMessages.recoveryCodeSent : KratosMessages.verificationCodeSent])
    }

    /// The code step: a wrong or expired code shows the flow again with Kratos's message; the
    /// sixth guess replaces the flow; the right one finishes it.
    private func check(_ code: String, flow: InteractiveFlow, state: InteractiveFlowService.CodeFlowState, request: Request, origin: RequestOrigin?) async throws -> Response {
        let invalid = isRecovery ? KratosMessages.invalidRecoveryCode : KratosMessages.invalidVerificationCode
        guard let address = state.email, !code.isEmpty else { return respond(flow, state: state, messages: [invalid]) }
        let user: User
        do {
            if isRecovery {
                user = try await services.recovery.recover(email: address, code: code, recoveryCode: nil, clientID: OAuthClient.selfService.clientID, origin: origin)
            } else if let owner = flow.userID {
                user = try await services.recovery.verifyEmail(userID: owner, code: code, origin: origin)
            } else {
                user = try await services.recovery.verifyEmail(address: address, code: code, origin: origin)
            }
        } catch let error as IdentityError where error.reason == .tooManyAttempts {
            throw try await replaced(flow)
        } catch let error as IdentityError where error.code != .tooManyRequests {
            // Kratos answers a wrong code with the flow and `200`, which the finish limit would
            // not count: it is counted here, as every other face's wrong code is.
            try await services.flows.rateLimits?.noteFailure(from: request.headers.firstValue(ClientAddressHeader.name) ?? "unknown")
            return respond(flow, state: state, messages: [invalid])
        }
        let passed = InteractiveFlowService.CodeFlowState(step: .passedChallenge, email: address)
        let finished = try await services.flows.advance(flow, to: passed)
        guard isRecovery else {
            let body = services.renderer.codeFlowBody(
                finished, state: passed, messages: [KratosMessages.verified], returnTo: KratosBrowser.returnTo(flow.requestURL, services: services)
            )
            return JSONResponse.make(body)
        }
        // Recovered: a short session, and a settings flow of the same kind to add a passkey in.
        let (token, session) = try await services.sessions.startAfterRecovery(for: user)
        let settings = try await services.flows.start(
            .settings, isBrowser: flow.isBrowser, userID: user.id, csrfToken: flow.csrfToken,
            requestURL: services.publicURL + "/self-service/settings/" + (flow.isBrowser ? "browser" : "api")
        )
        let settingsURL = services.publicURL + "/self-service/settings/flows?id=" + settings.id
        var continueWith = [KratosContinueWith.show("show_settings_ui", flow: settings.id, url: settingsURL)]
        if !flow.isBrowser { continueWith.insert(.sessionToken(token), at: 0) }
        let body = services.renderer.codeFlowBody(finished, state: passed, continueWith: continueWith)
        guard flow.isBrowser else { return JSONResponse.make(body) }
        let cookie = Cookies.setCookie(KratosServices.sessionCookie, token, maxAge: Int(session.expiresAt.timeIntervalSince(session.authenticatedAt)), sameSite: "Lax", secure: services.secureCookies)
        var response = KratosBrowser.wantsJSON(request) ? JSONResponse.make(body) : Response(status: .seeOther, headers: [.location: settingsURL, .cacheControl: "no-store"])
        response.headers.append(HTTPField(name: .setCookie, value: cookie))
        return response
    }

    /// Too many guesses: a new flow replaces this one (recovery: `400` naming it in
    /// `continue_with`; verification: `410 self_service_flow_replaced`).
    private func replaced(_ flow: InteractiveFlow) async throws -> KratosError {
        let replacement = try await services.flows.start(kind, isBrowser: flow.isBrowser, userID: nil, csrfToken: flow.csrfToken, requestURL: flow.requestURL)
        if isRecovery {
            var error = KratosError(
                status: .badRequest, id: nil, reason: KratosMessages.submittedTooOften.text, message: "The request was malformed or contained invalid parameters"
            )
            error.extra = { body in
                var body = body
                body.error.details = .init(continue_with: [.show("show_recovery_ui", flow: replacement.id, url: nil)])
                return body
            }
            return error
        }
        var error = KratosError(status: .gone, id: "self_service_flow_replaced", reason: "An error occured, please retry the flow.", message: "self-service flow replaced")
        error.extra = { body in
            var body = body
            body.use_flow_id = replacement.id
            return body
        }
        return error
    }

    private func respond(
        _ flow: InteractiveFlow, state: InteractiveFlowService.CodeFlowState, messages: [KratosMessage] = [], emailMessages: [KratosMessage] = [],
        status: HTTPResponse.Status = .ok
    ) -> Response {
        JSONResponse.make(services.renderer.codeFlowBody(flow, state: state, messages: messages, emailMessages: emailMessages), status: status)
    }

    /// The account a flow belongs to (a verification flow a settings change started).
    static func owner(of id: String?, services: KratosServices) async throws -> UserID? {
        guard let id else { return nil }
        return try await services.flows.flow(id: id)?.userID
    }

    /// Recovery is for people who cannot sign in: Kratos refuses it to a live session.
    static func refuseWithSession(_ request: Request, services: KratosServices) async throws {
        let token = request.headers[HTTPField.Name("X-Session-Token")!] ?? Cookies.value(KratosServices.sessionCookie, in: request)
        guard let token, try await services.sessions.session(token: token) != nil else { return }
        throw KratosError(
            status: .badRequest, id: "session_already_available", reason: "A valid session was detected and thus recovery is not possible.",
            message: "The request was malformed or contained invalid parameters"
        )
    }
}
