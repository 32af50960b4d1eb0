import Foundation
import IdentityCore

/// The webhooks section: each endpoint and whether it is on, its deliveries with their
/// attempts, and the changes an admin makes (resend a delivery, turn an endpoint on again).
enum ConsoleWebhooksPage {
    static func render(
        endpoints: [WebhookEndpoint], off: [String: String], deliveries: [WebhookDelivery], status: String, next: String?, canChange: Bool, csrf: String
    ) -> String {
        let endpointRows = endpoints.map { endpoint -> [String] in
            let reason = off[endpoint.id]
            // The endpoint's last answer: its newest delivery that was tried, among those listed.
            let last = deliveries.first { $0.endpointID == endpoint.id && answer($0) != "–" }
            var cells = [
                "<code>\(HTML.escape(endpoint.id))</code>", HTML.escape(endpoint.url.absoluteString), HTML.escape(endpoint.types.map(\.rawValue).sorted().joined(separator: ", ")),
                reason.map { ConsolePages.badge("off", "off") + " <span class=\"meta\">\(HTML.escape($0))</span>" } ?? ConsolePages.badge("on", "ok"),
                last.map { HTML.escape(answer($0)) + " " + ConsolePages.time($0.deliveredAt ?? $0.createdAt) } ?? "–",
            ]
            if canChange { cells.append(reason == nil ? "" : ConsolePages.action("\(OperatorConsole.path)/webhooks/endpoints/\(endpoint.id)/enable", "Turn on", csrf: csrf)) }
            return cells
        }
        let deliveryRows = deliveries.map { delivery -> [String] in
            let last = answer(delivery)
            var cells = [
                "<code>\(HTML.escape(delivery.id))</code>", "<code>\(HTML.escape(delivery.endpointID))</code>", "<code>\(delivery.event.event.kind.rawValue)</code>",
                ConsolePages.badge(delivery.status.rawValue, delivery.status == .delivered ? "ok" : delivery.status == .failed ? "off" : "viewer"),
                "\(delivery.attempts)", HTML.escape(last), ConsolePages.time(delivery.createdAt),
                delivery.status == .pending ? ConsolePages.time(delivery.nextAttemptAt) : ConsolePages.time(delivery.deliveredAt),
            ]
            if canChange { cells.append(ConsolePages.action("\(OperatorConsole.path)/webhooks/deliveries/\(delivery.id)/resend", "Resend", csrf: csrf, danger: true)) }
            return cells
        }
        let statuses = [""] + WebhookDeliveryStatus.allCases.map(\.rawValue)
        let options = statuses.map { "<option value=\"\($0)\"\($0 == status ? " selected" : "")>\($0.isEmpty ? "Any" : $0)</option>" }.joined()
        let more = next.map { "<p><a href=\"\(OperatorConsole.path)/webhooks\(ConsolePages.query([("status", status), ("page", $0)]))\">Older deliveries</a></p>" } ?? ""
        return """
            <h1>Webhooks</h1>
            <h2>Endpoints</h2>
            \(ConsolePages.table(caption: "Endpoints", headers: ["ID", "URL", "Events", "State", "Last answer"] + (canChange ? ["Actions"] : []), rows: endpointRows, empty: "No endpoints are configured (webhooks.endpoints)."))
            <h2>Deliveries</h2>
            <form class="filters" method="get" action="\(OperatorConsole.path)/webhooks">
            <label>Status <select name="status" data-autosubmit>\(options)</select></label>
            <button type="submit">Filter</button>
            </form>
            \(ConsolePages.table(
                caption: "Deliveries", headers: ["ID", "Endpoint", "Event", "Status", "Attempts", "Last answer", "Created", "Next attempt or delivered"] + (canChange ? ["Actions"] : []),
                rows: deliveryRows, empty: "No deliveries."
            ))
            \(more)
            """
    }

    /// What the endpoint last answered a delivery: its status, its error, or `–`.
    private static func answer(_ delivery: WebhookDelivery) -> String {
        let parts = [delivery.lastStatus.map { "HTTP \($0)" }, delivery.lastError].compactMap { $0 }
        return parts.isEmpty ? "–" : parts.joined(separator: " · ")
    }
}
