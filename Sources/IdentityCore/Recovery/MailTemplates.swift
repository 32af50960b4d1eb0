import Foundation
public import Localization

/// The words of each message Latchkey sends: a subject, a plain-text body and an HTML body
/// per ``MailKind``, in the recipient's language (the string catalog's `mail.*` keys). An
/// operator overrides any part from a directory (`email.templates`: `<kind>.subject`,
/// `<kind>.txt`, `<kind>.html`, for example `verification_code.txt`), written with
/// `{{name}}` placeholders; an overridden part is the same in every language.
public struct MailTemplates: Sendable {
    /// One message's parts.
    public struct Template: Sendable, Hashable {
        public var subject: String
        /// The plain-text body.
        public var text: String
        /// The HTML body.
        public var html: String
    }

    /// The operator's parts by kind: each present part replaces the built-in one.
    private var replaced: [MailKind: [PartName: String]] = [:]
    /// The operator's brand, around the built-in messages (an operator's own templates say
    /// what they like).
    public var branding = MailBranding()
    /// The words of the built-in messages.
    public var catalog: StringCatalog = .shared
    /// The language of a message no request chose one for (`branding.default_language`).
    public var defaultLanguage: Language = .english

    private enum PartName: String, CaseIterable {
        case subject, txt, html
    }

    /// The built-in messages.
    public init() {}

    /// The built-in messages, with any part found in `directory` in their place.
    /// - Throws: A readable message when a file exists but cannot be read as UTF-8.
    public init(directory: String) throws {
        for kind in MailKind.allCases {
            for part in PartName.allCases {
                let path = (directory as NSString).appendingPathComponent("\(kind.rawValue).\(part.rawValue)")
                guard FileManager.default.fileExists(atPath: path) else { continue }
                guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
                    throw IdentityError(.invalidRequest, "the mail template \(path) cannot be read as UTF-8 text")
                }
                replaced[kind, default: [:]][part] = part == .subject ? text.trimmingCharacters(in: .whitespacesAndNewlines) : text
            }
        }
    }

    /// A message's subject, text and HTML in `language` with `values` filled in: as they are
    /// in the subject and text, HTML-escaped in the HTML. A subject keeps no line break, so
    /// no value can add a header. `values["minutes"]`, where a message has it, also picks
    /// the plural form of the sentence it is in.
    public func render(_ kind: MailKind, values: [String: String], language: Language = .english) -> Template {
        let t = catalog.strings(language)
        let own = replaced[kind] ?? [:]
        let key = "mail." + kind.rawValue
        var plain = values
        if let minutes = values["minutes"] { plain["count"] = minutes }
        if let method = values["method"], t.knows("mail.method." + method) { plain["method"] = t("mail.method." + method) }
        let escaped = plain.mapValues(HTMLText.escape)
        let subject = (own[.subject].map { Self.fill($0, plain) } ?? t(key + ".subject", plain)).components(separatedBy: .newlines).joined(separator: " ")
        let lines = ["mail.greeting", key + ".body", key + ".note"]
        func line(_ key: String, _ values: [String: String]) -> String {
            values["count"].flatMap(Int.init).map { t(key, count: $0, values) } ?? t(key, values)
        }
        let text = own[.txt].map { Self.fill($0, plain) }
            ?? branding.text(around: lines.map { line($0, plain) }.joined(separator: "\n\n") + "\n", t)
        let html = own[.html].map { Self.fill($0, escaped) } ?? branding.html(around: Self.page(lines.map { lineKey -> String in
            // The code stands out: it is what the reader came for.
            var values = escaped
            if let code = values["code"] { values["code"] = "<strong style=\"font-size:1.4em;letter-spacing:0.1em\">\(code)</strong>" }
            return Strings.fill(HTMLText.escape(t.text(lineKey, count: values["count"].flatMap(Int.init))), values)
        }, direction: language.direction, language: language.tag), service: plain["service"] ?? "", t)
        return Template(subject: subject, text: text, html: html)
    }

    /// One pass over an operator's template: each `{{name}}` with a value is replaced,
    /// anything else is kept as written.
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

    /// The built-in HTML body: the paragraphs, in the language's direction.
    private static func page(_ paragraphs: [String], direction: String, language: String) -> String {
        let body = paragraphs.map { "<p>\($0)</p>" }.joined(separator: "\n")
        return "<!doctype html>\n<html lang=\"\(language)\" dir=\"\(direction)\"><body style=\"font-family:sans-serif\">\n\(body)\n</body></html>\n"
    }
}
