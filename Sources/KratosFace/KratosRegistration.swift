import FaceFrame
import Foundation
import Hummingbird
import IdentityCore
import WebAuthn

/// `POST /self-service/registration?flow=…` with `method: passkey`: the traits and the
/// attestation in one submission (Kratos's unified style), the account and its session.
struct KratosRegistration {
    let services: KratosServices

    func submit(_ request: Request, context: some OriginRequestContext) async throws -> Response {
        let reader = KratosSubmissionReader(services: services)
        let (flow, submission) = try await reader.read(request, kind: .registration)
        var echo = KratosFlowRenderer.Echo(email: submission["traits.email"])
        guard submission["method"] == "passkey" || submission["passkey_register"] != nil,
            let attestation = submission["passkey_register"], attestation != "true"
        else {
            throw try await reader.reject(flow, [KratosMessages.noRegistrationStrategy], echo: echo)
        }
        guard let email = submission["traits.email"] else {
            echo.emailMessages = [KratosMessages.missingProperty("email")]
            throw try await reader.reject(flow, [], echo: echo)
        }
        guard let response = KratosSubmission.credential(attestation, as: RegistrationResponseJSON.self) else {
            throw try await reader.reject(flow, [KratosMessages.generic("Unable to parse WebAuthn response: Parse error for Registration")], echo: echo)
        }
        let profile = UserProfile(email: email, name: submission["traits.name"])
        let signedIn: SignedIn
        let (token, session): (String, BrowserSession)
        do {
            (signedIn, (token, session)) = try await services.flows.register(
                flow, response: response, profile: profile, origin: context.origin, failureCheck: context.failureCheck, startSession: services.sessions.begin
            )
        } catch let failure as InteractiveFlowService.FailedAttempt {
            // A limit is answered as Kratos answers one: 429, not a flow message.
            if failure.error.code == .tooManyRequests { throw failure.error }
            throw try await reader.reject(failure.flow, Self.messages(for: failure.error, echo: &echo), echo: echo)
        }
        let body = KratosSessionBody(session, user: signedIn.user, publicURL: services.publicURL)
        if flow.isBrowser {
            return KratosBrowser.signedIn(flow, request, token: token, json: KratosBrowserRegistrationSuccess(identity: body.identity, session: body), services: services)
        }
        return JSONResponse.make(KratosRegistrationSuccess(
            identity: body.identity, session_token: token, session: body,
            continue_with: [.init(action: "set_ory_session_token", ory_session_token: token)]
        ))
    }

    /// Kratos's messages for a failed registration. Verification failures are a 400 flow
    /// with the reason, not Kratos's 500 (the contract's §8 allows either).
    private static func messages(for error: IdentityError, echo: inout KratosFlowRenderer.Echo) -> [KratosMessage] {
        switch error.reason {
        case .userExists:
            return [KratosMessages.duplicateIdentifier]
        case .verification(let check):
            return [KratosMessages.credentialRefused(error.message(.kratos), check: check.rawValue)]
        default:
            switch error.field {
            case .profile?, .profileMember?:
                echo.emailMessages = [KratosMessages.generic(error.message(.kratos))]
                return []
            default:
                return [KratosMessages.generic(error.message(.kratos))]
            }
        }
    }
}

/// `POST /self-service/login?flow=…` with `method: passkey`: a discoverable assertion.
struct KratosLogin {
    let services: KratosServices

