import Foundation
import IdentityCore
import Localization

/// Escaping for text and attribute values. Every value that did not come from this file
/// goes through it.
enum HTML {
    static func escape(_ text: String) -> String { HTMLText.escape(text) }

    /// JSON for a `<script type="application/json">` block: `<` is escaped so that no value
    /// can close the element.
    static func jsonScript(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let text = String(decoding: (try? encoder.encode(value)) ?? Data("{}".utf8), as: UTF8.self)
        return text.replacingOccurrences(of: "<", with: "\\u003c")
    }

    /// A date people read, in the page's language, and its machine form.
    static func time(_ date: Date, _ t: Strings) -> String {
        "<time datetime=\"\(machineTime(date))\">\(escape(t.dateTime(date)))</time>"
    }

    /// RFC 3339 in UTC, for `<time datetime>`. Built from calendar components: an ISO
    /// format style per call cost more than the rest of the page.
    private static func machineTime(_ date: Date) -> String {
        let parts = utcCalendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String { let value = value ?? 0; return value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.year ?? 1970)-\(two(parts.month))-\(two(parts.day))T\(two(parts.hour)):\(two(parts.minute)):\(two(parts.second))Z"
    }

    private static let utcCalendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        return calendar
    }()
}

/// The frame every page shares.
struct PageLayout {
    let title: String
    var branding = Branding()
    let siteName, page, csrfToken: String
    /// The page's words.
    var t: Strings
    /// The language picker's choices and where it sends the browser.
    var picker = LanguagePicker()
    var dataAttributes: [String: String] = [:]
    var signedIn = false

    func render(_ content: String) -> String {
        let attributes = dataAttributes.sorted { $0.key < $1.key }.map { " data-\($0.key)=\"\(HTML.escape($0.value))\"" }.joined()
        let navigation = signedIn
            ? "<a href=\"/account\">\(t.html("layout.nav.account"))</a>"
            : "<a href=\"/login\">\(t.html("layout.nav.sign_in"))</a> <a href=\"/signup\">\(t.html("layout.nav.create_account"))</a>"
        var head = ""
        if let favicon = branding.favicon {
            head += "<link rel=\"icon\" href=\"\(HTML.escape(Branding.source(of: favicon, servedAt: Branding.faviconPath)))\">\n"
        }
        if branding.hasStylesheet { head += "<link rel=\"stylesheet\" href=\"\(Branding.stylesheetPath)\">\n" }
        // The logo stands beside the name, which says it: the image itself needs no words.
        let logo = branding.logo.map { "<img src=\"\(HTML.escape(Branding.source(of: $0, servedAt: Branding.logoPath)))\" alt=\"\">" } ?? ""
        return """
            <!doctype html>
            <html lang="\(HTML.escape(t.language.tag))" dir="\(t.language.direction)" data-theme="\(branding.theme.rawValue)">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="latchkey-csrf" content="\(HTML.escape(csrfToken))">
            <title>\(HTML.escape(title)) · \(HTML.escape(siteName))</title>
            <link rel="stylesheet" href="/ui/assets/ui.css">
            \(head)<script src="\(HTML.escape(HostedPages.messagesPath(t.language)))" defer></script>
            <script src="/latchkey.js" defer></script>
            <script src="/ui/assets/ui.js" defer></script>
            </head>
            <body data-page="\(HTML.escape(page))"\(attributes)>
            <header class="bar"><a class="brand" href="/">\(logo)<span>\(HTML.escape(siteName))</span></a><nav>\(navigation)</nav></header>
            <main class="card">
            \(content)
            </main>
            \(footer)</body>
            </html>
            """
    }
}

extension PageLayout {
    /// The language picker, and the support and legal links the operator gave, under the card.
    var footer: String {
        var links: [String] = []
        if let url = branding.supportURL {
            links.append("<a href=\"\(HTML.escape(url))\">\(t.html("layout.footer.help"))</a>")
        } else if let email = branding.supportEmail {
            links.append("<a href=\"mailto:\(HTML.escape(email))\">\(t.html("layout.footer.help_email", ["email": HTML.escape(email)]))</a>")
        }
        if let url = branding.termsURL { links.append("<a href=\"\(HTML.escape(url))\">\(t.html("layout.footer.terms"))</a>") }
        if let url = branding.privacyURL { links.append("<a href=\"\(HTML.escape(url))\">\(t.html("layout.footer.privacy"))</a>") }
        let nav = links.isEmpty ? "" : "<nav class=\"links\">\(links.joined(separator: " "))</nav>"
        return "<footer class=\"site-footer\">\(picker.render(t))\(nav)</footer>\n"
    }
}

/// The language picker on every page: a form that asks for the same page with `?lang=`,
/// which sets the language cookie. Without a script it has a button; with one, choosing is
/// enough.
struct LanguagePicker {
    /// Each language with its own name, in the order listed.
    var languages: [(language: Language, name: String)] = []
    /// The page's path and its other query parameters, kept across the switch.
    var path = "/"
    var query: [(name: String, value: String)] = []

    func render(_ t: Strings) -> String {
        guard languages.count > 1 else { return "" }
        let options = languages.map { item in
            let selected = item.language == t.language ? " selected" : ""
            return "<option value=\"\(HTML.escape(item.language.tag))\" lang=\"\(HTML.escape(item.language.tag))\"\(selected)>\(HTML.escape(item.name))</option>"
        }.joined()
        let hidden = query.map { "<input type=\"hidden\" name=\"\(HTML.escape($0.name))\" value=\"\(HTML.escape($0.value))\">" }.joined()
        return """
            <form class="language-picker" method="get" action="\(HTML.escape(path))">\(hidden)<label for="language-picker">\(t.html("layout.language.label"))</label> \
            <select id="language-picker" name="lang">\(options)</select> <button type="submit" class="secondary">\(t.html("layout.language.submit"))</button></form>
            """
    }
}

extension Strings {
    /// The messages `latchkey.js` and `ui.js` show: plain strings, and plural entries as
    /// their forms by CLDR category (the browser's `Intl.PluralRules` picks one).
    var scriptMessages: [String: ScriptMessage] {
        var messages: [String: ScriptMessage] = [:]
        for key in keys where key.hasPrefix("js.") || key.hasPrefix("field.") || Self.pageScriptKeys.contains(key) {
            if let forms = pluralForms(key) {
                messages[key] = .plural(Dictionary(uniqueKeysWithValues: forms.map { ($0.key.rawValue, $0.value) }))
            } else {
                messages[key] = .text(text(key))
            }
        }
        return messages
    }

    /// Words of the pages that `ui.js` also writes (a button it relabels, a link it adds).
    static let pageScriptKeys: Set<String> = ["common.sign_in_instead", "login.submit", "login.submit_immediate", "account.recovery.remaining"]
}

/// One message for the scripts.
enum ScriptMessage: Encodable {
    case text(String)
    case plural([String: String])

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .text(let text): try container.encode(text)
        case .plural(let forms): try container.encode(forms)
        }
    }
}
