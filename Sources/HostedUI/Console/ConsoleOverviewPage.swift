import Foundation
import IdentityCore

/// The overview: how people sign in over the last days, in figures and in charts, each
/// chart with its table.
enum ConsoleOverviewPage {
    static func render(_ intervals: [StatsInterval], active: ActiveAccounts, names: AuthenticatorNames, days: Int) -> String {
        func sum(_ value: (StatsInterval) -> Int64) -> Int64 { intervals.reduce(0) { $0 + value($1) } }
        let passkey = sum(\.passkeySignIns), password = sum(\.passwordSignIns), recovery = sum(\.recoverySignIns)
        let signUps = sum(\.signUps), started = sum(\.signUpsStarted)
        let failures = intervals.reduce(into: [String: Int64]()) { totals, interval in totals.merge(interval.failures, uniquingKeysWith: +) }
        let providers = intervals.reduce(into: [String: Int64]()) { totals, interval in totals.merge(interval.providerNames(names), uniquingKeysWith: +) }
        let labels = intervals.map { String(StatsTally.day(of: $0.start).dropFirst(5)) }
        let cards = [
            card("Sign-ins", "\(passkey + password + recovery)"),
            card("Passkey share of sign-ins", percent(passkey, of: passkey + password + recovery)),
            card("Active accounts", "\(active.all)"),
            card("Passkey share of active accounts", percent(Int64(active.passkey), of: Int64(active.all))),
            card("Sign-ups finished / started", "\(signUps) / \(started)"),
            card("Sign-up completion", started > 0 ? percent(signUps, of: started) : "–"),
            card("Refused sign-ins", "\(failures.values.reduce(0, +))"),
            card("Recoveries", "\(recovery)"),
        ].joined()
        return """
            <h1>Overview</h1>
            <p class="meta">The last \(days) days, by UTC day. Active accounts signed in during those days. Figures include every event up to now.</p>
            <div class="cards">\(cards)</div>
            \(ConsoleCharts.stackedBars(id: "sign-ins", title: "Sign-ins per day by method", labels: labels, series: [
                .init(name: "Passkey", cssClass: "s-passkey", values: intervals.map(\.passkeySignIns)),
                .init(name: "Password", cssClass: "s-password", values: intervals.map(\.passwordSignIns)),
                .init(name: "Recovery", cssClass: "s-recovery", values: intervals.map(\.recoverySignIns)),
            ]))
            <div class="grid-2">
            \(ConsoleCharts.rankedBars(id: "failures", title: "Why sign-ins were refused", rows: ranked(failures), labelHeader: "Code", valueHeader: "Refusals"))
            \(ConsoleCharts.rankedBars(id: "providers", title: "Passkey providers", rows: ranked(providers), labelHeader: "Provider", valueHeader: "Sign-ins"))
            \(ConsoleCharts.share(id: "synced", title: "Synced and device-bound passkeys", parts: [
                (label: "Synced", value: sum(\.synced), cssClass: "s-synced"), (label: "Device-bound", value: sum(\.deviceBound), cssClass: "s-device"),
            ]))
            \(ConsoleCharts.share(id: "hybrid", title: "Passkey sign-ins from another device", parts: [
                (label: "Another device (hybrid)", value: sum(\.hybrid), cssClass: "s-hybrid"),
                (label: "This device", value: passkey - sum(\.hybrid), cssClass: "s-other"),
            ]))
            </div>
            \(ConsoleCharts.stackedBars(id: "sign-ups", title: "Sign-ups per day", labels: labels, series: [
                .init(name: "Finished", cssClass: "s-passkey", values: intervals.map(\.signUps)),
                .init(name: "Started, not finished", cssClass: "s-other", values: intervals.map { max(0, $0.signUpsStarted - $0.signUps) }),
            ]))
            \(ConsoleCharts.stackedBars(id: "recoveries", title: "Recoveries per day", labels: labels, series: [
                .init(name: "Recoveries", cssClass: "s-recovery", values: intervals.map(\.recoverySignIns)),
            ]))
            """
    }

    private static func card(_ label: String, _ figure: String) -> String {
        "<div class=\"card\"><div class=\"figure\">\(HTML.escape(figure))</div><div class=\"label\">\(HTML.escape(label))</div></div>"
    }

    private static func ranked(_ totals: [String: Int64]) -> [(label: String, value: Int64)] {
        totals.filter { $0.value > 0 }.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map { (label: $0.key, value: $0.value) }
    }

    /// A share with one decimal, `–` when there is nothing to share.
    static func percent(_ part: Int64, of whole: Int64) -> String {
        guard whole > 0 else { return "–" }
        let tenths = (part * 1000 + whole / 2) / whole
        return "\(tenths / 10).\(tenths % 10) %"
    }
}
