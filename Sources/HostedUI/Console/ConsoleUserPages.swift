import Foundation
import IdentityCore
import WebAuthn

/// The users section: the directory with search and keyset pages, and one user's page with
/// what an operator can see and do about the account.
enum ConsoleUserPages {
    static func list(_ users: [User], query: String, next: String?) -> String {
        let rows = users.map { user in
            [
                ConsolePages.userLink(user.id), HTML.escape(user.profile.identifiers.map(\.value).joined(separator: ", ")), HTML.escape(user.profile.name ?? ""),
                ConsolePages.time(user.createdAt), user.isDisabled ? ConsolePages.badge("disabled", "off") : ConsolePages.badge("active", "ok"),
            ]
        }
        let more = next.map { "<p><a href=\"\(OperatorConsole.path)/users\(ConsolePages.query([("q", query), ("page", $0)]))\">Next page</a></p>" } ?? ""
        return """
            <h1>Users</h1>
            <form class="filters" method="get" action="\(OperatorConsole.path)/users" role="search">
            <label>Email, phone number or username (or its start) <input type="search" name="q" value="\(HTML.escape(query))" autocomplete="off"></label>
            <button type="submit">Search</button>
            </form>
            \(ConsolePages.table(caption: "Users", headers: ["ID", "Identifiers", "Name", "Created", "State"], rows: rows, empty: "No user matches."))
            \(more)
            """
    }

    /// What one user's page shows.
    struct Account {
        let user: User
        let role: OperatorRole?
        let passkeys: [PasskeyCredential]
        let hasPassword: Bool
        let sessions: [SessionSummary]
        let events: [LoggedEvent]
        /// An enrollment link just made: shown once.
        var enrollmentLink: (url: String, expiresAt: Date)?
    }

    static func user(_ account: Account, names: AuthenticatorNames, canChange: Bool, csrf: String, now: Date) -> String {
        let user = account.user
        let base = "\(OperatorConsole.path)/users/\(user.id.rawValue.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? user.id.rawValue)"
        let profile: [(String, String)] = [
            ("ID", "<code>\(HTML.escape(user.id.rawValue))</code>"),
            ("Email", user.profile.email.map { HTML.escape($0) + " " + (user.isEmailVerified ? ConsolePages.badge("verified", "ok") : ConsolePages.badge("not verified", "off")) } ?? "–"),
            ("Phone number", user.profile.phoneNumber.map(HTML.escape) ?? "–"),
            ("Username", user.profile.username.map(HTML.escape) ?? "–"),
            ("Name", user.profile.name.map(HTML.escape) ?? "–"),
            ("Created", ConsolePages.time(user.createdAt)),
            ("Updated", ConsolePages.time(user.updatedAt)),
            ("State", user.isDisabled ? ConsolePages.badge("disabled", "off") : ConsolePages.badge("active", "ok")),
            ("Password", account.hasPassword ? "set" : "none"),
            ("Operator", account.role.map { ConsolePages.badge($0.rawValue, $0.rawValue) } ?? "no"),
        ]
        let details = profile.map { "<tr><th scope=\"row\">\($0.0)</th><td>\($0.1)</td></tr>" }.joined()
        var actions = ""
        if canChange {
            actions = "<p class=\"actions\">"
                + (user.isDisabled
                    ? ConsolePages.action("\(base)/enable", "Enable the account", csrf: csrf)
                    : ConsolePages.action("\(base)/disable", "Disable the account", csrf: csrf, danger: true))
                + " " + ConsolePages.action("\(base)/enrollment-link", "Make an enrollment link", csrf: csrf)
                + " " + ConsolePages.action("\(base)/delete", "Delete the account", csrf: csrf, danger: true, confirm: "Delete everything this account has")
                + "</p>"
        }
        var link = ""
        if let made = account.enrollmentLink {
            link = """
                <div class="notice" role="status"><p>The enrollment link, shown once (it expires \(ConsolePages.time(made.expiresAt))):</p>
                <p class="key-once" id="enrollment-link">\(HTML.escape(made.url))</p>
                <button type="button" class="copy" data-copy="enrollment-link" hidden>Copy</button></div>
                """
        }
        return """
            <p><a href="\(OperatorConsole.path)/users">Users</a></p>
            <h1>\(HTML.escape(user.profile.name ?? user.profile.email ?? user.id.rawValue))</h1>
            \(link)
            <div class="table-scroll"><table class="data"><caption class="visually-hidden">Profile</caption><tbody>\(details)</tbody></table></div>
            \(actions)
            <h2>Passkeys</h2>
            \(passkeys(account.passkeys, names: names, base: base, canChange: canChange, csrf: csrf))
            <h2>Sessions</h2>
            \(sessions(account.sessions, base: base, canChange: canChange, csrf: csrf, now: now))
            <h2>Recent events</h2>
            \(ConsoleEventsPage.table(account.events, empty: "No events."))
            <p><a href="\(OperatorConsole.path)/events\(ConsolePages.query([("user", user.id.rawValue)]))">Every event of this user</a></p>
            """
    }

