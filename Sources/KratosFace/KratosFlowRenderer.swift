import FaceFrame
import Foundation
import IdentityCore
import WebAuthn

/// Builds a flow's JSON: its nodes, in the order and with the names, groups and nested
/// JSON strings the Kratos contract gives.
struct KratosFlowRenderer: Sendable {
    let publicURL: String
    let names: AuthenticatorNames

    /// What a settings flow shows besides its ceremony.
    struct Account: Sendable {
        let user: User
        let passkeys: [PasskeyCredential]
    }

    /// Values and messages to show again after a refused submission.
    struct Echo: Sendable {
        var email: String?
        var emailMessages: [KratosMessage] = []
        var messages: [KratosMessage] = []
    }

    func body(_ flow: InteractiveFlow, options: InteractiveFlowService.Options, account: Account? = nil, echo: Echo = Echo(), state: String? = nil) -> KratosFlowBody {
        if case .code(let code) = options { return codeFlowBody(flow, state: code, messages: echo.messages, emailMessages: echo.emailMessages) }
        let kind = flow.kind.rawValue
        var nodes = [KratosNode.input("default", .init(name: "csrf_token", type: "hidden", value: flow.csrfToken ?? "", required: true))]
        switch (flow.kind, options) {
        case (.registration, .creation(let creation)):
            var email = KratosNode.input("default", .init(name: "traits.email", type: "email", value: echo.email, required: true, autocomplete: "email"), label: KratosMessages.emailLabel)
            email.messages = echo.emailMessages
            nodes.append(email)
            nodes.append(.input("passkey", .init(name: "passkey_create_data", type: "hidden", value: Self.json(RegistrationCreateData(credentialOptions: .init(publicKey: creation))))))
            nodes.append(.input("passkey", .init(name: "passkey_register_trigger", type: "button", value: "", onclickTrigger: "oryPasskeyRegistration"), label: KratosMessages.signUpWithPasskey))
            nodes.append(.input("passkey", .init(name: "passkey_register", type: "hidden", value: "")))
        case (.login, .request(let request)):
            nodes.append(.input("default", .init(name: "identifier", type: "text", value: "", required: true, autocomplete: "username webauthn"), label: KratosMessages.identifierLabel))
            nodes.append(.input("passkey", .init(name: "passkey_challenge", type: "hidden", value: Self.json(PublicKeyWrapper(publicKey: request)))))
            nodes.append(.input("passkey", .init(name: "passkey_login", type: "hidden", value: "", onloadTrigger: "oryPasskeyLoginAutocompleteInit")))
            nodes.append(.input("passkey", .init(name: "passkey_login_trigger", type: "button", value: "", onclickTrigger: "oryPasskeyLogin"), label: KratosMessages.signInWithPasskey))
        case (.settings, .creation(let creation)):
            if let account {
                nodes.append(.input("profile", .init(name: "traits.email", type: "email", value: account.user.profile.email, required: true, autocomplete: "email"), label: KratosMessages.emailLabel))
                // Kratos refuses to remove the last first-factor credential, and says so by
                // disabling its button.
                let isLast = account.passkeys.count < 2
                for passkey in account.passkeys {
                    let provider = names.entry(for: passkey.aaguid)?.name
                    let label = KratosMessages.removePasskey(names.displayName(of: passkey), addedAt: passkey.createdAt, lastUsedAt: passkey.lastUsedAt, provider: provider, isSynced: passkey.isBackupEligible)
                    nodes.append(.input("passkey", .init(name: "passkey_remove", type: "submit", value: KratosIDs.hex(passkey.credentialID), disabled: isLast), label: label))
                }
            }
            nodes.append(.input("passkey", .init(name: "passkey_create_data", type: "hidden", value: Self.json(PublicKeyWrapper(publicKey: creation)))))
            nodes.append(.input("passkey", .init(name: "passkey_register_trigger", type: "button", value: "", onclickTrigger: "oryPasskeySettingsRegistration"), label: KratosMessages.addPasskey))
            nodes.append(.input("passkey", .init(name: "passkey_settings_register", type: "hidden", value: "")))
        default:
            break
        }
        if flow.isBrowser {
            // Browser flows carry the raw JavaScript beside each trigger, and load webauthn.js.
            for index in nodes.indices {
                if let trigger = nodes[index].attributes.onclickTrigger { nodes[index].attributes.onclick = "window.\(trigger)()" }
                if let trigger = nodes[index].attributes.onloadTrigger { nodes[index].attributes.onload = "window.\(trigger)()" }
            }
            nodes.append(.webAuthnScript(publicURL + "/.well-known/ory/webauthn.js"))
        }
        let issued = WireTime.text(flow.issuedAt)
        var body = KratosFlowBody(
            id: flow.id, type: flow.isBrowser ? "browser" : "api", expires_at: WireTime.text(flow.expiresAt), issued_at: issued,
            request_url: flow.requestURL, active: echo.messages.isEmpty && echo.emailMessages.isEmpty ? nil : "passkey",
            ui: KratosUI(action: publicURL + "/self-service/\(kind)?flow=" + flow.id, method: "POST", nodes: nodes, messages: echo.messages.isEmpty ? nil : echo.messages),
            state: state ?? (flow.kind == .settings ? "show_form" : "choose_method")
        )
        if flow.kind == .login {
            body.refresh = false
            body.requested_aal = "aal1"
            body.created_at = issued
            body.updated_at = issued
        }
        if let account { body.identity = KratosIdentityBody(account.user, publicURL: publicURL) }
        return body
    }

    /// `passkey_create_data` at registration: the options under `credentialOptions`, and
    /// the trait the client copies into `user.name` and `user.displayName`.
    private struct RegistrationCreateData: Encodable {
        let credentialOptions: PublicKeyWrapper<PublicKeyCredentialCreationOptionsJSON>
        let displayNameFieldName = "traits.email"
        let displayNameFieldNames = ["traits.email"]
    }

    private struct PublicKeyWrapper<Options: Encodable>: Encodable {
        let publicKey: Options
    }

    /// A node value that is a JSON document in a string, as Kratos nests them.
    private static func json(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return String(decoding: (try? encoder.encode(value)) ?? Data("{}".utf8), as: UTF8.self)
    }
}
