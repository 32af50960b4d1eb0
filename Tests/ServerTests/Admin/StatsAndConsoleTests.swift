import Foundation
import IdentityCore
import LatchkeyClient
import Testing

/// `GET /admin/v1/stats` counted both ways (the figures against the audit trail the Admin
/// API lists), its refusals, and the console's rules that need no browser: the address rule,
/// its cookies, a sign-in call without the page's token, a change without a session, and
/// `latchkey admin operators`.
@Suite("Statistics and the console's rules", .serialized, .timeLimit(.minutes(5)))
struct StatsAndConsoleTests {
    @Test func theFiguresAreTheAuditTrailCountedByDay() async throws {
        let admin = try await AdminAPIFixture.start()
        defer { admin.stop() }
        let key = try await admin.key("events:read").key
        var ada = PasskeyUser(admin.server)
        _ = try await ada.signUp(SignupProfile(email: "ada@example.com"))
        var grace = PasskeyUser(admin.server)
        _ = try await grace.signUp(SignupProfile(email: "grace@example.com"))
        for _ in 0..<3 { _ = try await ada.signIn() }
        _ = try await grace.signIn()
        // A passkey of an account that is gone: refused as unknown.
        let graceID = try #require(((try await admin.call("GET", "/events?type=signup", key: key).json["events"] as? [[String: Any]])?.first)?["user_id"] as? String)
        #expect(try await admin.cli(["users", "delete"], ids: [graceID]).status == 0)
        await #expect(throws: (any Error).self) { _ = try await grace.signIn() }

        let reply = try await admin.call("GET", "/stats", key: key)
        #expect(reply.status == 200, "\(reply.text)")
        let intervals = try #require(reply.json["intervals"] as? [[String: Any]])
        #expect(intervals.count == 30, "the last 30 days by default")
        let today = try #require(intervals.last)
        #expect(today["start"] as? String == StatsTally.day(of: Date()) + "T00:00:00Z")

        // The trail, counted here.
        let events = try await admin.call("GET", "/events?page_size=500", key: key).json["events"] as? [[String: Any]] ?? []
        func count(_ type: String, where detail: (String) -> Bool = { _ in true }) -> Int {
            events.filter { $0["type"] as? String == type && detail($0["details"] as? String ?? "") }.count
        }
        let signIns = today["sign_ins"] as? [String: Any]
        #expect(signIns?["passkey"] as? Int == count("login") { $0 != "password" })
        #expect(signIns?["passkey"] as? Int == 4)
        #expect(signIns?["password"] as? Int == 0)
        #expect(signIns?["recovery"] as? Int == count("account_recovered"))
        #expect(today["sign_ups"] as? Int == count("signup"))
        #expect(today["sign_ups_started"] as? Int == 2)
        #expect(today["failures"] as? [String: Int] == ["unknown_credential": count("login_failed")])
        let passkeyUses = events.filter { $0["type"] as? String == "login" }.compactMap { PasskeyUse(detail: $0["details"] as? String ?? "") }
        #expect(passkeyUses.count == 4, "each passkey sign-in says what it used")
        #expect(today["synced"] as? Int == passkeyUses.filter(\.isSynced).count)
        #expect(today["device_bound"] as? Int == passkeyUses.filter { !$0.isSynced }.count)
        #expect(today["hybrid"] as? Int == 0)
        #expect((today["providers"] as? [String: Int])?.values.reduce(0, +) == 4)
        // Every other day holds nothing.
        #expect(intervals.dropLast().allSatisfy { ($0["sign_ins"] as? [String: Int])?.values.reduce(0, +) == 0 })

        // One day asked for, by its bounds.
        let day = StatsTally.day(of: Date())
        let one = try await admin.call("GET", "/stats?from=\(day)T00:00:00Z&to=\(day)T23:59:59Z&interval=day", key: key)
        #expect((one.json["intervals"] as? [[String: Any]])?.count == 1)
    }

    @Test func theStatisticsRefuseWhatTheyCannotAnswer() async throws {
        let admin = try await AdminAPIFixture.start()
        defer { admin.stop() }
        let reader = try await admin.key("events:read").key
        let other = try await admin.key("users:read").key
        #expect(try await admin.call("GET", "/stats", key: nil).status == 401)
        expectProblem(try await admin.call("GET", "/stats", key: other), 403, "insufficient_scope")
        for query in [
            "from=2026-11-10T00:00:00Z&to=2026-11-01T00:00:00Z", "from=2020-01-01T00:00:00Z&to=2026-01-01T00:00:00Z", "interval=week", "from=yesterday",
        ] {
            let reply = try await admin.call("GET", "/stats?" + query, key: reader)
            #expect(reply.status == 400, "\(query): \(reply.status) \(reply.text.prefix(200))")
        }
    }