    private static func passkeys(_ passkeys: [PasskeyCredential], names: AuthenticatorNames, base: String, canChange: Bool, csrf: String) -> String {
        let rows = passkeys.map { credential -> [String] in
            let provider = credential.aaguid.isZero ? nil : names.entry(for: credential.aaguid)
            // Icons are data URIs from the names file, which the CSP's img-src allows.
            let icon = provider?.iconLight.flatMap { $0.hasPrefix("data:image/") ? "<img class=\"provider-icon\" src=\"\(HTML.escape($0))\" alt=\"\" width=\"20\" height=\"20\"> " : nil } ?? ""
            let id = Base64URL.encode(credential.credentialID)
            var cells = [
                icon + HTML.escape(provider?.name ?? StatsInterval.unknownProvider), HTML.escape(credential.name ?? "–"),
                credential.isBackupEligible ? ConsolePages.badge("synced", "ok") : ConsolePages.badge("device-bound", "viewer"),
                ConsolePages.time(credential.createdAt), ConsolePages.time(credential.lastUsedAt),
                credential.isDisabled ? ConsolePages.badge("disabled", "off") : ConsolePages.badge("active", "ok"),
            ]
            if canChange {
                let path = "\(base)/passkeys/\(id)"
                cells.append(
                    (credential.isDisabled ? ConsolePages.action("\(path)/enable", "Enable", csrf: csrf) : ConsolePages.action("\(path)/disable", "Disable", csrf: csrf, danger: true))
                        + " " + ConsolePages.action("\(path)/delete", "Delete", csrf: csrf, danger: true, confirm: "Delete this passkey")
                )
            }
            return cells
        }
        let headers = ["Provider", "Name", "Kind", "Created", "Last used", "State"] + (canChange ? ["Actions"] : [])
        return ConsolePages.table(caption: "Passkeys", headers: headers, rows: rows, empty: "No passkeys.")
    }

    private static func sessions(_ sessions: [SessionSummary], base: String, canChange: Bool, csrf: String, now: Date) -> String {
        let rows = sessions.map { session -> [String] in
            let active = session.isActive(at: now)
            var cells = [
                "<code>\(HTML.escape(String(session.id.prefix(24))))</code>", HTML.escape(session.kind.rawValue), HTML.escape(session.clientID ?? "–"),
                HTML.escape(session.method.rawValue), ConsolePages.time(session.startedAt), ConsolePages.time(session.expiresAt),
                active ? ConsolePages.badge("active", "ok") : ConsolePages.badge(session.revokedAt != nil ? "revoked" : "expired", "off"),
            ]
            if canChange {
                cells.append(active ? ConsolePages.action("\(base)/sessions/revoke", "Revoke", csrf: csrf, danger: true, fields: ["id": session.id]) : "")
            }
            return cells
        }
        let headers = ["ID", "Kind", "Client", "Method", "Started", "Ends", "State"] + (canChange ? ["Actions"] : [])
        let all = canChange && sessions.contains { $0.isActive(at: now) }
            ? "<p>" + ConsolePages.action("\(base)/sessions/revoke-all", "Revoke every session", csrf: csrf, danger: true) + "</p>" : ""
        return ConsolePages.table(caption: "Sessions", headers: headers, rows: rows, empty: "No sessions.") + all
    }
}