    func submit(_ request: Request, context: some OriginRequestContext) async throws -> Response {
        let reader = KratosSubmissionReader(services: services)
        let (flow, submission) = try await reader.read(request, kind: .login)
        guard let assertion = submission["passkey_login"] else {
            if submission["method"] == "passkey" {
                // Kratos answers a passkey submission without an assertion by sending the
                // client back to the flow's UI.
                var error = KratosError(
                    status: .unprocessableContent, id: "browser_location_change_required",
                    reason: "In order to complete this flow please redirect the browser to: \(services.publicURL)/self-service/login/flows?id=\(flow.id)",
                    message: "browser location change required"
                )
                let target = "\(services.publicURL)/self-service/login/flows?id=\(flow.id)"
                error.extra = { body in
                    var body = body
                    body.redirect_browser_to = target
                    return body
                }
                throw error
            }
            throw try await reader.reject(flow, [KratosMessages.noLoginStrategy])
        }
        guard let response = KratosSubmission.credential(assertion, as: AuthenticationResponseJSON.self) else {
            throw try await reader.reject(flow, [KratosMessages.generic("Unable to parse WebAuthn response.")])
        }
        guard response.response.userHandle.map({ !$0.bytes.isEmpty }) ?? false else {
            // Kratos logins are discoverable: the user handle names the account.
            throw try await reader.reject(flow, [KratosMessages.noSuchAccount])
        }
        let signedIn: SignedIn
        let (token, session): (String, BrowserSession)
        do {
            (signedIn, (token, session)) = try await services.flows.login(
                flow, response: response, origin: context.origin, failureCheck: context.failureCheck, startSession: services.sessions.begin
            )
        } catch let failure as InteractiveFlowService.FailedAttempt {
            if failure.error.code == .tooManyRequests { throw failure.error }
            let message: KratosMessage
            switch failure.error.reason {
            case .unknownCredential?: message = KratosMessages.noSuchAccount
            case .verification(let check)?: message = KratosMessages.loginRefused(check: check.rawValue)
            default: message = KratosMessages.loginInvalid
            }
            throw try await reader.reject(failure.flow, [message])
        }
        let body = KratosSessionBody(session, user: signedIn.user, publicURL: services.publicURL)
        if flow.isBrowser {
            return KratosBrowser.signedIn(flow, request, token: token, json: KratosLoginSuccess(session_token: nil, session: body), services: services)
        }
        return JSONResponse.make(KratosLoginSuccess(session_token: token, session: body))
    }
}

/// `POST /self-service/settings?flow=…`: add a passkey or remove one (never the last).
struct KratosSettings {
    let services: KratosServices

    func body(_ flow: InteractiveFlow, userID: UserID, messages: [KratosMessage] = [], state: String? = nil) async throws -> KratosFlowBody {
        let account = KratosFlowRenderer.Account(user: try await services.accounts.user(userID), passkeys: try await services.accounts.passkeys(of: userID))
        return services.renderer.body(flow, options: try services.flows.options(of: flow), account: account, echo: .init(messages: messages), state: state)
    }

    func submit(_ request: Request, session: BrowserSession, origin: RequestOrigin?) async throws -> Response {
        let reader = KratosSubmissionReader(services: services)
        let (flow, submission) = try await reader.read(request, kind: .settings, userID: session.userID)
        if let remove = submission["passkey_remove"] {
            // A recovery's session may add a passkey, never remove one.
            guard !session.isRecovery else {
                throw try await reader.reject(flow, [KratosMessages.generic("A session started by account recovery can add a passkey but not remove one. Sign in with your new passkey first.")])
            }
            guard let credentialID = KratosIDs.bytes(hex: remove) else {
                throw try await reader.reject(flow, [KratosMessages.generic("You tried to remove a passkey which does not exist.")])
            }
            do {
                try await services.flows.removePasskey(flow, by: session.signIn, credentialID: credentialID, origin: origin)
            } catch let failure as InteractiveFlowService.FailedAttempt {
                throw try await refusal(failure, reader)
            }
            return finished(flow, request, try await body(flow, userID: session.userID, messages: [KratosMessages.saved], state: "success"))
        }
        if let attestation = submission["passkey_settings_register"] {
            guard let response = KratosSubmission.credential(attestation, as: RegistrationResponseJSON.self) else {
                throw try await reader.reject(flow, [KratosMessages.generic("Unable to parse WebAuthn response: Parse error for Registration")])
            }
            let renewed: InteractiveFlow
            do {
                (_, renewed) = try await services.flows.addPasskey(flow, by: session.signIn, response: response, origin: origin)
            } catch let failure as InteractiveFlowService.FailedAttempt {
                throw try await refusal(failure, reader)
            }
            return finished(renewed, request, try await body(renewed, userID: session.userID, messages: [KratosMessages.saved], state: "success"))
        }
        if submission["method"] == "profile", let email = submission["traits.email"] {
            return try await changeEmail(flow, to: email, request: request, session: session, reader: reader)
        }
        throw try await reader.reject(flow, [KratosMessages.noSettingsStrategy])
    }

