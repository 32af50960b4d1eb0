import Foundation
import IdentityCore

/// The frame of every console page: the title bar with the sections, the operator and
/// sign-out, and the console's one stylesheet and script (served by the console itself, so
/// that it works on an admin listener of its own).
struct ConsoleLayout {
    /// The console's sections, in the order the bar lists them.
    enum Section: String, CaseIterable {
        case overview, users, events, webhooks, keys

        var path: String { self == .overview ? OperatorConsole.path : "\(OperatorConsole.path)/\(rawValue)" }
        var title: String {
            switch self {
            case .overview: "Overview"
            case .users: "Users"
            case .events: "Events"
            case .webhooks: "Webhooks"
            case .keys: "Metadata and keys"
            }
        }
    }

    let siteName: String
    let title: String
    let section: Section?
    let identity: ConsoleOperator?
    let csrfToken: String
    /// Seconds after which the page reloads itself (the overview), when set.
    var refreshSeconds: Int?

    func render(_ content: String) -> String {
        var bar = ""
        if let identity, identity.role != nil {
            let links = Section.allCases.map { section in
                "<a href=\"\(section.path)\"\(section == self.section ? " aria-current=\"page\"" : "")>\(HTML.escape(section.title))</a>"
            }.joined()
            let role = identity.role.map { "<span class=\"badge \($0.rawValue)\">\($0.rawValue)</span>" } ?? ""
            bar = """
                <nav class="console-nav" aria-label="Console">\(links)</nav>
                <div class="operator">\(role) <form class="inline" method="post" action="\(OperatorConsole.path)/logout">\(Self.csrfField(csrfToken))\
                <button type="submit" class="secondary">Sign out</button></form></div>
                """
        }
        return """
            <!doctype html>
            <html lang="en" dir="ltr">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="latchkey-csrf" content="\(HTML.escape(csrfToken))">
            <title>\(HTML.escape(title)) · \(HTML.escape(siteName)) console</title>
            <link rel="stylesheet" href="\(OperatorConsole.path)/assets/console.css">
            <script src="\(OperatorConsole.path)/assets/latchkey.js" defer></script>
            <script src="\(OperatorConsole.path)/assets/console.js" defer></script>
            </head>
            <body class="console"\(refreshSeconds.map { " data-refresh=\"\($0)\"" } ?? "")>
            <a class="skip-link" href="#main">Skip to the content</a>
            <header class="console-bar"><a class="brand" href="\(OperatorConsole.path)">\(HTML.escape(siteName)) console</a>\(bar)</header>
            <main class="console-main" id="main" tabindex="-1">
            \(content)
            </main>
            <footer class="console-footer"><p class="meta">Latchkey operator console. Every change here is in the audit trail under your account.</p></footer>
            </body>
            </html>
            """
    }

    /// The hidden field every console form carries.
    static func csrfField(_ token: String) -> String {
        "<input type=\"hidden\" name=\"csrf\" value=\"\(HTML.escape(token))\">"
    }
}