    @Test func theConsoleKeepsItsRules() async throws {
        let admin = try await AdminAPIFixture.start(process: true)
        defer { admin.stop() }
        let http = admin.http
        // Another address (through the trusted proxy): not admitted, as the Admin API.
        let far = try await http.send("GET", "/console/login", contentType: nil, headers: ["X-Forwarded-For": "203.0.113.9"])
        #expect(far.status == 403 && far.text.contains("Not from this address"), "\(far.status)")
        // Its cookies stay under /console, strictly same-site.
        let page = try await http.send("GET", "/console/login", contentType: nil)
        #expect(page.status == 200)
        let cookie = try #require(page.header("Set-Cookie"))
        #expect(cookie.contains("Path=/console") && cookie.contains("SameSite=Strict") && cookie.contains("HttpOnly"), "\(cookie)")
        #expect(page.header("Content-Security-Policy")?.contains("script-src 'self'") == true)
        // The sign-in's calls need the page's token.
        let options = try await http.json("POST", "/console/login/options", [:])
        #expect(options.status == 403 && options.json["error"] as? String == "access_denied", "\(options.text)")
        // Pages need an operator's session; a change without one is refused, not redirected.
        #expect(try await http.send("GET", "/console/events", contentType: nil).header("Location") == "/console/login?return_to=%2Fconsole%2Fevents")
        let change = try await http.send("POST", "/console/users/x/disable", body: Data("csrf=x".utf8), contentType: "application/x-www-form-urlencoded")
        #expect(change.status == 401 && change.header("Content-Type")?.hasPrefix("text/html") == true)
        // Where to come back to is a console page only.
        let away = try await http.send("GET", "/console/login?return_to=https://evil.example/console", contentType: nil)
        #expect(away.text.contains("data-return-to=\"/console\""))

        // `latchkey admin operators`: a known account and a real role only.
        var ada = PasskeyUser(admin.server)
        _ = try await ada.signUp(SignupProfile(email: "ada@example.com"))
        let badRole = try await admin.cli(["operators", "add", "ada@example.com", "--role", "owner"])
        #expect(badRole.status != 0 && badRole.output.contains("viewer or admin"), "\(badRole.output)")
        #expect(try await admin.cli(["operators", "add", "ada@example.com", "--role", "viewer"]).status == 0)
        let listed = try await admin.cli(["operators", "list"])
        #expect(listed.output.contains("ada@example.com") && listed.output.contains("viewer"), "\(listed.output)")
        #expect(try await admin.cli(["operators", "remove", "ada@example.com"]).status == 0)
        #expect(try await admin.cli(["operators", "list"]).output.contains("ada@example.com") == false)
        let key = try await admin.key("events:read").key
        let changes = try await admin.call("GET", "/events?type=user_updated", key: key).json["events"] as? [[String: Any]] ?? []
        #expect(changes.map { $0["details"] as? String } == ["operator role removed", "operator role viewer"])
        #expect(changes.allSatisfy { ($0["actor"] as? [String: Any])?["type"] as? String == "cli" })

        // A viewer's console: the export, refusals of what is not there, and no change.
        let viewer = BrowserAgent(admin.server)
        #expect(try await viewer.signUp(email: "ops@example.com").status == 200)
        #expect(try await admin.cli(["operators", "add", "ops@example.com", "--role", "viewer"]).status == 0)
        #expect(try await viewer.signInToConsole().status == 200)
        let export = try await viewer.get("/console/events/export?type=signup")
        #expect(export.status == 200 && export.header("Content-Type") == "application/x-ndjson")
        let lines = try export.text.split(separator: "\n").map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(lines.count == 2 && lines.allSatisfy { $0["type"] as? String == "signup" && $0["actor"] is [String: Any] }, "\(export.text)")
        let adaID = try #require(lines.last?["user_id"] as? String)
        for (path, status) in [
            ("/console/events?type=nonsense", 400), ("/console/events?from=2026-02-30", 400), ("/console/users/nobody", 404),
            ("/console/webhooks?status=lost", 400), ("/console/users?q=a&q=b", 400), ("/console/nowhere", 404),
        ] {
            let reply = try await viewer.get(path)
            #expect(reply.status == status, "\(path): \(reply.status)")
            #expect(!reply.text.contains("Something went wrong"), "\(path) is no 500")
        }
        #expect(try await viewer.get("/console/users/\(adaID)").text.contains("ada@example.com"))
        #expect(try await viewer.postForm("/console/users/\(adaID)/disable", [:]).status == 403)
        let disabled = try await admin.call("GET", "/events?type=user_disabled", key: key).json["events"] as? [Any] ?? []
        #expect(disabled.isEmpty, "the viewer changed nothing")
        // Made an admin, the same session changes things at once: a key, shown once, that
        // works, then revoked; an enrollment link, shown once.
        #expect(try await admin.cli(["operators", "add", "ops@example.com", "--role", "admin"]).status == 0)
        _ = try await viewer.get("/console/keys")
        let made = try await viewer.postForm("/console/keys", ["name": "from the console", "users:read": "on"])
        let madeKey = try #require(made.text.range(of: "lk_admin_[A-Za-z0-9_-]+", options: .regularExpression).map { String(made.text[$0]) }, "\(made.status)")
        #expect(try await admin.call("GET", "/users", key: madeKey).status == 200)
        // The key's row, and the revoke form in it.
        let row = try #require(made.text.range(of: "<td>from the console</td>"))
        let form = try #require(made.text[row.upperBound...].range(of: "/console/keys/ak_[0-9a-f]+/revoke", options: .regularExpression))
        let keyID = String(made.text[form].dropFirst("/console/keys/".count).dropLast("/revoke".count))
        #expect(try await viewer.get("/console/keys").text.contains(madeKey) == false, "shown once")
        #expect(try await viewer.postForm("/console/keys/\(keyID)/revoke", [:]).status == 303)
        #expect(try await admin.call("GET", "/users", key: madeKey).status == 401)
        #expect(try await viewer.postForm("/console/keys", ["name": "no scopes"]).status == 400, "a key needs a scope")
        let link = try await viewer.postForm("/console/users/\(adaID)/enrollment-link", [:])
        #expect(link.status == 200 && link.text.contains("/enroll#user="), "\(link.status)")
        let deletion = try await viewer.postForm("/console/users/\(adaID)/delete", [:])
        #expect(deletion.status == 400, "a deletion needs its box ticked")
        let out = try await viewer.postForm("/console/logout", [:])
        #expect(out.status == 303 && out.header("Set-Cookie")?.contains("Max-Age=0") == true)
        #expect(try await viewer.get("/console").status == 302, "signed out")
    }
}
