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
        var markup = plain.mapValues(HTMLText.escape)
        // The code stands out: it is what the reader came for.
        if let code = markup["code"] { markup["code"] = "<strong style=\"font-size:1.4em;letter-spacing:0.1em\">\(code)</strong>" }
        let subject = (own[.subject].map { Self.fill($0, plain) } ?? t(key + ".subject", plain)).components(separatedBy: .newlines).joined(separator: " ")
        // The built-in body's sentences, each in the plural form its count takes.
        let sentences = ["mail.greeting", key + ".body", key + ".note"].map { t.text($0, count: plain["count"].flatMap(Int.init)) }
        let text = own[.txt].map { Self.fill($0, plain) }
            ?? branding.text(around: sentences.map { Strings.fill($0, plain) }.joined(separator: "\n\n") + "\n", t)
        let html = own[.html].map { Self.fill($0, plain.mapValues(HTMLText.escape)) } ?? branding.html(
            around: Self.page(sentences.map { Strings.fill(HTMLText.escape($0), markup) }, direction: language.direction, language: language.tag),
            service: plain["service"] ?? "", t
        )
        return Template(subject: subject, text: text, html: html)
    }

    /// An operator's template filled: `{{name}}` placeholders.
    private static func fill(_ template: String, _ values: [String: String]) -> String {
        Strings.fill(template, values, open: "{{", close: "}}")
    }

    /// The built-in HTML body: the paragraphs, in the language's direction.
    private static func page(_ paragraphs: [String], direction: String, language: String) -> String {
        let body = paragraphs.map { "<p>\($0)</p>" }.joined(separator: "\n")
        return "<!doctype html>\n<html lang=\"\(language)\" dir=\"\(direction)\"><body style=\"font-family:sans-serif\">\n\(body)\n</body></html>\n"
    }
}