    /// `method: profile` with a new `traits.email`: the new address is proved before it
    /// replaces the old one. A code goes to it, and the answer names a verification flow,
    /// already at `sent_email` (`continue_with` `show_verification_ui`), whose code makes the
    /// change. The same address again is nothing to save.
    private func changeEmail(_ flow: InteractiveFlow, to email: String, request: Request, session: BrowserSession, reader: KratosSubmissionReader) async throws -> Response {
        let user = try await services.accounts.user(session.userID)
        guard ProfileValidation.identifier(forLogin: email) != user.profile.email.map(Identifier.email) else {
            return finished(flow, request, try await body(flow, userID: session.userID, messages: [KratosMessages.saved], state: "success"))
        }
        let pending: String
        do {
            pending = try await services.recovery.requestEmailChange(by: session.signIn, to: email)
        } catch let error as IdentityError where error.code != .tooManyRequests {
            throw try await refusal(services.flows.refuse(flow, error), reader)
        }
        let verification = try await services.flows.start(
            .verification, isBrowser: flow.isBrowser, userID: session.userID, csrfToken: flow.csrfToken,
            requestURL: services.publicURL + "/self-service/verification/" + (flow.isBrowser ? "browser" : "api")
        )
        let sent = try await services.flows.advance(verification, to: .init(step: .sentEmail, email: pending))
        var saved = try await body(flow, userID: session.userID, messages: [KratosMessages.saved], state: "success")
        saved.continue_with = [
            KratosContinueWith(
                action: "show_verification_ui",
                flow: .init(id: sent.id, verifiable_address: pending, url: services.publicURL + "/self-service/verification/flows?id=" + sent.id)
            ),
        ]
        return finished(flow, request, saved)
    }

    /// A refused change: a session too old for it is sent to sign in again (Kratos's
    /// `session_refresh_required`, with where a browser signs in again and comes back to
    /// the flow); anything else is the flow again with its message.
    private func refusal(_ failure: InteractiveFlowService.FailedAttempt, _ reader: KratosSubmissionReader) async throws -> any Error {
        if case .insufficientUserAuthentication = failure.error.reason {
            let returnTo = failure.flow.requestURL.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? ""
            return KratosError.sessionRefreshRequired(redirectTo: services.publicURL + "/self-service/login/browser?refresh=true&return_to=" + returnTo)
        }
        return try await reader.reject(failure.flow, [Self.message(for: failure.error)])
    }

    /// The saved flow: JSON for an app or a script, a redirect for a browser's form post.
    private func finished(_ flow: InteractiveFlow, _ request: Request, _ body: KratosFlowBody) -> Response {
        flow.isBrowser ? KratosBrowser.finished(flow, request, json: body, services: services) : JSONResponse.make(body)
    }

    private static func message(for error: IdentityError) -> KratosMessage {
        switch (error.code, error.reason) {
        case (_, .lastAuthenticationMethod):
            return KratosMessages.generic("unable to remove this security key because it would lock you out of your account")
        case (.notFound, _):
            return KratosMessages.generic("You tried to remove a passkey which does not exist.")
        case (.conflict, _):
            return KratosMessages.generic("this security key or passkey is already registered with your account")
        case (_, .userExists):
            return KratosMessages.duplicateIdentifier
        case (_, .verification(let check)):
            return KratosMessages.credentialRefused(error.message(.kratos), check: check.rawValue)
        default:
            return KratosMessages.generic(error.message(.kratos))
        }
    }
}
