import FaceFrame
import Foundation

/// A Kratos UI message (`text/message.go`): flow-level in `ui.messages`, field-level in a
/// node's `messages`, and a node's label.
struct KratosMessage: Encodable, Sendable {
    /// A value in a message's free-form `context`.
    enum ContextValue: Encodable, Sendable {
        case text(String)
        case number(Int64)

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .text(let text): try container.encode(text)
            case .number(let number): try container.encode(number)
            }
        }
    }

    let id: Int
    let text, type: String
    let context: [String: ContextValue]?

    static func info(_ id: Int, _ text: String, context: [String: ContextValue]? = nil) -> KratosMessage {
        KratosMessage(id: id, text: text, type: "info", context: context)
    }

    static func error(_ id: Int, _ text: String, context: [String: ContextValue]? = nil) -> KratosMessage {
        KratosMessage(id: id, text: text, type: "error", context: context)
    }

    static func success(_ id: Int, _ text: String) -> KratosMessage {
        KratosMessage(id: id, text: text, type: "success", context: nil)
    }
}

/// The message ids and texts Kratos clients know (`text/id.go`, `text/message_*.go`).
enum KratosMessages {
    static let signInWithPasskey = KratosMessage.info(1_010_021, "Sign in with passkey")
    static let signUpWithPasskey = KratosMessage.info(1_040_007, "Sign up with passkey")
    static let addPasskey = KratosMessage.info(1_050_019, "Add passkey")
    static let saved = KratosMessage.success(1_050_001, "Your changes have been saved!")
    static let identifierLabel = KratosMessage.info(1_070_004, "ID")
    static let emailLabel = KratosMessage.info(1_070_002, "E-Mail", context: ["title": .text("E-Mail")])
    // Recovery and verification by code (`text/id.go`: 1060xxx, 1070xxx, 1080xxx, 406xxxx, 407xxxx).
    static let codeEmailLabel = KratosMessage.info(1_070_007, "Email")
    static let resendCode = KratosMessage.info(1_070_008, "Resend code")
    static let continueLabel = KratosMessage.info(1_070_009, "Continue")
    static let recoveryCodeLabel = KratosMessage.info(1_070_010, "Recovery code")
    static let verificationCodeLabel = KratosMessage.info(1_070_011, "Verification code")
    static let recoveryCodeSent = KratosMessage.info(
        1_060_003,
        "An email containing a recovery code has been sent to the email address you provided. If you have not received an email, check the spelling of the address and make sure to use the address you registered with."
    )
    static let verificationCodeSent = KratosMessage.info(
        1_080_003,
        "An email containing a verification code has been sent to the email address you provided. If you have not received an email, check the spelling of the address and make sure to use the address you registered with."
    )
    static let verified = KratosMessage.success(1_080_002, "You successfully verified your email address.")
    static let invalidRecoveryCode = KratosMessage.error(4_060_006, "The recovery code is invalid or has already been used. Please try again.")
    static let invalidVerificationCode = KratosMessage.error(4_070_006, "The verification code is invalid or has already been used. Please try again.")
    static let noRecoveryStrategy = KratosMessage.error(4_010_005, "Could not find a strategy to recover your account with. Did you fill out the form correctly?")
    static let submittedTooOften = KratosMessage.error(4_000_001, "The request was submitted too often. Please request another code.")

    static func generic(_ reason: String) -> KratosMessage { .error(4_000_001, reason, context: ["reason": .text(reason)]) }
    /// A passkey the verification pipeline refused. Latchkey's addition to the free-form
    /// context: `check`, the stable code of the rule that refused it (`credential_id_length`,
    /// `device_bound_required`, …), which the other faces carry too.
    static func credentialRefused(_ reason: String, check: String) -> KratosMessage {
        let text = "Unable to create WebAuthn credential: " + reason
        return .error(4_000_001, text, context: ["reason": .text(text), "check": .text(check)])
    }
    static func missingProperty(_ property: String) -> KratosMessage {
        .error(4_000_002, "Property \(property) is missing.", context: ["property": .text(property)])
    }
    static let duplicateIdentifier = KratosMessage.error(4_000_007, "An account with the same identifier (email, phone, username, ...) exists already.")
    static let noSuchAccount = KratosMessage.error(4_000_015, "This account does not exist or has no security key set up.")
    static let loginInvalid = KratosMessage.error(4_000_043, "The provided web authn login is invalid, please try again.")
    /// Kratos's message for a refused login, with Latchkey's `check` (`bad_signature`,
    /// `passkey_not_allowed`, …) in the free-form context, as refused registrations carry it.
    static func loginRefused(check: String) -> KratosMessage {
        .error(4_000_043, "The provided web authn login is invalid, please try again.", context: ["check": .text(check)])
    }
    static let noLoginStrategy = KratosMessage.error(4_010_002, "Could not find a strategy to log you in with. Did you fill out the form correctly?")
    static let noRegistrationStrategy = KratosMessage.error(4_010_003, "Could not find a strategy to sign you up with. Did you fill out the form correctly?")
    static let noSettingsStrategy = KratosMessage.error(4_010_004, "Could not find a strategy to update your settings. Did you fill out the form correctly?")

