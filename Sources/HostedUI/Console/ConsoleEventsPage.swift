import Foundation
import FaceFrame
import IdentityCore

/// The events section: the audit trail with filters, newest first, and its export.
enum ConsoleEventsPage {
    /// The filters as the page's query string gives them.
    struct Filters {
        var type = "", user = "", client = "", ip = "", from = "", to = ""

        init(_ query: [String: String]) {
            type = query["type"] ?? ""
            user = query["user"] ?? ""
            client = query["client"] ?? ""
            ip = query["ip"] ?? ""
            from = query["from"] ?? ""
            to = query["to"] ?? ""
        }

        /// The audit query they make. Days are UTC; `to` includes its day.
        /// - Throws: `invalid_request` for a type or day that is not one.
        func auditQuery() throws -> AuditQuery {
            var query = AuditQuery(limit: 0)
            if !type.isEmpty {
                guard let kind = AuditEvent.Kind(rawValue: type) else { throw IdentityError(.invalidRequest, "there is no event type \(type.prefix(40))", field: "type") }
                query.kind = kind
            }
            if !user.isEmpty { query.userID = UserID(rawValue: user) }
            if !client.isEmpty { query.clientID = client }
            if !ip.isEmpty { query.ip = ip }
            if !from.isEmpty { query.from = try Self.day(from, "from") }
            if !to.isEmpty { query.to = try Self.day(to, "to").addingTimeInterval(86_400) }
            return query
        }

        /// The query string that keeps them.
        var fields: [(String, String?)] { [("type", type), ("user", user), ("client", client), ("ip", ip), ("from", from), ("to", to)] }

        private static func day(_ text: String, _ field: String) throws -> Date {
            let parts = text.split(separator: "-").compactMap { Int($0) }
            guard text.utf8.count == 10, parts.count == 3, let date = DateComponents(
                calendar: Calendar(identifier: .gregorian), timeZone: TimeZone(identifier: "UTC"), year: parts[0], month: parts[1], day: parts[2]
            ).date, StatsTally.day(of: date) == text else {
                throw IdentityError(.invalidRequest, "\(field) must be a day written YYYY-MM-DD", field: field)
            }
            return date
        }
    }

    static func render(_ events: [LoggedEvent], filters: Filters, next: String?) -> String {
        let types = AuditEvent.Kind.allCases.map { kind in
            "<option value=\"\(kind.rawValue)\"\(kind.rawValue == filters.type ? " selected" : "")>\(kind.rawValue)</option>"
        }.joined()
        let more = next.map { "<p><a href=\"\(OperatorConsole.path)/events\(ConsolePages.query(filters.fields + [("page", $0)]))\">Older events</a></p>" } ?? ""
        return """
            <h1>Events</h1>
            <form class="filters" method="get" action="\(OperatorConsole.path)/events">
            <label>Type <select name="type" data-autosubmit><option value="">Any</option>\(types)</select></label>
            <label>User ID <input name="user" value="\(HTML.escape(filters.user))" autocomplete="off"></label>
            <label>Client <input name="client" value="\(HTML.escape(filters.client))" autocomplete="off"></label>
            <label>Address <input name="ip" value="\(HTML.escape(filters.ip))" autocomplete="off"></label>
            <label>From (UTC day) <input type="date" name="from" value="\(HTML.escape(filters.from))"></label>
            <label>To (UTC day) <input type="date" name="to" value="\(HTML.escape(filters.to))"></label>
            <button type="submit">Filter</button>
            </form>
            <p><a href="\(OperatorConsole.path)/events/export\(ConsolePages.query(filters.fields))" download="events.ndjson">Export these events (NDJSON)</a></p>
            \(table(events, empty: "No event matches."))
            \(more)
            """
    }

    static func table(_ events: [LoggedEvent], empty: String) -> String {
        let rows = events.map { logged -> [String] in
            let event = logged.event
            let actor = event.actorKind
            return [
                ConsolePages.time(event.time), "<code>\(event.kind.rawValue)</code>", HTML.escape(actor.type + (actor.id.map { " " + $0 } ?? "")),
                event.userID.map(ConsolePages.userLink) ?? "–", HTML.escape(event.clientID ?? "–"), HTML.escape(event.origin?.ip ?? "–"), HTML.escape(event.detail),
            ]
        }
        return ConsolePages.table(caption: "Events", headers: ["Time", "Type", "Actor", "User", "Client", "Address", "Details"], rows: rows, empty: empty)
    }

    /// One line of the export: the object `GET /admin/v1/events` lists.
    static func line(_ logged: LoggedEvent) -> [UInt8] {
        let event = logged.event
        let actor = event.actorKind
        var writer = JSONWriter()
        writer.object { object in
            object.member("id", String(logged.id))
            object.member("time", WireTime.text(event.time))
            object.member("type", event.kind.rawValue)
            object.member("actor") { who in
                who.object { who in
                    who.member("type", actor.type)
                    who.member("id", actor.id)
                }
            }
            object.member("user_id", event.userID?.rawValue)
            object.member("client_id", event.clientID)
            object.member("credential_id", event.credentialID)
            object.member("ip", event.origin?.ip)
            object.member("user_agent", event.origin?.userAgent)
            object.member("face", event.origin?.face)
            object.member("details", event.detail)
        }
        return writer.bytes + [0x0A]
    }
}
