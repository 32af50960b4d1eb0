import Crypto
import Foundation
import Testing
import WebAuthnCorpus

/// The hosted pages in headless Chromium with virtual authenticators, against a real server
/// process and SQLite file: real `navigator.credentials` calls, real Signal API effects.
///
/// Set `LATCHKEY_SCREENSHOTS=docs/screenshots` to save the screenshots the README shows.
@Suite("Hosted pages in a real browser", .serialized, .enabled(if: !BrowserFixture.skipped))
struct HostedPagesBrowserTests {
    @Test func signUpSignInManagePasskeysAndSignInToAWebApp() async throws {
        try await BrowserFixture.run { fixture in
            let tab = fixture.tab
            // A synced platform passkey provider, as on a phone or laptop.
            let platform = try await VirtualAuthenticator.add(
                to: tab, options: ["defaultBackupEligibility": .bool(true), "defaultBackupState": .bool(true)]
            )

            // 1. Sign up: identifier and name, then a passkey; no password anywhere.
            try await fixture.open("/")
            try await fixture.screenshot("home")
            try await fixture.open("/signup")
            #expect(try await tab.evaluate("document.querySelectorAll('input[type=password]').length") == .number(0))
            try await fixture.screenshot("signup")
            try await tab.fill("#email", "ada@example.com")
            try await tab.fill("#name", "Ada Lovelace")
            try await tab.click("#signup-form button")
            try await fixture.waitForPath("/account")
            _ = try await platform.waitForEvent("WebAuthn.credentialAdded")
            let page = try await tab.text("main")
            #expect(page.contains("ada@example.com"))
            #expect(page.contains(BrowserFixture.providerName), "the provider is named from the AAGUID list")
            #expect(page.contains("Synced"), "a backed-up passkey says so")
            #expect(try await tab.evaluate("document.querySelector('img.provider-icon').src.startsWith('data:image/svg+xml')") == .bool(true))

            // 2. Sign out.
            _ = try await tab.evaluate("sessionStorage.removeItem('latchkey.mediation')")
            try await tab.click("#signout-form button")
            // 3. The login page offers the passkey in autofill (conditional mediation), which
            //    the virtual authenticator accepts at once; the page records how it signed in.
            try await tab.waitUntil("sessionStorage.getItem('latchkey.mediation') === 'conditional'")
            try await fixture.waitForPath("/account")
            _ = try await platform.waitForEvent("WebAuthn.credentialAsserted")

            // 4. Add a second passkey on a security key, from the enroll URL that
            //    /.well-known/passkey-endpoints names; the platform one is excluded.
            let securityKey = try await VirtualAuthenticator.add(to: tab, transport: "usb")
            try await fixture.open("/account/passkeys/new")
            try await fixture.screenshot("enroll")
            try await tab.click("#add-passkey")
            try await fixture.waitForPath("/account/passkeys", query: "?added=1")
            #expect(try await tab.evaluate("document.querySelectorAll('li.passkey').length") == .number(2))
            #expect(try await securityKey.credentials().count == 1)
            #expect(try await platform.credentials().count == 1, "excludeCredentials kept the platform from making a second one")
            try await fixture.screenshot("account", height: 1000)

            // 5. Rename it.
            let second = "document.querySelectorAll('li.passkey')[1]"
            try await tab.click("li.passkey:nth-child(2) [data-action=rename]")
            try await tab.fill("li.passkey:nth-child(2) .rename-form input", "Backup key")
            try await tab.click("li.passkey:nth-child(2) .rename-form button")
            try await tab.waitUntil("\(second).querySelector('.name').textContent === 'Backup key'")
            try await fixture.open("/account")
            try await tab.waitUntil("\(second).querySelector('.name').textContent === 'Backup key'")

            // 6. Revoke it: the page signals the accepted credentials, and the security key
            //    deletes the revoked one.
            try await tab.click("li.passkey:nth-child(2) [data-action=revoke]")
            try await tab.click("li.passkey:nth-child(2) [data-action=confirm-revoke]")
            try await tab.waitUntil("document.querySelectorAll('li.passkey').length === 1")
            _ = try await securityKey.waitForEvent("WebAuthn.credentialDeleted")
            #expect(try await securityKey.credentials().isEmpty)
            #expect(try await platform.credentials().count == 1, "the accepted passkey stays")
            try await securityKey.remove()

            // 7. Change the display name: signalCurrentUserDetails updates the passkey.
            try await tab.fill("#display-name", "Ada King")
            try await tab.click("#profile-form button")
            try await tab.waitUntil("document.querySelector('#status').textContent === 'Name saved.'")
            _ = try await platform.waitForEvent("WebAuthn.credentialUpdated")
            let stored = try #require(try await platform.credentials().first)
            #expect(stored["userDisplayName"]?.string == "Ada King")
            #expect(stored["userName"]?.string == "ada@example.com")

            // 8. A web app on another origin signs in with the authorization code flow and
            //    PKCE. prompt=login shows the hosted login page, which signs in by autofill;
            //    the app is not first-party, so the person is asked first, and no code exists
            //    before they click Allow.
            try await tab.navigate(to: fixture.appBase + "/")
            _ = try await tab.evaluate("startSignIn('&prompt=login').then(() => true)")
            try await tab.waitUntil("document.body.dataset.page === 'consent'", timeout: .seconds(15))
            #expect(try await tab.evaluate("location.pathname") == .string("/authorize"))
            let consentText = try await tab.evaluate("document.querySelector('main').innerText").string ?? ""
            #expect(consentText.contains("Allow Test web app?") && consentText.contains("See your email address"), "\(consentText)")
            #expect(try await fixture.count("SELECT count(*) FROM authorization_codes") == 0, "no code before the click")
            try await fixture.screenshot("consent", height: 500)
            try await tab.click("#consent-form button[value=allow]")
            try await tab.waitUntil("location.pathname === '/callback' && window.result !== undefined", timeout: .seconds(15))
            let result = try await tab.evaluate("window.result")
            #expect(result["error"] == nil, "\(result)")
            #expect(result["email"]?.string == "ada@example.com")
            #expect(result["name"]?.string == "Ada King")
            #expect(result["nonceMatches"] == .bool(true))
            try await fixture.screenshot("web-app-signed-in", height: 300)

            // 9. Asked once: the next sign-in comes straight back, even with prompt=none.
            _ = try await tab.evaluate("startSignIn('&prompt=none').then(() => true)")
            try await tab.waitUntil("location.pathname === '/callback' && window.result !== undefined && window.result.email !== undefined", timeout: .seconds(15))

            // 10. The account page lists the app; withdrawing ends its permission, and
            //     prompt=none then gets consent_required.
            try await fixture.open("/account")
            try await tab.click("#consents [data-action=revoke-consent]")
            try await tab.waitUntil("document.querySelector('#status').textContent.includes('Permission withdrawn')")
            #expect(try await tab.evaluate("document.querySelector('#consents') === null") == .bool(true))
            try await tab.navigate(to: fixture.appBase + "/")
            _ = try await tab.evaluate("startSignIn('&prompt=none').then(() => true)")
            try await tab.waitUntil("location.pathname === '/callback' && window.result !== undefined", timeout: .seconds(15))
            #expect(try await tab.evaluate("window.result")["error"] == .string("consent_required"))
        }
    }

