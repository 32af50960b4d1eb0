import Foundation
import Testing

/// Getting back in on the hosted pages, in headless Chromium against the real server with
/// mail through a real SMTP server: verify the address and save recovery codes on the
/// account page, lose the passkey, come back with a saved code and then with an emailed
/// one, each time creating a new passkey and signing in with it.
@Suite("Hosted pages: recovery in a real browser", .serialized, .enabled(if: !BrowserFixture.skipped))
struct RecoveryBrowserTests {
    @Test func verifySaveCodesLoseThePasskeyAndComeBackTwice() async throws {
        let sink = try await SMTPSink.start(["--tls"])
        defer { sink.stop() }
        let email = "email: { smtp_url: 'smtp://127.0.0.1:\(sink.port)', from: 'Latchkey <no-reply@example.com>', ca_file: '\(sink.certificate ?? "")' }"
        // A re-sent code waits a second here (30 s by default), as the page's "send" follows the sign-up's code.
        try await BrowserFixture.run(extraConfiguration: email + "\nverification: { resend_cooldown: 1s }") { fixture in
            let tab = fixture.tab
            var platform = try await VirtualAuthenticator.add(to: tab)
            try await fixture.open("/signup")
            try await tab.fill("#email", "ada@example.com")
            try await tab.click("#signup-form button")
            try await PasswordUpgradeBrowserTests.waitForAccount(fixture)

            // Verify the address from the account page (a new code replaces the sign-up's).
            _ = try await sink.waitForMessage(to: "ada@example.com", subject: "verification code")
            var count = sink.messages().count
            try await Task.sleep(for: .milliseconds(1100))
            try await tab.click("#send-verification")
            let code = try #require(try await sink.waitForMessage(to: "ada@example.com", subject: "verification code", after: count).code())
            try await tab.waitUntil("!document.querySelector('#verify-email-form').hidden", timeout: .seconds(30))
            try await tab.fill("#verification-code", code)
            try await tab.click("#verify-email-form button")
            try await tab.waitUntil("document.querySelector('#email-verified') !== null", timeout: .seconds(30))

            // Save recovery codes: ten, shown once.
            try await tab.click("#create-recovery-codes")
            // (Ten hashes, queued behind the other suites' password hashes on a busy machine.)
            try await tab.waitUntil("document.querySelectorAll('#recovery-codes li').length === 10", timeout: .seconds(30))
            guard case .string(let saved) = try await tab.evaluate("document.querySelector('#recovery-codes li:nth-child(2)').textContent") else {
                throw TestFailure("no recovery code on the page")
            }

            // Every passkey lost, signed out.
            try await platform.remove()
            try await tab.click("#signout-form button")
            try await fixture.waitForPath("/login", query: "?signed_out=1")

            // 1. "Lost your passkey?" → "Use a recovery code".
            try await tab.click("#lost-passkey")
            try await fixture.waitForPath("/recover")
            try await tab.click("#recovery-code-option summary")
            try await tab.fill("#saved-email", "ada@example.com")
            try await tab.fill("#saved-code", saved.lowercased())
            try await tab.click("#recovery-code-form button")
            try await fixture.waitForPath("/account/passkeys/new", query: "?recovered=1", timeout: .seconds(30))
            #expect(try await tab.text("#recovered-notice").contains("15 minutes"))
            // The last step offers to end every other session.
            try await tab.waitUntil("document.querySelector('#sign-out-everywhere') !== null", timeout: .seconds(10))
            _ = try await sink.waitForMessage(to: "ada@example.com", subject: "was recovered")
            platform = try await VirtualAuthenticator.add(to: tab)
            try await tab.click("#add-passkey")
            // The recovery's session ends with the new passkey; the sign-in page's autofill signs
            // in with it at once (too fast to wait for), back to the account page.
            try await fixture.waitForPath("/account", query: "?recovered=1", timeout: .seconds(30))
            _ = try await platform.waitForEvent("WebAuthn.credentialAdded")
            #expect(try await tab.text("#recovery-remaining") == "9")
            _ = try await sink.waitForMessage(to: "ada@example.com", subject: "passkey was added")

            // 2. Lost again: an emailed code this time.
            try await platform.remove()
            try await tab.click("#signout-form button")
            try await fixture.waitForPath("/login", query: "?signed_out=1")
            try await fixture.open("/recover")
            count = sink.messages().count
            try await tab.fill("#recover-email", "ada@example.com")
            try await tab.click("#recover-start-form button")
            let emailed = try #require(try await sink.waitForMessage(to: "ada@example.com", subject: "recovery code", after: count).code())
            try await tab.waitUntil("!document.querySelector('#recover-code-form').hidden", timeout: .seconds(30))
            try await tab.fill("#recover-code", "000000" == emailed ? "111111" : "000000")
            try await tab.click("#recover-code-form button")
            try await tab.waitUntil("document.querySelector('#status.is-error') !== null || document.querySelector('#recover-code-error') !== null", timeout: .seconds(30))
            try await tab.fill("#recover-code", emailed)
            try await tab.click("#recover-code-form button")
            try await fixture.waitForPath("/account/passkeys/new", query: "?recovered=1", timeout: .seconds(30))
            // Before a passkey is added, the account page is out of reach.
            try await fixture.open("/account")
            try await fixture.waitForPath("/login")
            try await fixture.open("/account/passkeys/new")
            platform = try await VirtualAuthenticator.add(to: tab)
            try await tab.click("#add-passkey")
            // The recovery's session ends with the new passkey; the sign-in page's autofill signs
            // in with it at once (too fast to wait for), back to the account page.
            try await fixture.waitForPath("/account", query: "?recovered=1", timeout: .seconds(30))
            #expect(try await tab.text("#status").contains("Replace your recovery codes"))

            // A new address: proved by a code sent to it before it replaces the old one.
            try await tab.click("#change-email-option summary")
            try await tab.fill("#new-email", "ada.king@example.com")
            count = sink.messages().count
            try await tab.click("#change-email-form button")
            let change = try #require(try await sink.waitForMessage(to: "ada.king@example.com", subject: "verification code", after: count).code())
            try await tab.waitUntil("!document.querySelector('#verify-email-form').hidden", timeout: .seconds(30))
            try await tab.fill("#verification-code", change)
            try await tab.click("#verify-email-form button")
            try await tab.waitUntil("document.querySelector('#email-section strong')?.textContent === 'ada.king@example.com'", timeout: .seconds(30))
            _ = try await sink.waitForMessage(to: "ada@example.com", subject: "email address of your")
        }
    }
}
