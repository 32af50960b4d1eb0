import Foundation
import IdentityCore
public import Localization

/// The account page's account center: where the account is signed in, and what happened to
/// it lately.
extension Pages {
    /// "Where you're signed in": each live session with its device, app and start, this
    /// device marked; a button ends any other, and one ends every other.
    static func signedInPlaces(_ t: Strings, _ places: [AccountCenter.SignedInPlace], clientName: (String) -> String?) -> String {
        let items = places.map { place -> String in
            let session = place.session
            let device = DeviceDescription.describe(place.userAgent, t)
            let app = session.kind == .browser ? t("account.places.this_site") : session.clientID.map { clientName($0) ?? $0 } ?? t("account.places.an_app")
            var details = [HTML.escape(app), t.html("account.places.signed_in", ["time": HTML.time(session.startedAt, t)])]
            if let address = place.address { details.append(t.html("account.places.from", ["address": "<span dir=\"ltr\">\(HTML.escape(address))</span>"])) }
            let action = place.isCurrent
                ? "<span class=\"badge\">\(t.html("account.places.this_device"))</span>"
                : "<button type=\"button\" class=\"secondary\" data-action=\"end-session\" aria-label=\"\(t.escaped("account.places.sign_out_label", ["device": device, "app": app]))\">"
                    + "\(t.html("common.sign_out"))</button>"
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
            <h2 id="places-heading">\(t.html("account.places.heading"))</h2>
            <ul class="passkeys">
            \(items.joined(separator: "\n"))
            </ul>
            \(others ? "<p><button type=\"button\" class=\"secondary\" id=\"end-other-sessions\">\(t.html("account.places.end_others"))</button></p>" : "")
            </section>
            """
    }

    /// "Recent activity": the account's own security events, newest first.
    static func recentActivity(_ t: Strings, _ events: [AuditEvent]) -> String {
        let items = events.map { event -> String in
            var details = [HTML.time(event.time, t)]
            if let agent = event.origin?.userAgent { details.append(HTML.escape(DeviceDescription.describe(agent, t))) }
            if let address = event.origin?.ip { details.append("<span dir=\"ltr\">\(HTML.escape(address))</span>") }
            let warning = Self.warningKinds.contains(event.kind) ? " class=\"is-warning\"" : ""
            return "<li\(warning)><span>\(t.html(activityKey(event)))</span> <span class=\"meta\">\(details.joined(separator: " · "))</span></li>"
        }
        return """
            <section id="activity" aria-labelledby="activity-heading">
            <h2 id="activity-heading">\(t.html("account.activity.heading"))</h2>
            \(events.isEmpty ? "<p class=\"hint\">\(t.html("account.activity.none"))</p>" : "<ul class=\"activity\">\n\(items.joined(separator: "\n"))\n</ul>")
            </section>
            """
    }

    /// Events a person should look at twice: the list marks them with words, not colour alone.
    private static let warningKinds: Set<AuditEvent.Kind> = [.loginFailed, .recoveryFailed, .signCountRegressed]

    /// The key of an event's words for its account's owner.
    static func activityKey(_ event: AuditEvent) -> String {
        switch event.kind {
        case .signup: "activity.signup"
        case .login: event.credentialID == nil ? "activity.login_password" : "activity.login_passkey"
        case .loginFailed: "activity.login_failed"
        case .enrollment: "activity.enrollment"
        case .credentialDeleted: "activity.credential_deleted"
        case .credentialRenamed: "activity.credential_renamed"
        case .credentialDisabled: "activity.credential_disabled"
        case .credentialEnabled: "activity.credential_enabled"
        case .passwordRemoved: "activity.password_removed"
        case .signedOutEverywhere: "activity.signed_out_everywhere"
        case .sessionRevoked: "activity.session_revoked"
        case .accountRecovered: "activity.account_recovered"
        case .recoveryFailed: "activity.recovery_failed"
        case .emailVerified: "activity.email_verified"
        case .recoveryCodesCreated: "activity.recovery_codes_created"
        case .signCountRegressed: "activity.sign_count_regressed"
        case .userDisabled: "activity.user_disabled"
        case .userEnabled: "activity.user_enabled"
        case .consentRevoked: "activity.consent_revoked"
        default: "activity.other"
        }
    }
}

/// A browser and system in words, from a `User-Agent`: enough for a person to recognise
/// their own devices, not a full parser.
public enum DeviceDescription {
    /// "Firefox on Linux", "Safari on iPhone" in the words of `t`, the agent's first 60
    /// characters when neither is known, "An unknown device" without one.
    /// - Parameters:
    ///   - userAgent: The `User-Agent` header.
    ///   - t: The words of the page's language.
    public static func describe(_ userAgent: String?, _ t: Strings) -> String {
        guard let agent = userAgent, !agent.isEmpty else { return t("device.unknown") }
        let browser = firstMatch(agent, [
            ("Edg/", "Edge"), ("OPR/", "Opera"), ("Firefox/", "Firefox"), ("Chrome/", "Chrome"), ("Chromium/", "Chromium"), ("Safari/", "Safari"),
            ("curl/", "curl"), ("okhttp", t("device.android_app")), ("CFNetwork", t("device.apple_app")), ("python-requests", t("device.python")),
        ])
        let system = firstMatch(agent, [
            ("iPhone", "iPhone"), ("iPad", "iPad"), ("Android", "Android"), ("CrOS", "ChromeOS"), ("Mac OS X", "macOS"), ("Macintosh", "macOS"),
            ("Windows", "Windows"), ("Linux", "Linux"),
        ])
        switch (browser, system) {
        case (let browser?, let system?): return t("device.browser_on_system", ["browser": browser, "system": system])
        case (let browser?, nil): return browser
        case (nil, let system?): return system
        case (nil, nil): return String(agent.prefix(60))
        }
    }

    private static func firstMatch(_ agent: String, _ table: [(String, String)]) -> String? {
        table.first { agent.contains($0.0) }?.1
    }
}