    @Test func anUnknownPasskeyIsSignalledAndRemoved() async throws {
        try await BrowserFixture.run { fixture in
            let authenticator = try await VirtualAuthenticator.add(to: fixture.tab)
            // A passkey for this RP ID that the server has never seen (deleted server-side).
            let key = P256.Signing.PrivateKey()
            let credentialID = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
            try await authenticator.addCredential(.object([
                "credentialId": .string(credentialID), "isResidentCredential": .bool(true), "rpId": .string("localhost"),
                "privateKey": .string(key.derRepresentation.base64EncodedString()),
                "userHandle": .string(Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()), "signCount": .number(0),
            ]))
            try await fixture.open("/login")
            _ = try await authenticator.waitForEvent("WebAuthn.credentialDeleted")
            #expect(try await authenticator.credentials().isEmpty, "signalUnknownCredential removed it")
            try await fixture.tab.waitUntil("document.querySelector('#status.is-error').textContent.includes('no longer registered')")
            try await fixture.screenshot("login-unknown-passkey")
            #expect(try await fixture.tab.evaluate("location.pathname") == .string("/login"), "no session")
        }
    }

    @Test func aCancelledCeremonyChangesNothing() async throws {
        try await BrowserFixture.run { fixture in
            // No passkeys: the browser's request ends with NotAllowedError, as when a person cancels.
            _ = try await VirtualAuthenticator.add(to: fixture.tab)
            try await fixture.open("/login")
            #expect(try await fixture.tab.evaluate("document.querySelector('#username').getAttribute('autocomplete')") == .string("username webauthn"))
            try await fixture.screenshot("login")
            try await fixture.screenshot("login-phone", width: 390, height: 700, mobile: true)
            // Where the browser asks immediately, the first press finds nothing on this device
            // and the second asks with the dialog.
            try await fixture.tab.waitUntil("document.body.dataset.capabilities === 'read'")
            if try await fixture.tab.text("#login-form button") == "Sign in" {
                try await fixture.tab.click("#login-form button")
                try await fixture.tab.waitUntil("document.querySelector('#status').textContent.includes('No passkey or password')")
            }
            try await fixture.tab.click("#login-form button")
            try await fixture.tab.waitUntil("document.querySelector('#status.is-error').textContent.includes('cancelled')")
            try await fixture.open("/account")
            try await fixture.waitForPath("/login")

            // Cancelling a sign-up leaves no account: the same email can sign up afterwards.
            try await fixture.open("/signup")
            _ = try await fixture.tab.evaluate("""
                (() => { const original = navigator.credentials.create.bind(navigator.credentials);
                  navigator.credentials.create = () => Promise.reject(new DOMException('cancelled', 'NotAllowedError'));
                  window.restoreCreate = () => { navigator.credentials.create = original; }; })()
                """)
            try await fixture.tab.fill("#email", "grace@example.com")
            try await fixture.tab.click("#signup-form button")
            try await fixture.tab.waitUntil("document.querySelector('#status.is-error').textContent.includes('cancelled')")
            _ = try await fixture.tab.evaluate("restoreCreate()")
            try await fixture.tab.click("#signup-form button")
            try await fixture.waitForPath("/account")

            // A browser without WebAuthn is told so. (Last: WebAuthn needs the focused tab.)
            try await fixture.open("/")
            _ = try await fixture.tab.evaluate("fetch('/ui/logout', { method: 'POST', headers: { 'X-CSRF-Token': document.querySelector('meta[name=latchkey-csrf]').content } }).then(r => r.status)")
            let fresh = try await fixture.chromium.newTab()
            _ = try await fresh.send("Page.addScriptToEvaluateOnNewDocument", ["source": .string("delete window.PublicKeyCredential;")])
            try await fresh.navigate(to: fixture.base + "/login")
            try await fresh.waitUntil("!document.querySelector('#unsupported').hidden")
            #expect(try await fresh.evaluate("document.querySelector('#login-form button').disabled") == .bool(true))

        }
    }

