import Foundation
import IdentityCore

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

    /// A date people read, and its machine form. Built from calendar components rather than
    /// a DateFormatter: creating formatters per call cost more than the rest of the page.
    static func time(_ date: Date) -> String {
        let parts = utcCalendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let (year, month, day) = (parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1)
        let (hour, minute, second) = (parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let machine = "\(year)-\(two(month))-\(two(day))T\(two(hour)):\(two(minute)):\(two(second))Z"
        return "<time datetime=\"\(machine)\">\(day) \(monthNames[month - 1]) \(year), \(two(hour)):\(two(minute)) UTC</time>"
    }

    private static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

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
    var dataAttributes: [String: String] = [:]
    var signedIn = false

    func render(_ content: String) -> String {
        let attributes = dataAttributes.sorted { $0.key < $1.key }.map { " data-\($0.key)=\"\(HTML.escape($0.value))\"" }.joined()
        let navigation = signedIn
            ? "<a href=\"/account\">Account</a>"
            : "<a href=\"/login\">Sign in</a> <a href=\"/signup\">Create account</a>"
        var head = ""
        if let favicon = branding.favicon {
            head += "<link rel=\"icon\" href=\"\(HTML.escape(Branding.source(of: favicon, servedAt: Branding.faviconPath)))\">\n"
        }
        if branding.hasStylesheet { head += "<link rel=\"stylesheet\" href=\"\(Branding.stylesheetPath)\">\n" }
        // The logo stands beside the name, which says it: the image itself needs no words.
        let logo = branding.logo.map { "<img src=\"\(HTML.escape(Branding.source(of: $0, servedAt: Branding.logoPath)))\" alt=\"\">" } ?? ""
        return """
            <!doctype html>
            <html lang="en" data-theme="\(branding.theme.rawValue)">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="latchkey-csrf" content="\(HTML.escape(csrfToken))">
            <title>\(HTML.escape(title)) · \(HTML.escape(siteName))</title>
            <link rel="stylesheet" href="/ui/assets/ui.css">
            \(head)<script src="/latchkey.js" defer></script>
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
    /// The support and legal links the operator gave, under the card; nothing without them.
    var footer: String {
        var links: [String] = []
        if let url = branding.supportURL {
            links.append("<a href=\"\(HTML.escape(url))\">Help</a>")
        } else if let email = branding.supportEmail {
            links.append("<a href=\"mailto:\(HTML.escape(email))\">Help: \(HTML.escape(email))</a>")
        }
        if let url = branding.termsURL { links.append("<a href=\"\(HTML.escape(url))\">Terms</a>") }
        if let url = branding.privacyURL { links.append("<a href=\"\(HTML.escape(url))\">Privacy</a>") }
        guard !links.isEmpty else { return "" }
        return "<footer class=\"site-footer\">\(links.joined(separator: " "))</footer>\n"
    }
}
