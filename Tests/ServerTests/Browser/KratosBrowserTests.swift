import Foundation
import Testing
import WebAuthnCorpus

/// The Kratos face's browser flows in headless Chromium: a custom UI on its own origin
/// renders the flows, `/.well-known/ory/webauthn.js` runs the ceremonies with virtual
/// authenticators and submits the forms, against a real server process and SQLite file.
@Suite("Kratos browser flows in a real browser", .serialized, .enabled(if: !BrowserFixture.skipped))
struct KratosBrowserTests {
    /// Opens a custom UI page and waits until it has rendered its flow and loaded the script.
    private func openFlow(_ fixture: BrowserFixture, _ path: String) async throws {
        try await fixture.tab.navigate(to: fixture.appBase + path)
        try await fixture.tab.waitUntil("window.ui && (window.ui.state === 'error' || (window.ui.state === 'ready' && window.ui.scriptLoaded))")
        let state = try await fixture.tab.evaluate("JSON.stringify(window.ui.state === 'error' ? window.ui : null)")
        #expect(state == .string("null"), "the custom UI could not start the flow")
        #expect(try await fixture.tab.evaluate("Boolean(window.ui.scriptFailed)") == .bool(false), "webauthn.js loads with its integrity")
    }

    /// Waits for the welcome page and returns the email whoami reports, or nil when signed out.
    private func welcomeEmail(_ fixture: BrowserFixture) async throws -> String? {
        try await fixture.tab.waitUntil("location.origin === \(BrowserTab.literal(fixture.appBase)) && location.pathname === '/welcome' && window.ui && window.ui.state === 'ready'")
        let status = try await fixture.tab.evaluate("window.ui.whoami.status")
        guard status == .number(200) else { return nil }
        return try await fixture.tab.evaluate("window.ui.whoami.body.identity.traits.email").string
    }

    private func whoamiStatus(_ fixture: BrowserFixture) async throws -> JSONValue {
        try await fixture.tab.evaluate("fetch(\(BrowserTab.literal(fixture.base + "/sessions/whoami")), { credentials: 'include' }).then(r => r.status)")
    }

    private func logOut(_ fixture: BrowserFixture) async throws {
        try await fixture.tab.navigate(to: fixture.appBase + "/logout")
        try await fixture.tab.waitUntil("location.pathname === '/login' && location.search === '?manual=1' && window.ui && window.ui.state === 'ready'")
        #expect(try await whoamiStatus(fixture) == .number(401), "the logout URL ended the session")
    }

    @Test func signUpSignInWithTheButtonAndWithAutofillAddAndRemoveAPasskey() async throws {
        try await BrowserFixture.run(appPages: KratosCustomUI.pages, appIsRelyingPartyOrigin: true) { fixture in
            let tab = fixture.tab
            let platform = try await VirtualAuthenticator.add(
                to: tab, options: ["defaultBackupEligibility": .bool(true), "defaultBackupState": .bool(true)]
            )

            // Registration without the email: the script asks for it instead of creating a
            // passkey for an account that would not be saved.
            try await openFlow(fixture, "/registration")
            try await tab.click("button[name=passkey_register_trigger]")
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await platform.credentials().isEmpty)
            #expect(try await tab.evaluate("location.pathname") == .string("/registration"))

            // Sign up: the trait becomes the passkey's user name, the form posts the
            // attestation with the CSRF token, and the browser lands on return_to signed in.
            try await tab.fill("input[name='traits.email']", "grace@example.com")
            try await tab.click("button[name=passkey_register_trigger]")
            #expect(try await welcomeEmail(fixture) == "grace@example.com")
            let created = try await platform.credentials()
            #expect(created.count == 1)
            #expect(created.first?["userName"]?.string == "grace@example.com", "webauthn.js copies traits.email into user.name")
            #expect(created.first?["isResidentCredential"] == .bool(true))

            // Sign out through the browser logout URL, then sign in with the button.
            try await logOut(fixture)
            try await openFlow(fixture, "/login?manual=1")
            try await tab.click("button[name=passkey_login_trigger]")
            #expect(try await welcomeEmail(fixture) == "grace@example.com")
            _ = try await platform.waitForEvent("WebAuthn.credentialAsserted")

            // Sign in again with nothing clicked: the login flow's onload offers the passkey
            // in the identifier's autofill (conditional mediation), which the virtual
            // authenticator accepts at once.
            try await logOut(fixture)
            try await tab.navigate(to: fixture.appBase + "/login")
            #expect(try await welcomeEmail(fixture) == "grace@example.com")

            // Settings: add a passkey on a security key; the platform one is excluded.
            let securityKey = try await VirtualAuthenticator.add(to: tab, transport: "usb")
            try await openFlow(fixture, "/settings")
            #expect(try await tab.evaluate("document.querySelector('button[name=passkey_remove]').disabled") == .bool(true), "the only passkey cannot be removed")
            try await tab.click("button[name=passkey_register_trigger]")
            #expect(try await welcomeEmail(fixture) == "grace@example.com")
            #expect(try await securityKey.credentials().count == 1)
            #expect(try await platform.credentials().count == 1, "excludeCredentials kept the platform from making a second one")

            // Remove the security key's passkey with its own button.
            try await openFlow(fixture, "/settings")
            #expect(try await tab.evaluate("document.querySelectorAll('button[name=passkey_remove]:not([disabled])').length") == .number(2))
            let keyID = try #require(try await securityKey.credentials().first?["credentialId"]?.string)
            let hex = Array(try #require(Data(base64Encoded: VirtualAuthenticator.standardBase64(fromBase64URL: keyID)))).map { String(format: "%02x", $0) }.joined()
            try await tab.click("button[name=passkey_remove][value='\(hex)']")
            #expect(try await welcomeEmail(fixture) == "grace@example.com")
            try await openFlow(fixture, "/settings")
            #expect(try await tab.evaluate("document.querySelectorAll('button[name=passkey_remove]').length") == .number(1))

            // The removed passkey no longer signs in: the security key alone is offered it.
            try await platform.remove()
            try await logOut(fixture)
            try await openFlow(fixture, "/login?manual=1")
            try await tab.click("button[name=passkey_login_trigger]")
            // The refused form post answers with the flow and its message.
            try await tab.waitUntil("location.pathname === '/self-service/login' && document.readyState === 'complete'")
            #expect(try await tab.evaluate("document.body.innerText.includes('4000015')") == .bool(true))
            #expect(try await whoamiStatus(fixture) == .number(401))
        }
    }
}