    static func removePasskey(_ name: String, addedAt: Date, lastUsedAt: Date?, provider: String?, isSynced: Bool) -> KratosMessage {
        var context: [String: KratosMessage.ContextValue] = [
            "display_name": .text(name), "added_at": .text(WireTime.text(addedAt)), "added_at_unix": .number(Int64(addedAt.timeIntervalSince1970)),
        ]
        // Latchkey's additions (the contract's context is free-form): when the passkey was
        // last used, the provider its AAGUID names, and whether it is synced (`multi_device`,
        // backup eligible) or device-bound (`single_device`), in My Account's words.
        context["credential_device_type"] = .text(isSynced ? "multi_device" : "single_device")
        if let lastUsedAt {
            context["last_used_at"] = .text(WireTime.text(lastUsedAt))
            context["last_used_at_unix"] = .number(Int64(lastUsedAt.timeIntervalSince1970))
        }
        if let provider { context["provider"] = .text(provider) }
        return .info(1_050_020, "Remove passkey \"\(name)\"", context: context)
    }
}

/// A UI node (`ui/node/node.go`): an input, or for browser flows the `webauthn.js` script.
struct KratosNode: Encodable, Sendable {
    struct Attributes: Encodable, Sendable {
        let name, type: String
        var value: String?
        var required: Bool?
        var autocomplete: String?
        var disabled: Bool = false
        var onclick, onclickTrigger, onload, onloadTrigger: String?
        var pattern: String?
        var maxlength: Int?
        var node_type: String = "input"
    }

    /// An `<a>` node's attributes (Kratos's `AnchorAttributes`).
    struct AnchorAttributes: Encodable, Sendable {
        let id, href: String
        let title: KratosMessage
        let node_type = "a"
    }

    /// A `<script>` node's attributes.
    struct ScriptAttributes: Encodable, Sendable {
        let src: String
        /// Subresource integrity of the served script, so a UI that pins it notices a change.
        let integrity: String
        let async = true
        let referrerpolicy = "no-referrer"
        let crossorigin = "anonymous"
        let type = "text/javascript"
        let id = "webauthn_script"
        let nonce = ""
        let node_type = "script"
    }

    struct Meta: Encodable, Sendable {
        var label: KratosMessage?
    }

    let type, group: String
    var attributes: Attributes
    var script: ScriptAttributes?
    var anchor: AnchorAttributes?
    var messages: [KratosMessage] = []
    var meta: Meta

    static func input(_ group: String, _ attributes: Attributes, label: KratosMessage? = nil) -> KratosNode {
        KratosNode(type: "input", group: group, attributes: attributes, meta: Meta(label: label))
    }

    /// A link (the verification flow's "Continue").
    static func anchor(_ group: String, _ attributes: AnchorAttributes) -> KratosNode {
        KratosNode(type: "a", group: group, attributes: .init(name: "", type: ""), anchor: attributes, meta: Meta(label: attributes.title))
    }

    /// The node that loads `webauthn.js` into browser flows.
    static func webAuthnScript(_ src: String) -> KratosNode {
        KratosNode(type: "script", group: "passkey", attributes: .init(name: "", type: ""), script: ScriptAttributes(src: src, integrity: KratosScript.integrity), meta: Meta())
    }

    private enum CodingKeys: String, CodingKey { case type, group, attributes, messages, meta }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        try container.encode(group, forKey: .group)
        if let script {
            try container.encode(script, forKey: .attributes)
        } else if let anchor {
            try container.encode(anchor, forKey: .attributes)
        } else {
            try container.encode(attributes, forKey: .attributes)
        }
        try container.encode(messages, forKey: .messages)
        try container.encode(meta, forKey: .meta)
    }
}

/// The `ui` member of a flow.
struct KratosUI: Encodable, Sendable {
    let action, method: String
    var nodes: [KratosNode]
    var messages: [KratosMessage]?
}
