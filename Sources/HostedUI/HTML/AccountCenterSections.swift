import Foundation
import IdentityCore

/// The account page's account center: where the account is signed in, and what happened to
/// it lately.
extension Pages {
    /// "Where you're signed in": each live session with its device, app and start, this
    /// device marked; a button ends any other, and one ends every other.
    static func signedInPlaces(_ places: [AccountCenter.SignedInPlace], clientName: (String) -> String?) -> String {
        let items = places.map { place -> String in
            let session = place.session
            let device = DeviceDescription.describe(place.userAgent)
            let app = session.kind == .browser ? "This site" : session.clientID.map { clientName($0) ?? $0 } ?? "An app"
            var details = [HTML.escape(app), "Signed in " + HTML.time(session.startedAt)]
            if let address = place.address { details.append("from " + HTML.escape(address)) }
            let action = place.isCurrent
                ? "<span class=\"badge\">This device</span>"
                : "<button type=\"button\" class=\"secondary\" data-action=\"end-session\" aria-label=\"Sign out \(HTML.escape(device)), \(HTML.escape(app))\">Sign out</button>"
            return """
                <li class="place" data-session-id="\(HTML.escape(session.id))">
                <p class="passkey-name">\(HTML.escape(device)) \(place.isCurrent ? action : "")</p>
                <p class="meta">\(details.joined(separator: " · "))</p>
                \(place.isCurrent ? "" : "<div class=\"actions\">\(action)</div>")
                </li>
                """
        }
        let others = places.contains { !$0.isCurrent }
        return """
            <section id="places" aria-labelledby="places-heading">
            <h2 id="places-heading">Where you're signed in</h2>
            <ul class="passkeys">
            \(items.joined(separator: "\n"))
            </ul>
            \(others ? "<p><button type=\"button\" class=\"secondary\" id=\"end-other-sessions\">Sign out everywhere else</button></p>" : "")
            </section>
            """
    }

    /// "Recent activity": the account's own security events, newest first.
    static func recentActivity(_ events: [AuditEvent]) -> String {
        let items = events.map { event -> String in
            var details = [HTML.time(event.time)]
            if let agent = event.origin?.userAgent { details.append(HTML.escape(DeviceDescription.describe(agent))) }
            if let address = event.origin?.ip { details.append(HTML.escape(address)) }
            let warning = Self.warningKinds.contains(event.kind) ? " class=\"is-warning\"" : ""
            return "<li\(warning)><span>\(HTML.escape(activityText(event)))</span> <span class=\"meta\">\(details.joined(separator: " · "))</span></li>"
        }
        return """
            <section id="activity" aria-labelledby="activity-heading">
            <h2 id="activity-heading">Recent activity</h2>
            \(events.isEmpty ? "<p class=\"hint\">Nothing yet.</p>" : "<ul class=\"activity\">\n\(items.joined(separator: "\n"))\n</ul>")
            </section>
            """
    }

    /// Events a person should look at twice: the list marks them with words, not colour alone.
    private static let warningKinds: Set<AuditEvent.Kind> = [.loginFailed, .recoveryFailed, .signCountRegressed]

    /// An event in words for its account's owner.
    static func activityText(_ event: AuditEvent) -> String {
        switch event.kind {
        case .signup: return "Account created"
        case .login: return event.credentialID == nil ? "Signed in with a password" : "Signed in with a passkey"
        case .loginFailed: return "Warning: a sign-in failed"
        case .enrollment: return "Passkey added"
        case .credentialDeleted: return "Passkey removed"
        case .credentialRenamed: return "Passkey renamed"
        case .credentialDisabled: return "Passkey turned off by an administrator"
        case .credentialEnabled: return "Passkey turned on again"
        case .passwordRemoved: return "Password removed"
        case .signedOutEverywhere: return "Signed out everywhere"
        case .sessionRevoked: return "Signed out a device"
        case .accountRecovered: return "Account recovered"
        case .recoveryFailed: return "Warning: a recovery attempt failed"
        case .emailVerified: return "Email address verified"
        case .recoveryCodesCreated: return "New recovery codes made"
        case .signCountRegressed: return "Warning: a passkey may have been copied"
        case .userDisabled: return "Account disabled by an administrator"
        case .userEnabled: return "Account enabled again"
        case .consentRevoked: return "An app's access withdrawn"
        default: return event.kind.rawValue.replacingOccurrences(of: "_", with: " ").capitalized
        }
    }
}

/// A browser and system in words, from a `User-Agent`: enough for a person to recognise
/// their own devices, not a full parser.
public enum DeviceDescription {
    /// "Firefox on Linux", "Safari on iPhone", the agent's first 60 characters when neither
    /// is known, "An unknown device" without one.
    public static func describe(_ userAgent: String?) -> String {
        guard let agent = userAgent, !agent.isEmpty else { return "An unknown device" }
        let browser = firstMatch(agent, [
            ("Edg/", "Edge"), ("OPR/", "Opera"), ("Firefox/", "Firefox"), ("Chrome/", "Chrome"), ("Chromium/", "Chromium"), ("Safari/", "Safari"),
            ("curl/", "curl"), ("okhttp", "an Android app"), ("CFNetwork", "an Apple app"), ("python-requests", "a Python program"),
        ])
        let system = firstMatch(agent, [
            ("iPhone", "iPhone"), ("iPad", "iPad"), ("Android", "Android"), ("CrOS", "ChromeOS"), ("Mac OS X", "macOS"), ("Macintosh", "macOS"),
            ("Windows", "Windows"), ("Linux", "Linux"),
        ])
        switch (browser, system) {
        case (let browser?, let system?): return "\(browser) on \(system)"
        case (let browser?, nil): return browser
        case (nil, let system?): return system
        case (nil, nil): return String(agent.prefix(60))
        }
    }

    private static func firstMatch(_ agent: String, _ table: [(String, String)]) -> String? {
        table.first { agent.contains($0.0) }?.1
    }
}
