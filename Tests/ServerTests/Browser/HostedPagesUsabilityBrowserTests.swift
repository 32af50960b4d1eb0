import Foundation
import Testing

/// The hosted pages as a newcomer meets them, on a phone-sized screen (390 px) in headless
/// Chromium: errors in words next to their field, phone numbers as people type them, the
/// last passkey, one status area, the forms that replace their buttons, the sign-out notice,
/// a real 404 page; and on every page, a pass over what a screen reader relies on.
@Suite("Hosted pages as a person meets them, in a real browser", .serialized, .enabled(if: !BrowserFixture.skipped))
struct HostedPagesUsabilityBrowserTests {
    static let width = 390

    /// What a screen reader and a small screen need from every page: nothing wider than the
    /// screen, every field and button named and distinct, and one live status area.
    func checkPage(_ tab: BrowserTab, _ page: String, hasStatus: Bool = true) async throws {
        let overflow = try await tab.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        #expect(overflow == .number(0), "\(page) is wider than \(Self.width) px by \(overflow)")
        let unnamed = try await tab.evaluate("""
            Array.from(document.querySelectorAll('input:not([type=hidden]), button, select, textarea'))
              .filter(e => e.offsetParent !== null)
              .filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label') && !(e.textContent || '').trim())
              .map(e => e.outerHTML.slice(0, 80))
            """)
        #expect(unnamed == .array([]), "\(page): fields or buttons without a name: \(unnamed)")
        let labels = try await tab.evaluate("""
            (() => { const names = Array.from(document.querySelectorAll('button')).filter(e => e.offsetParent !== null)
              .map(e => e.getAttribute('aria-label') || e.textContent.trim());
              return names.filter((n, i) => names.indexOf(n) !== i); })()
            """)
        #expect(labels == .array([]), "\(page): buttons that read the same: \(labels)")
        let liveRegions = try await tab.evaluate("document.querySelectorAll('[aria-live]').length")
        #expect(liveRegions == .number(hasStatus ? 1 : 0), "\(page): \(hasStatus ? "one live status area" : "no live region"), found \(liveRegions)")
    }

