import FaceFrame
import Foundation
import IdentityCore

extension KratosFlowRenderer {
    /// A recovery or verification flow (the `code` method), with the nodes each step shows,
    /// in Kratos's order (`selfservice/strategy/code`'s recovery and verification).
    func codeFlowBody(
        _ flow: InteractiveFlow, state: InteractiveFlowService.CodeFlowState, messages: [KratosMessage] = [], emailMessages: [KratosMessage] = [],
        continueWith: [KratosContinueWith]? = nil, returnTo: String? = nil
    ) -> KratosFlowBody {
        let recovery = flow.kind == .recovery
        let csrf = KratosNode.input("default", .init(name: "csrf_token", type: "hidden", value: flow.csrfToken ?? "", required: true))
        let submit = KratosNode.input("code", .init(name: "method", type: "submit", value: "code"), label: KratosMessages.continueLabel)
        var nodes: [KratosNode] = []
        var action = publicURL + "/self-service/\(flow.kind.rawValue)?flow=" + flow.id
        var method = "POST"
        switch state.step {
        case .chooseMethod:
            var email = KratosNode.input("code", .init(name: "email", type: "email", value: state.email, required: true), label: KratosMessages.codeEmailLabel)
            email.messages = emailMessages
            nodes = [email, submit]
        case .sentEmail:
            var code = KratosNode.Attributes(name: "code", type: "text", required: true, autocomplete: "one-time-code")
            if recovery {
                code.pattern = "[0-9]+"
                code.maxlength = 6
            }
            let resend = KratosNode.input("code", .init(name: "email", type: "submit", value: state.email ?? ""), label: KratosMessages.resendCode)
            let label = recovery ? KratosMessages.recoveryCodeLabel : KratosMessages.verificationCodeLabel
            if recovery {
                nodes = [.input("code", code, label: label), .input("code", .init(name: "method", type: "hidden", value: "code")), submit, resend]
            } else {
                nodes = [.input("code", .init(name: "method", type: "hidden", value: "code")), .input("code", code, label: label), submit]
                if flow.isBrowser { nodes.append(csrf) }
                nodes.append(resend)
            }
        case .passedChallenge:
            if !recovery {
                // Verified: a link onward, to where the flow was started from.
                let target = returnTo ?? publicURL + "/"
                action = target
                method = "GET"
                nodes = [.anchor("code", .init(id: "continue", href: target, title: KratosMessages.continueLabel))]
            }
        }
        // Recovery flows carry the CSRF node first, API ones too; verification only on
        // browser flows, last (after the step's own nodes, as Kratos orders them).
        if recovery {
            nodes.insert(csrf, at: 0)
        } else if flow.isBrowser, state.step == .chooseMethod {
            nodes.append(csrf)
        } else if state.step == .passedChallenge {
            nodes.insert(csrf, at: 0)
        }
        return KratosFlowBody(
            id: flow.id, type: flow.isBrowser ? "browser" : "api", expires_at: WireTime.text(flow.expiresAt), issued_at: WireTime.text(flow.issuedAt),
            request_url: flow.requestURL, active: "code",
            ui: KratosUI(action: action, method: method, nodes: nodes, messages: messages.isEmpty ? nil : messages),
            state: state.step.rawValue, continue_with: continueWith
        )
    }
}
