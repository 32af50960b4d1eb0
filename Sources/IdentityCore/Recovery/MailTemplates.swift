import Foundation

/// The words of each message Latchkey sends: a subject, a plain-text body and an HTML body
/// per ``MailKind``, with `{{name}}` placeholders. The defaults are plain English; an
/// operator overrides any part from a directory (`email.templates`: `<kind>.subject`,
/// `<kind>.txt`, `<kind>.html`, for example `verification_code.txt`).
public struct MailTemplates: Sendable {
    /// One message's parts: the built-in ones, each part of which an operator's file may
    /// replace (``init(directory:)``), so only the core makes them whole.
    public struct Template: Sendable, Hashable {
        public var subject: String
        /// The plain-text body.
        public var text: String
        /// The HTML body.
        public var html: String
    }

    /// The templates by kind.
    public private(set) var templates: [MailKind: Template]
    /// The operator's brand, around the built-in messages (an operator's own templates say
    /// what they like).
    public var branding = MailBranding()
    /// The parts an operator's file replaced, by kind: the brand stays out of them.
    private var replaced: [MailKind: Set<String>] = [:]

    /// The defaults.
    public init() { templates = Self.defaults }

    /// The defaults, with any part found in `directory` in their place.
    /// - Throws: A readable message when a file exists but cannot be read as UTF-8.
    public init(directory: String) throws {
        self.init()
        for kind in MailKind.allCases {
            var template = templates[kind]!
            for (suffix, keyPath) in [("subject", \Template.subject), ("txt", \Template.text), ("html", \Template.html)] {
                let path = (directory as NSString).appendingPathComponent("\(kind.rawValue).\(suffix)")
                guard FileManager.default.fileExists(atPath: path) else { continue }
                guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
                    throw IdentityError(.invalidRequest, "the mail template \(path) cannot be read as UTF-8 text")
                }
                template[keyPath: keyPath] = suffix == "subject" ? text.trimmingCharacters(in: .whitespacesAndNewlines) : text
                replaced[kind, default: []].insert(suffix)
            }
            templates[kind] = template
        }
    }

    /// A message's subject, text and HTML with `values` filled in: as they are in the
    /// subject and text, HTML-escaped in the HTML. A subject keeps no line break, so no
    /// value can add a header.
    public func render(_ kind: MailKind, values: [String: String]) -> Template {
        let template = templates[kind] ?? Self.defaults[kind]!
        let subject = Self.fill(template.subject, values).components(separatedBy: .newlines).joined(separator: " ")
        var text = Self.fill(template.text, values), html = Self.fill(template.html, values.mapValues(HTMLText.escape))
        let ownParts = replaced[kind] ?? []
        if !ownParts.contains("txt") { text = branding.text(around: text) }
        if !ownParts.contains("html") { html = branding.html(around: html, service: values["service"] ?? "") }
        return Template(subject: subject, text: text, html: html)
    }

    /// One pass over the template: each `{{name}}` with a value is replaced, anything else
    /// is kept as written. (Sign-ups render a message each; one pass, not one per value.)
    private static func fill(_ template: String, _ values: [String: String]) -> String {
        var result = ""
        result.reserveCapacity(template.utf8.count + 64)
        var rest = Substring(template)
        while let open = rest.range(of: "{{") {
            result += rest[..<open.lowerBound]
            let after = rest[open.upperBound...]
            guard let close = after.range(of: "}}") else {
                rest = rest[open.lowerBound...]
                break
            }
            let name = String(after[..<close.lowerBound])
            if let value = values[name] { result += value } else { result += rest[open.lowerBound..<close.upperBound] }
            rest = after[close.upperBound...]
        }
        return result + rest
    }

    /// Placeholders every message may use: `{{service}}` (the issuer's host), `{{name}}`
    /// (the person's display name); each kind adds its own.
    static let defaults: [MailKind: Template] = [
        .verificationCode: page(
            subject: "Your {{service}} verification code: {{code}}",
            lines: ["Hello {{name}},", "Your code to verify this email address is {{code}}.", "It works once, for {{minutes}} minutes. If you did not ask for it, you can ignore this message."],
            code: true
        ),
        .recoveryCode: page(
            subject: "Your {{service}} recovery code: {{code}}",
            lines: [
                "Hello {{name}},", "Someone asked to get back into your {{service}} account. Your recovery code is {{code}}.",
                "It works once, for {{minutes}} minutes, and lets you add a new passkey. If this was not you, ignore this message: nobody can use the code without this mailbox.",
            ],
            code: true
        ),
        .passkeyAdded: page(
            subject: "A passkey was added to your {{service}} account",
            lines: ["Hello {{name}},", "A passkey ({{passkey}}) was added to your {{service}} account at {{time}}.", "If this was not you, sign in and remove it, or contact support."],
            code: false
        ),
        .passkeyRemoved: page(
            subject: "A passkey was removed from your {{service}} account",
            lines: ["Hello {{name}},", "A passkey ({{passkey}}) was removed from your {{service}} account at {{time}}.", "If this was not you, sign in and check your passkeys, or contact support."],
            code: false
        ),
        .accountRecovered: page(
            subject: "Your {{service}} account was recovered",
            lines: ["Hello {{name}},", "Your {{service}} account was recovered with {{method}} at {{time}}, and can now add a new passkey.", "If this was not you, contact support at once."],
            code: false
        ),
        .emailChanged: page(
            subject: "The email address of your {{service}} account was changed",
            lines: ["Hello {{name}},", "The email address of your {{service}} account was changed to {{new_email}} at {{time}}; this address no longer signs in.", "If this was not you, contact support at once."],
            code: false
        ),
        .passwordRemoved: page(
            subject: "The password of your {{service}} account was removed",
            lines: ["Hello {{name}},", "The password of your {{service}} account was removed at {{time}}. You now sign in with your passkeys.", "If this was not you, contact support."],
            code: false
        ),
    ]

    private static func page(subject: String, lines: [String], code: Bool) -> Template {
        let paragraphs = lines.map { line -> String in
            let html = code ? line.replacingOccurrences(of: "{{code}}", with: "<strong style=\"font-size:1.4em;letter-spacing:0.1em\">{{code}}</strong>") : line
            return "<p>\(html)</p>"
        }
        return Template(
            subject: subject,
            text: lines.joined(separator: "\n\n") + "\n",
            html: "<!doctype html>\n<html><body style=\"font-family:sans-serif\">\n\(paragraphs.joined(separator: "\n"))\n</body></html>\n"
        )
    }
}
