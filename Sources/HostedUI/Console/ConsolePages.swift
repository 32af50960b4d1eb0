import Foundation
import IdentityCore

/// The console's page parts that every section uses: times, tables, the forms of actions,
/// the sign-in and error pages. Every value that is not the console's own text is escaped.
enum ConsolePages {
    static func error(title: String, message: String, code: String) -> String {
        """
        <h1>\(HTML.escape(title))</h1>
        <p class="error" role="alert">\(HTML.escape(message))</p>
        <p class="meta">Code: <code>\(HTML.escape(code))</code></p>
        <p><a href="\(OperatorConsole.path)">Back to the console</a></p>
        """
    }

    /// The sign-in page: one button that runs the passkey ceremony (console.js), and why
    /// when it is a step-up.
    static func signIn(returnTo: String, stepUp: Bool) -> String {
        let intro = stepUp
            ? "This action needs a recent passkey sign-in. Sign in again, then repeat it."
            : "Operators sign in with a passkey of their account on this server."
        return """
            <h1>Sign in to the console</h1>
            <p>\(HTML.escape(intro))</p>
            <p><button type="button" id="console-sign-in" data-return-to="\(HTML.escape(returnTo))">Sign in with a passkey</button></p>
            <p id="status" class="status" role="status" aria-live="polite"></p>
            <noscript><p class="warning">Signing in with a passkey needs JavaScript.</p></noscript>
            """
    }

    /// A time people read (UTC, to the minute) with its machine form.
    static func time(_ date: Date?) -> String {
        guard let date else { return "<span class=\"meta\">never</span>" }
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        let within = ((seconds % 86_400) + 86_400) % 86_400
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let day = StatsTally.day(of: date)
        let clock = "\(two(within / 3600)):\(two(within / 60 % 60))"
        return "<time datetime=\"\(day)T\(clock):\(two(within % 60))Z\">\(day) \(clock) UTC</time>"
    }

    /// A table with a header row, in a box that scrolls sideways on a narrow screen. Cells
    /// are HTML already.
    static func table(caption: String, headers: [String], rows: [[String]], empty: String) -> String {
        guard !rows.isEmpty else { return "<p class=\"empty\">\(HTML.escape(empty))</p>" }
        let head = headers.map { "<th scope=\"col\">\(HTML.escape($0))</th>" }.joined()
        let body = rows.map { "<tr>" + $0.map { "<td>\($0)</td>" }.joined() + "</tr>" }.joined(separator: "\n")
        return """
            <div class="table-scroll"><table class="data">
            <caption class="visually-hidden">\(HTML.escape(caption))</caption>
            <thead><tr>\(head)</tr></thead>
            <tbody>
            \(body)
            </tbody></table></div>
            """
    }

    /// A change's button: a form that posts to `path` with the page's CSRF token. A
    /// deletion asks for a tick first, so that one click cannot delete.
    static func action(_ path: String, _ label: String, csrf: String, danger: Bool = false, confirm: String? = nil, fields: [String: String] = [:]) -> String {
        let hidden = fields.sorted { $0.key < $1.key }.map { "<input type=\"hidden\" name=\"\(HTML.escape($0.key))\" value=\"\(HTML.escape($0.value))\">" }.joined()
        var tick = ""
        if let confirm {
            let id = "confirm-" + String(path.utf8.reduce(UInt32(5381)) { ($0 &* 33) ^ UInt32($1) }, radix: 36)
            tick = "<input type=\"checkbox\" name=\"confirm\" id=\"\(id)\" required> <label for=\"\(id)\">\(HTML.escape(confirm))</label> "
        }
        return """
            <form class="inline" method="post" action="\(HTML.escape(path))">\(ConsoleLayout.csrfField(csrf))\(hidden)\(tick)\
            <button type="submit"\(danger ? " class=\"danger\"" : " class=\"secondary\"")>\(HTML.escape(label))</button></form>
            """
    }

    /// A small label.
    static func badge(_ text: String, _ kind: String) -> String { "<span class=\"badge \(kind)\">\(HTML.escape(text))</span>" }

    /// A link to a user's page.
    static func userLink(_ id: UserID) -> String {
        "<a href=\"\(OperatorConsole.path)/users/\(HTML.escape(id.rawValue.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? id.rawValue))\">\(HTML.escape(id.rawValue))</a>"
    }

    /// A query string from the fields that have a value.
    static func query(_ fields: [(String, String?)]) -> String {
        let parts = fields.compactMap { name, value -> String? in
            guard let value, !value.isEmpty else { return nil }
            return name + "=" + (value.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~:"))) ?? "")
        }
        return parts.isEmpty ? "" : "?" + parts.joined(separator: "&")
    }
}