    @Test func theFirstHourOnAPhone() async throws {
        try await BrowserFixture.run(extraConfiguration: "hosted_pages: { default_region: US }") { fixture in
            let tab = fixture.tab
            _ = try await tab.send("Emulation.setDeviceMetricsOverride", [
                "width": .number(Double(Self.width)), "height": .number(844), "deviceScaleFactor": .number(1), "mobile": .bool(true),
            ])
            let platform = try await VirtualAuthenticator.add(to: tab)

            try await fixture.open("/")
            try await checkPage(tab, "home", hasStatus: false)

            // A mistyped email: a message in words under the field, which is marked invalid,
            // described by the message and focused.
            try await fixture.open("/signup")
            try await checkPage(tab, "signup")
            try await tab.fill("#email", "ada@")
            try await tab.click("#signup-form button")
            try await tab.waitUntil("document.querySelector('#email').getAttribute('aria-invalid') === 'true'")
            #expect(try await tab.text("#email-error") == "Enter an email address like name@example.com.")
            #expect(try await tab.evaluate("document.querySelector('#email').getAttribute('aria-describedby')") == .string("email-error"))
            #expect(try await tab.evaluate("document.activeElement.id") == .string("email"))
            #expect(try await tab.text("#status") == "", "the message is at the field, not repeated at the top")
            try await checkPage(tab, "signup with an error")

            // The phone number typed exactly like the placeholder is accepted and stored in E.164.
            try await tab.fill("#email", "")
            try await tab.fill("#phone", "+1 555 010 1234")
            try await tab.click("#signup-form button")
            try await fixture.waitForPath("/account")
            _ = try await platform.waitForEvent("WebAuthn.credentialAdded")
            #expect(try await tab.text("#account-name") == "+15550101234")
            try await checkPage(tab, "account")

            // The only passkey: Revoke is off, and says why.
            #expect(try await tab.evaluate("document.querySelector('li.passkey [data-action=revoke]').disabled") == .bool(true))
            let reason = try await tab.evaluate("document.getElementById(document.querySelector('li.passkey [data-action=revoke]').getAttribute('aria-describedby')).textContent")
            #expect(reason == .string("This is your only way to sign in. Add another passkey before you revoke this one."))

            // Two more passkeys, on two security keys of a model nobody named: every passkey can
            // now be revoked, and all three are told apart (the two unknown ones by number). The
            // phone's authenticator is put away, so that each key is the one asked.
            try await platform.remove()
            for key in 1...2 {
                let securityKey = try await VirtualAuthenticator.add(to: tab, transport: "usb")
                try await fixture.open("/account/passkeys/new")
                if key == 1 { try await checkPage(tab, "enroll") }
                try await tab.click("#add-passkey")
                try await fixture.waitForPath("/account/passkeys", query: "?added=1")
                // Unplugged, so that the next one is asked.
                try await securityKey.remove()
            }
            #expect(try await tab.text("#status") == "Passkey added.")
            #expect(try await tab.evaluate("Array.from(document.querySelectorAll('[data-action=revoke]')).every(b => !b.disabled)") == .bool(true))
            let names = try await tab.evaluate("Array.from(document.querySelectorAll('li.passkey .name')).map(e => e.textContent)")
            #expect(names == .array([.string(BrowserFixture.providerName), .string("Passkey 1"), .string("Passkey 2")]), "\(names)")
            #expect(try await tab.evaluate("document.body.textContent.includes('Unknown provider')") == .bool(false))
            try await checkPage(tab, "account with three passkeys")

            // An open form replaces the buttons that opened it; Cancel brings them back.
            try await tab.click("li.passkey:nth-child(2) [data-action=rename]")
            #expect(try await tab.evaluate("document.querySelector('li.passkey:nth-child(2) .actions').hidden") == .bool(true))
            try await tab.click("li.passkey:nth-child(2) .rename-form [data-action=cancel]")
            #expect(try await tab.evaluate("document.querySelector('li.passkey:nth-child(2) .actions').hidden") == .bool(false))
            #expect(try await tab.evaluate("document.activeElement.dataset.action") == .string("rename"))

            // Revoking: each status message replaces the last, and once one passkey is left it
            // is the only one again.
            for _ in 1...2 {
                try await tab.click("li.passkey:nth-child(2) [data-action=revoke]")
                #expect(try await tab.evaluate("document.querySelector('li.passkey:nth-child(2) .actions').hidden") == .bool(true))
                _ = try await tab.evaluate("document.querySelector('#status').textContent = ''")
                try await tab.click("li.passkey:nth-child(2) [data-action=confirm-revoke]")
                try await tab.waitUntil("document.querySelector('#status').textContent === 'Passkey revoked.'")
            }
            #expect(try await tab.evaluate("document.querySelectorAll('.status, .notice, .error').length") == .number(1))
            #expect(try await tab.evaluate("document.querySelectorAll('li.passkey').length") == .number(1))
            #expect(try await tab.evaluate("document.querySelector('li.passkey [data-action=revoke]').disabled") == .bool(true))

            // Signing out says so.
            try await tab.click("#signout-form button")
            try await fixture.waitForPath("/login", query: "?signed_out=1")
            #expect(try await tab.text("#status") == "You have signed out.")
            try await checkPage(tab, "login")

            // The same number typed as a national one is the same account, and the page says
            // so as an error, with the way forward.
            try await fixture.open("/signup")
            try await tab.fill("#phone", "(555) 010-1234")
            try await tab.click("#signup-form button")
            try await tab.waitUntil("document.querySelector('#status').classList.contains('is-error')")
            #expect(try await tab.text("#status") == "An account with this phone number already exists. Sign in instead")
            #expect(try await tab.evaluate("document.querySelector('#status a').getAttribute('href')") == .string("/login"))
            let colours = try await tab.evaluate("""
                [getComputedStyle(document.querySelector('#status')).color, getComputedStyle(document.querySelector('.alt')).color]
                """)
            guard case .array(let pair) = colours, pair.count == 2 else {
                Issue.record("the page's colours could not be read: \(colours)")
                return
            }
            #expect(pair[0] != pair[1], "the error is not in the ordinary text colour")

            // An error page (an authorization request from a client nobody registered).
            try await fixture.open("/authorize?client_id=nobody&response_type=code")
            #expect(try await tab.evaluate("document.querySelector('.error') !== null") == .bool(true))
            try await checkPage(tab, "error page", hasStatus: false)

            // A page that does not exist is a page.
            try await fixture.open("/no-such-page")
            #expect(try await tab.text("h1") == "Page not found")
            try await checkPage(tab, "404", hasStatus: false)
        }
    }
}
