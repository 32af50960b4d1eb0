import Foundation
import Testing
import WebAuthn
import WebAuthnCorpus

/// The operator console in headless Chromium against a real server: an operator signs in
/// with the passkey of their account, reads the overview's figures after a seeded mix of
/// sign-ins (the same as the audit trail's), finds a user, revokes a session, disables the
/// account after signing in again (the step-up rule, at its shortest: one minute), and
/// resends a webhook delivery. A viewer changes nothing, a person who is not an operator
/// gets nowhere, a form without the page's token is refused, and every page passes the
/// accessibility audit at both widths.
@Suite("Operator console in a real browser", .serialized, .enabled(if: !BrowserFixture.skipped))
struct ConsoleBrowserTests {
    @Test func anOperatorRunsTheServerFromTheConsole() async throws {
        // Nothing listens there: each delivery waits for its next attempt, and can be resent.
        let silent = try freePort()
        let configuration = """
            passkeys: { sensitive_action_max_age: 1m }
            webhooks:
              endpoints:
                - url: http://127.0.0.1:\(silent)/hook
                  secret: [whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw]
                  events: [user.created, user.signed_in]
              allow_private_networks: [127.0.0.1/32]
            """
        try await BrowserFixture.run(extraConfiguration: configuration) { fixture in
            let tab = fixture.tab
            let database = "sqlite:" + fixture.directory.path("latchkey.sqlite")
            func admin(_ arguments: [String]) async throws -> CommandRun {
                try await CommandRun.run(["admin"] + arguments + ["--database", database], workingDirectory: fixture.directory.url)
            }

            // The operator's account, made in this browser with its passkey.
            let platform = try await VirtualAuthenticator.add(to: tab)
            try await fixture.open("/signup")
            try await tab.fill("#email", "ops@example.com")
            try await tab.click("#signup-form button")
            try await PasswordUpgradeBrowserTests.waitForAccount(fixture)
            #expect(try await admin(["operators", "add", "ops@example.com", "--role", "admin"]).status == 0)
            let refused = try await admin(["operators", "add", "nobody@example.com", "--role", "admin"])
            #expect(refused.status != 0 && refused.output.contains("no user"), "\(refused.output)")

            // A viewer, a person, and a seeded mix: passkey sign-ins, and refusals of a
            // passkey the server does not know.
            let viewer = BrowserAgent(server: URL(string: fixture.base)!, origin: fixture.base)
            #expect(try await viewer.signUp(email: "viewer@example.com").status == 200)
            #expect(try await admin(["operators", "add", "viewer@example.com", "--role", "viewer"]).status == 0)
            let person = BrowserAgent(server: URL(string: fixture.base)!, origin: fixture.base)
            #expect(try await person.signUp(email: "person@example.com", name: "Pat Person").status == 200)
            for _ in 0..<3 { #expect(try await person.signIn().status == 200) }
            // A passkey whose account is gone: its sign-ins are refused as unknown.
            let gone = BrowserAgent(server: URL(string: fixture.base)!, origin: fixture.base)
            #expect(try await gone.signUp(email: "gone@example.com").status == 200)
            let goneID = try await fixture.string("SELECT id FROM users WHERE email = 'gone@example.com'")
            let deleted = try await CommandRun.run(["admin", "users", "delete", "--database", database, "--", goneID], workingDirectory: fixture.directory.url)
            #expect(deleted.status == 0, "\(deleted.output)")
            for _ in 0..<2 { #expect(try await gone.signIn().status != 200) }

            // Not an operator: the sign-in is refused and leaves no console session.
            let notOperator = try await person.signInToConsole()
            #expect(notOperator.status == 403 && notOperator.text.contains("not an operator"), "\(notOperator.status) \(notOperator.text)")
            #expect(try await person.get("/console").status == 302)
            #expect(try await person.get("/console/users").header("Location")?.hasPrefix("/console/login") == true)

            // The operator signs in with their passkey.
            try await fixture.open("/console")
            try await fixture.waitForPath("/console/login", query: "?return_to=%2Fconsole")
            try await PageAudit.check(tab, "console sign-in", hasStatus: true)
            try await fixture.screenshot("console-login-1280", width: 1280, height: 700)
            try await fixture.screenshot("console-login-390", width: 390, height: 700, mobile: true)
            try await tab.click("#console-sign-in")
            try await fixture.waitForPath("/console", timeout: .seconds(30))
            let signedInAt = Date()

            // The overview's figures are the audit trail's.
            let signIns = try await fixture.count("SELECT count(*) FROM audit_events WHERE kind IN ('login', 'account_recovered')")
            let refusals = try await fixture.count("SELECT count(*) FROM audit_events WHERE kind IN ('login_failed', 'recovery_failed', 'sign_count_regressed')")
            // The person's three, their refused try at the console, and the operator's.
            #expect(signIns == 5)
            #expect(try await tab.text(".cards .card:nth-child(1) .figure") == "\(signIns)")
            let accounts = try await fixture.count("SELECT count(DISTINCT user_id) FROM audit_events WHERE kind IN ('login', 'account_recovered')")
            #expect(try await tab.text(".cards .card:nth-child(3) .figure") == "\(accounts)", "active accounts, before any rollup")
            #expect(try await tab.text(".cards .card:nth-child(7) .figure") == "\(refusals)")
            #expect(try await tab.text("#failures table").contains("unknown_credential"))
            let providers = try await tab.text("#providers table")
            #expect(providers.contains(BrowserFixture.providerName) || providers.contains("unknown"), "\(providers)")
            #expect(try await tab.text(".cards .card:nth-child(5) .figure") == "4 / 4", "four sign-ups, each started once")
            try await PageAudit.check(tab, "console overview", hasStatus: false)

            // Find the person, and revoke one of their sessions (a fresh sign-in suffices).
            let personID = try await fixture.string("SELECT id FROM users WHERE email = 'person@example.com'")
            try await fixture.open("/console/users")
            try await tab.fill("input[name=q]", "person@")
            try await tab.click("form.filters button")
            try await fixture.waitForPath("/console/users", query: "?q=person%40")
            try await tab.click("table.data tbody a")
            try await fixture.waitForPath("/console/users/\(personID)")
            try await Self.everyControlIsReachedByTab(tab, "user")
            try await PageAudit.check(tab, "console user", hasStatus: false)
            try await fixture.screenshot("console-user-1280", width: 1280, height: 1400)
            try await fixture.screenshot("console-user-390", width: 390, height: 2400, mobile: true)
            let active = "SELECT count(*) FROM browser_sessions WHERE user_id = '\(personID)' AND revoked_at IS NULL"
            let before = try await fixture.count(active)
            #expect(before >= 1)
            try await tab.click("form[action$='/sessions/revoke'] button")
            try await fixture.waitForPath("/console/users/\(personID)", query: "?done=revoked")
            #expect(try await fixture.count(active) == before - 1)

            // A viewer sees, and changes nothing.
            #expect(try await viewer.signInToConsole().status == 200)
            #expect(try await viewer.get("/console").status == 200)
            let viewerTry = try await viewer.postForm("/console/users/\(personID)/disable", [:])
            #expect(viewerTry.status == 403 && viewerTry.text.contains("viewer"), "\(viewerTry.status)")
            #expect(try await fixture.count("SELECT count(*) FROM users WHERE disabled_at IS NOT NULL") == 0, "nothing changed")

            // A form without the page's token is refused, whoever sends it.
            let forged = try await tab.evaluate("""
                fetch('/console/users/\(personID)/enable', { method: 'POST', body: new URLSearchParams({ csrf: 'forged' }) }).then(r => r.status)
                """)
            #expect(forged == .number(403))

            // Every page, at both widths, with the keyboard.
            for (path, name) in [("/console/users", "users"), ("/console/events", "events"), ("/console/webhooks", "webhooks"), ("/console/keys", "keys"), ("/console", "overview")] {
                try await fixture.open(path)
                try await fixture.waitForPath(path)
                // (First, while the page's focus is at its start.)
                try await Self.everyControlIsReachedByTab(tab, name)
                try await PageAudit.check(tab, "console \(name)", hasStatus: false)
                try await fixture.screenshot("console-\(name)-1280", width: 1280, height: name == "overview" ? 2200 : 900)
                try await fixture.screenshot("console-\(name)-390", width: 390, height: name == "overview" ? 3600 : 1200, mobile: true)
            }

            // Disabling needs a sign-in of the last minute: this one is older by now.
            let wait = 62 - Date().timeIntervalSince(signedInAt)
            if wait > 0 { try await Task.sleep(for: .seconds(wait)) }
            try await fixture.open("/console/users/\(personID)")
            try await fixture.waitForPath("/console/users/\(personID)")
            try await tab.click("form[action$='/disable'] button")
            try await fixture.waitForPath("/console/login", query: "?return_to=%2Fconsole%2Fusers%2F\(personID)&step_up=1")
            #expect(try await fixture.count("SELECT count(*) FROM users WHERE disabled_at IS NOT NULL") == 0, "not before the step-up")
            #expect(try await tab.text("main").contains("recent passkey sign-in"))
            try await tab.click("#console-sign-in")
            try await fixture.waitForPath("/console/users/\(personID)", timeout: .seconds(30))
            try await tab.click("form[action$='/disable'] button")
            try await fixture.waitForPath("/console/users/\(personID)", query: "?done=disabled")
            #expect(try await fixture.count("SELECT count(*) FROM users WHERE disabled_at IS NOT NULL") == 1)
            #expect(try await fixture.count(active) == 0, "disabling ends every session")

            // Resend a delivery that is waiting.
            try await fixture.open("/console/webhooks")
            let delivery = try await tab.evaluate("document.querySelector('form[action$=\"/resend\"]').action.split('/').slice(-2)[0]").string ?? ""
            #expect(delivery.hasPrefix("msg_"), "\(delivery)")
            try await tab.click("form[action$='/resend'] button")
            try await fixture.waitForPath("/console/webhooks", query: "?done=resent")
            // Due again now: the sender may already have tried it again (nothing listens), so
            // what holds is that it waits for attempts, and that the resend is in the trail.
            #expect(try await fixture.count("SELECT count(*) FROM webhook_deliveries WHERE id = '\(delivery)' AND status = 'pending'") == 1)
            #expect(try await fixture.count("SELECT count(*) FROM audit_events WHERE kind = 'admin_request' AND detail = 'POST /console/webhooks/deliveries/\(delivery)/resend 303'") == 1)

            // Every change is in the trail under the operator, with the status it got.
            let operatorID = try await fixture.string("SELECT id FROM users WHERE email = 'ops@example.com'")
            #expect(try await fixture.count("SELECT count(*) FROM audit_events WHERE kind = 'user_disabled' AND actor = 'operator:\(operatorID)'") == 1)
            #expect(try await fixture.count("SELECT count(*) FROM audit_events WHERE kind = 'admin_request' AND actor = 'operator:\(operatorID)' AND detail LIKE 'POST /console/users/%/disable 303'") == 2)
            #expect(try await fixture.count("SELECT count(*) FROM audit_events WHERE kind = 'admin_request' AND actor LIKE 'operator:%' AND detail LIKE '% 403'") >= 2)
            _ = platform
        }
    }
}

extension ConsoleBrowserTests {
    /// The keyboard alone reaches every control of the page, in the document's order, each
    /// showing its focus, and the first is the skip link. Run on a page just loaded, whose
    /// focus starts at the top.
    static func everyControlIsReachedByTab(_ tab: BrowserTab, _ page: String) async throws {
        let count = try await tab.evaluate("""
            (() => { const all = Array.from(document.querySelectorAll('a[href], button, input:not([type=hidden]), select, summary'))
                .filter(e => !e.disabled && (e.offsetParent !== null || e.classList.contains('skip-link')));
              all.forEach((e, i) => e.dataset.keyboard = String(i));
              document.activeElement && document.activeElement.blur(); window.__reached = []; return all.length; })()
            """).number ?? 0
        // A date field takes one Tab per part (month, day, year): the presses stop once the
        // last control has focus, and a control met again at once counts once.
        for _ in 0..<(Int(count) * 4) {
            for type in ["keyDown", "keyUp"] {
                _ = try await tab.send("Input.dispatchKeyEvent", ["type": .string(type), "key": .string("Tab"), "code": .string("Tab"), "windowsVirtualKeyCode": .number(9)])
            }
            let index = try await tab.evaluate("""
                (() => { const e = document.activeElement; const style = getComputedStyle(e);
                  // A date field shows focus on the part that has it, not on its box.
                  const visible = e.type === 'date' || (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2);
                  const last = window.__reached[window.__reached.length - 1];
                  if (!last || last.index !== e.dataset.keyboard) window.__reached.push({ index: e.dataset.keyboard, visible });
                  return e.dataset.keyboard === undefined ? -1 : Number(e.dataset.keyboard); })()
                """).number ?? -1
            if Int(index) == Int(count) - 1 { break }
        }
        let reached = try await tab.evaluate("""
            (() => ({ order: window.__reached.map(r => r.index === undefined ? -1 : Number(r.index)), hidden: window.__reached.filter(r => !r.visible).length,
              first: document.querySelector('[data-keyboard="0"]').className }))()
            """)
        let order = reached["order"]?.array?.compactMap(\.number).map(Int.init) ?? []
        #expect(order == Array(0..<Int(count)), "console \(page): Tab reaches every control in order: \(order)")
        #expect(reached["hidden"] == .number(0), "console \(page): focus is visible on every control")
        #expect(reached["first"] == .string("skip-link"), "console \(page): the skip link comes first")
    }
}

extension BrowserAgent {
    /// Signs in to the console with the passkey at `index`, as its page's script does.
    func signInToConsole(index: Int = 0) async throws -> RawHTTP.Reply {
        try await get("/console/login")
        let start = try await call("POST", "/console/login/options")
        guard start.status == 200 else { throw TestFailure("console sign-in start: \(start.status) \(start.text)") }
        let ceremony = try JSONDecoder().decode(Ceremony<PublicKeyCredentialRequestOptionsJSON>.self, from: start.body)
        let response = try authenticator.getAssertion(ceremony.options, origin: origin, credential: &credentials[index])
        let encoded = try JSONSerialization.jsonObject(with: JSONEncoder().encode(PublicKeyCredentialResponse.authentication(response)))
        return try await call("POST", "/console/login/finish", ["auth_session": ceremony.auth_session, "response": encoded])
    }

    /// Posts a console form with the page's token, from the console's origin.
    func postForm(_ path: String, _ fields: [String: String]) async throws -> RawHTTP.Reply {
        var all = fields
        all["csrf"] = csrfToken
        let body = all.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(separator: "&")
        let headers = cookieHeader.merging(["Origin": origin, "Sec-Fetch-Site": "same-origin"]) { $1 }
        return try await http.send("POST", path, body: Data(body.utf8), contentType: "application/x-www-form-urlencoded", headers: headers)
    }
}
