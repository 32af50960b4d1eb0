import Foundation
import Localization
import Testing

/// The hosted pages in English, German, Japanese and Arabic, in headless Chromium against
/// the real server with a brand and a real SMTP server: the language picked in the picker
/// sticks; sign-up, sign-in by autofill and by the button, the account center signing out
/// another browser (which finds itself signed out), recovery with a saved code, and the
/// branded email in the person's language; and every page passes the accessibility audit.
@Suite("Hosted pages in four languages, in a real browser", .serialized, .enabled(if: !BrowserFixture.skipped))
struct LanguagesBrowserTests {
    static let branding = """
        branding: { name: Example Bank, primary_color: '#0b5cad', support_email: help@example.com, terms_url: 'https://example.com/terms', privacy_url: 'https://example.com/privacy' }
        verification: { resend_cooldown: 1s }
        """

    @Test(arguments: [Language.english, .german, .japanese, .arabic])
    func aPersonsWholeJourneyInTheirLanguage(_ language: Language) async throws {
        let t = StringCatalog.shared.strings(language)
        let sink = try await SMTPSink.start(["--tls"])
        defer { sink.stop() }
        let email = "email: { smtp_url: 'smtp://127.0.0.1:\(sink.port)', from: 'Example Bank <no-reply@example.com>', ca_file: '\(sink.certificate ?? "")' }"
        try await BrowserFixture.run(extraConfiguration: email + "\n" + Self.branding) { fixture in
            let tab = fixture.tab
            let rtl = language.isRightToLeft
            let platform = try await VirtualAuthenticator.add(to: tab)

            // The picker, on the sign-up page.
            try await fixture.open("/signup")
            if language != .english {
                _ = try await tab.evaluate("document.querySelector('#language-picker').value = \(BrowserTab.literal(language.tag)); true")
                try await tab.click(".language-picker button")
                try await fixture.waitForPath("/signup", query: "?lang=\(language.tag)")
            }
            #expect(try await tab.evaluate("document.documentElement.lang + ' ' + document.documentElement.dir") == .string("\(language.tag) \(language.direction)"))
            #expect(try await tab.text("h1") == t("signup.title"))
            try await PageAudit.check(tab, "\(language) sign-up", rightToLeft: rtl)
            try await screenshots(fixture, "signup", language)

            // A mistyped address: the field's error in the language.
            try await tab.fill("#email", "ada@")
            try await tab.click("#signup-form button")
            try await tab.waitUntil("document.querySelector('#email').getAttribute('aria-invalid') === 'true'")
            #expect(try await tab.text("#email-error") == t("field.email_invalid"))

            // Sign-up; the language stuck without `?lang=`.
            try await tab.fill("#email", "ada@example.com")
            try await tab.click("#signup-form button")
            try await PasswordUpgradeBrowserTests.waitForAccount(fixture)
            let credential = try #require(try await platform.credentials().first)
            #expect(try await tab.evaluate("location.search") == .string(""))
            #expect(try await tab.text("h1") == t("account.title"))
            #expect(try await tab.evaluate("document.documentElement.lang") == .string(language.tag))

            // The branded verification email, in the language.
            let mail = try await sink.waitForMessage(to: "ada@example.com", subject: "Example Bank")
            let code = try #require(mail.code())
            #expect(mail.subject == t("mail.verification_code.subject", ["service": "Example Bank", "code": code]), "\(mail.subject)")
            #expect(mail.text.contains(t("mail.help", ["support": "help@example.com"])), "\(mail.text)")
            #expect(mail.text.contains("#0b5cad"), "the brand's colour in the HTML part")

            // Verify the address from the account page (a verified one hears of the recovery).
            let count = sink.messages().count
            try await Task.sleep(for: .milliseconds(1100))
            try await tab.click("#send-verification")
            try await tab.waitUntil("document.querySelector('#status').textContent === \(BrowserTab.literal(t("account.email.code_sent")))", timeout: .seconds(30))
            let fresh = try #require(try await sink.waitForMessage(to: "ada@example.com", subject: "Example Bank", after: count).code())
            try await tab.fill("#verification-code", fresh)
            try await tab.click("#verify-email-form button")
            try await tab.waitUntil("document.querySelector('#email-verified') !== null", timeout: .seconds(30))

            // Sign out; autofill signs in again.
            _ = try await tab.evaluate("sessionStorage.removeItem('latchkey.mediation')")
            try await tab.click("#signout-form button")
            try await tab.waitUntil("sessionStorage.getItem('latchkey.mediation') === 'conditional'", timeout: .seconds(30))
            try await PasswordUpgradeBrowserTests.waitForAccount(fixture)
            _ = try await platform.waitForEvent("WebAuthn.credentialAsserted")

            // Sign out with no passkey on the device, so that autofill's request finds none and
            // waits; then the passkey comes back (an authenticator attached after the page
            // asked), and the button signs in.
            try await platform.remove()
            try await tab.click("#signout-form button")
            try await fixture.waitForPath("/login", query: "?signed_out=1")
            #expect(try await tab.text("#status") == t("login.notice.signed_out"))
            try await tab.waitUntil("document.body.dataset.capabilities === 'read'")
            let key = try await VirtualAuthenticator.add(to: tab)
            guard case .object(var copied) = credential else { throw TestFailure("no credential from the authenticator") }
            copied["signCount"] = .number(100)
            try await key.addCredential(.object(copied))
            try await tab.fill("#username", "ada@example.com")
            try await tab.click("#login-form button")
            try await PasswordUpgradeBrowserTests.waitForAccount(fixture)

            // Another browser signs in with the same passkey (synced to it); the account center
            // lists it, signs it out, and it finds itself signed out.
            let other = try await fixture.chromium.newTab(isolated: true)
            try await other.enableWebAuthn()
            let synced = try await VirtualAuthenticator.add(to: other)
            copied["signCount"] = .number(200)
            try await synced.addCredential(.object(copied))
            try await other.navigate(to: fixture.base + "/login")
            try await other.waitUntil("location.pathname === '/account'", timeout: .seconds(30))
            try await fixture.open("/account")
            try await tab.waitUntil("document.querySelectorAll('li.place').length === 2")
            #expect(try await tab.text("#places-heading") == t("account.places.heading"))
            try await PageAudit.check(tab, "\(language) account", rightToLeft: rtl)
            try await screenshots(fixture, "account-center", language, height: 1600)
            try await tab.click("li.place [data-action=end-session]")
            try await tab.waitUntil("document.querySelector('#status').textContent === \(BrowserTab.literal(t("js.session_ended")))")
            // (Its passkey put away first: autofill would sign it straight back in.)
            try await synced.remove()
            try await other.navigate(to: fixture.base + "/account")
            try await other.waitUntil("location.pathname === '/login'", timeout: .seconds(30))
            try await other.close()

            // Recovery with a saved code, in the language.
            try await tab.click("#create-recovery-codes")
            try await tab.waitUntil("document.querySelectorAll('#recovery-codes li').length === 10", timeout: .seconds(30))
            #expect(try await tab.text("#status") == t("js.save_codes"))
            guard case .string(let saved) = try await tab.evaluate("document.querySelector('#recovery-codes li').textContent") else {
                throw TestFailure("no recovery code on the page")
            }
            try await key.remove()
            try await tab.click("#signout-form button")
            try await fixture.waitForPath("/login", query: "?signed_out=1")
            // (Audited with no passkey left to offer: the audit's key presses move focus
            // through the page, the sign-in field among them.)
            try await PageAudit.check(tab, "\(language) sign-in", rightToLeft: rtl)
            try await screenshots(fixture, "login", language)
            try await tab.click("#lost-passkey")
            try await fixture.waitForPath("/recover")
            #expect(try await tab.text("h1") == t("recover.title"))
            try await PageAudit.check(tab, "\(language) recovery", rightToLeft: rtl)
            try await tab.click("#recovery-code-option summary")
            try await tab.fill("#saved-email", "ada@example.com")
            try await tab.fill("#saved-code", "0000-0000-0000-0000")
            try await tab.click("#recovery-code-form button")
            try await tab.waitUntil("document.querySelector('#status.is-error') !== null", timeout: .seconds(30))
            if language != .english {
                let refusal = try await tab.text("#status")
                #expect(!refusal.isEmpty && !refusal.contains("recovery code"), "in words, not the server's English: \(refusal)")
            }
            try await tab.fill("#saved-code", saved)
            try await tab.click("#recovery-code-form button")
            try await fixture.waitForPath("/account/passkeys/new", query: "?recovered=1", timeout: .seconds(30))
            #expect(try await tab.text("#recovered-notice") == t("enroll.recovered", count: 15, ["account": "ada@example.com"]))
            let recovered = try await sink.waitForMessage(to: "ada@example.com", subject: t("mail.account_recovered.subject", ["service": "Example Bank"]))
            #expect(recovered.text.contains(t("mail.method.recovery_code")), "\(recovered.text)")
        }
    }

    /// The page at 390 px and 1280 px, as `<name>-<tag>-<width>.png`, for the three languages
    /// the docs show.
    private func screenshots(_ fixture: BrowserFixture, _ name: String, _ language: Language, height: Int = 900) async throws {
        guard [Language.english, .japanese, .arabic].contains(language) else { return }
        try await fixture.screenshot("\(name)-\(language.tag)-390", width: 390, height: height, mobile: true)
        try await fixture.screenshot("\(name)-\(language.tag)-1280", width: 1280, height: height)
    }
}