    @Test func aPageOnAnotherOriginCannotSignIn() async throws {
        try await BrowserFixture.run { fixture in
            _ = try await VirtualAuthenticator.add(to: fixture.tab)
            try await fixture.open("/signup")
            try await fixture.tab.fill("#email", "ada@example.com")
            try await fixture.tab.click("#signup-form button")
            try await fixture.waitForPath("/account")

            // The web app's origin may call the API (CORS), but is not a WebAuthn origin of the RP.
            try await fixture.tab.navigate(to: fixture.appBase + "/")
            let outcome = try await fixture.tab.evaluate("""
                new Latchkey.Client({ baseURL: LATCHKEY, clientId: "demo" }).signIn()
                  .then(() => "signed in", (error) => (error.reason || error.name) + ": " + error.message)
                """)
            #expect(outcome.string?.hasPrefix("origin_not_allowed") == true, "\(outcome)")

            // Nor can it drive the hosted pages' session calls.
            let hosted = try await fixture.tab.evaluate("""
                fetch(LATCHKEY + "/ui/passkeys/options", { method: "POST", credentials: "include",
                  headers: { "Content-Type": "application/json" }, body: "{}" })
                  .then((response) => "status " + response.status, (error) => error.name)
                """)
            #expect(hosted == .string("TypeError"), "the preflight gets no CORS headers: \(hosted)")
        }
    }

    @Test func latchkeyJSWorksWithoutTheJSONHelpers() async throws {
        try await BrowserFixture.run { fixture in
            _ = try await VirtualAuthenticator.add(to: fixture.tab)
            try await fixture.open("/")
            let outcome = try await fixture.tab.evaluate("""
                (async () => {
                  delete PublicKeyCredential.parseCreationOptionsFromJSON;
                  delete PublicKeyCredential.parseRequestOptionsFromJSON;
                  delete PublicKeyCredential.prototype.toJSON;
                  if (PublicKeyCredential.parseCreationOptionsFromJSON || PublicKeyCredential.prototype.toJSON) return "helpers still present";
                  const client = new Latchkey.Client({ baseURL: location.origin, clientId: "demo",
                    scope: "openid email offline_access create:me:authentication_methods" });
                  const signup = await client.signUp({ email: "fallback@example.com", name: "Fallback" });
                  const login = await client.signIn();
                  window.accessToken = signup.access_token;
                  return { signup: !!signup.id_token, login: !!login.access_token, refresh: !!login.refresh_token };
                })().catch((error) => ({ error: error.name + ": " + error.message }))
                """)
            // A second authenticator for the enrollment, since the first holds an excluded passkey.
            _ = try await VirtualAuthenticator.add(to: fixture.tab, transport: "usb")
            let enrolled = try await fixture.tab.evaluate("""
                new Latchkey.Client({ baseURL: location.origin, clientId: "demo" }).enroll(window.accessToken)
                  .then((method) => method.type, (error) => error.name + ": " + error.message)
                """)
            #expect(outcome["signup"] == .bool(true), "\(outcome)")
            #expect(outcome["login"] == .bool(true))
            #expect(outcome["refresh"] == .bool(true))
            #expect(enrolled.string == "passkey")
        }
    }
}
