import Foundation
import LatchkeyWire
import Testing
import WebAuthnCorpus

/// WebAuthn Level 3 on the hosted pages and in `latchkey.js`, in headless Chromium with its
/// virtual authenticators against the real server process: immediate sign-in and its
/// fallback, the offers the browser's capabilities decide, a passkey on this device after a
/// sign-in with another's, PRF outputs that reach the page and nothing else, and the hints
/// and passkeys an application's policy sets.
@Suite("Hosted pages: WebAuthn Level 3 in a real browser", .serialized, .enabled(if: !BrowserFixture.skipped))
struct Level3BrowserTests {
    /// Before each page's own scripts: every WebAuthn request the tab makes is written down
    /// (`window.webauthnRequests`, kept across its pages: each request's `uiMode`,
    /// `mediation`, `password` and hints), and,
    /// with `autofill` off, the browser says it has no autofill, so that a passkey on the
    /// authenticator is used only when a button asks for it.
    static func recordRequests(_ tab: BrowserTab, autofill: Bool = false, capabilities: String? = nil) async throws {
        var source = """
            (() => {
              window.webauthnRequests = JSON.parse(sessionStorage.getItem("webauthnRequests") || "[]");
              const record = (kind, options) => {
                window.webauthnRequests.push({ kind, uiMode: options.uiMode || null, mediation: options.mediation || null,
                  password: !!options.password, hints: (options.publicKey && options.publicKey.hints) || [] });
                sessionStorage.setItem("webauthnRequests", JSON.stringify(window.webauthnRequests));
              };
              const get = navigator.credentials.get.bind(navigator.credentials), create = navigator.credentials.create.bind(navigator.credentials);
              navigator.credentials.get = (options) => { record("get", options); return get(options); };
              navigator.credentials.create = (options) => { record("create", options); return create(options); };
            })();
            """
        if !autofill { source += "PublicKeyCredential.isConditionalMediationAvailable = () => Promise.resolve(false);\n" }
        if let capabilities { source += "PublicKeyCredential.getClientCapabilities = () => Promise.resolve(\(capabilities));\n" }
        _ = try await tab.send("Page.addScriptToEvaluateOnNewDocument", ["source": .string(source)])
    }

    /// The last WebAuthn request the page made, as ``recordRequests(_:autofill:capabilities:)`` wrote it.
    static func lastRequest(_ tab: BrowserTab) async throws -> JSONValue {
        try await tab.evaluate("window.webauthnRequests[window.webauthnRequests.length - 1] || null")
    }

    /// Opens the sign-in page and waits until it has read the browser's capabilities.
    static func openSignIn(_ fixture: BrowserFixture, _ path: String = "/login") async throws {
        try await fixture.open(path)
        try await fixture.tab.waitUntil("document.body.dataset.capabilities === 'read'")
    }

    static func signUp(_ fixture: BrowserFixture, email: String) async throws {
        try await fixture.open("/signup")
        try await fixture.tab.fill("#email", email)
        try await fixture.tab.click("#signup-form button")
        try await PasswordUpgradeBrowserTests.waitForAccount(fixture)
    }

    static func signOut(_ fixture: BrowserFixture) async throws {
        try await fixture.open("/account")
        try await fixture.tab.click("#signout-form button")
        try await fixture.waitForPath("/login", query: "?signed_out=1")
    }

    @Test func immediateSignInShowsTheFormWithoutADialogThenSignsInWithThePasskeyHere() async throws {
        try await BrowserFixture.run { fixture in
            let tab = fixture.tab
            try await Self.recordRequests(tab)
            let platform = try await VirtualAuthenticator.add(to: tab)
            try await Self.openSignIn(fixture)
            let capabilities = try await tab.evaluate("PublicKeyCredential.getClientCapabilities ? PublicKeyCredential.getClientCapabilities() : {}")
            guard capabilities["immediateGet"] == .bool(true) else {
                // Where the browser cannot ask this way, the page is as it was: the button asks
                // with the browser's own dialog.
                print("immediate sign-in: this Chromium does not support immediate mediation; the page's fallback path is tested")
                #expect(try await tab.text("#login-form button") == "Sign in with a passkey")
                try await tab.click("#login-form button")
                try await tab.waitUntil("window.webauthnRequests.length === 1")
                #expect(try await Self.lastRequest(tab)["uiMode"] == .null)
                return
            }
            print("immediate sign-in: this Chromium supports immediate mediation")
            #expect(try await tab.text("#login-form button") == "Sign in")

            // Nothing for this site on this device: the browser answers at once, with no
            // dialog, and the form is there with the cursor in it.
            try await tab.click("#login-form button")
            try await tab.waitUntil("document.querySelector('#status').textContent.includes('No passkey or password')")
            let asked = try await Self.lastRequest(tab)
            #expect(asked["uiMode"] == .string("immediate"), "\(asked)")
            #expect(asked["password"] == .bool(true), "saved passwords are asked for too")
            #expect(try await tab.evaluate("document.activeElement.id") == .string("username"))
            #expect(try await tab.evaluate("sessionStorage.getItem('latchkey.immediate')") == .string("none"))
            #expect(try await tab.text("#login-form button") == "Sign in with a passkey", "pressed again, it asks with the dialog")
            #expect(try await tab.evaluate("document.querySelector('#status.is-error')") == .null, "no passkey here is not an error")

            // With a passkey on this device, the one button signs in.
            try await Self.signUp(fixture, email: "immediate@example.com")
            try await Self.signOut(fixture)
            try await tab.waitUntil("document.body.dataset.capabilities === 'read'")
            try await tab.click("#login-form button")
            try await PasswordUpgradeBrowserTests.waitForAccount(fixture)
            #expect(try await tab.evaluate("sessionStorage.getItem('latchkey.mediation')") == .string("immediate"))
            #expect(try await tab.text("main").contains("immediate@example.com"))
            #expect(try await platform.credentials().count == 1)

            // latchkey.js: the same, for an application's own page; null when there is nothing.
            try await fixture.open("/")
            let outcome = try await tab.evaluate("""
                (async () => {
                  const tokens = await Latchkey.signIn({ baseURL: location.origin, clientId: "demo", mode: "immediate" });
                  return { available: await Latchkey.isImmediateSignInAvailable(), signedIn: !!(tokens && tokens.access_token) };
                })().catch((error) => ({ error: error.name + ": " + error.message }))
                """)
            #expect(outcome["available"] == .bool(true), "\(outcome)")
            #expect(outcome["signedIn"] == .bool(true), "\(outcome)")
            try await platform.remove()
            _ = try await VirtualAuthenticator.add(to: tab)
            let none = try await tab.evaluate("""
                Latchkey.signIn({ baseURL: location.origin, clientId: "demo", mode: "immediate" })
                  .then((tokens) => tokens === null ? "null" : "tokens", (error) => error.name + ": " + error.message)
                """)
            #expect(none == .string("null"), "nothing on this device: null, for the application to show its form")
        }
    }

    /// The page offers what the browser can do, and nothing else: "use a phone or tablet"
    /// only with the hybrid transport; the automatic upgrade after a password only with
    /// conditional create; the immediate button only with immediate mediation.
    @Test func theSignInPageFollowsTheBrowsersCapabilities() async throws {
        try await BrowserFixture.run { fixture in
            let tab = fixture.tab
            let http = RawHTTP(fixture.server)
            let created = try await http.json("POST", "/dbconnections/signup", ["client_id": "demo", "email": "caps@example.com", "password": "caps's long password"])
            #expect(created.status == 200, "\(created.text)")
            _ = try await VirtualAuthenticator.add(to: tab)

            // A browser that reaches phones, and can neither create conditionally nor ask immediately.
            try await Self.recordRequests(tab, capabilities: "{ hybridTransport: true, conditionalCreate: false, immediateGet: false }")
            try await Self.openSignIn(fixture)
            #expect(try await tab.evaluate("document.querySelector('#hybrid-option').hidden") == .bool(false))
            #expect(try await tab.text("#login-form button") == "Sign in with a passkey")
            try await tab.click("#use-phone")
            try await tab.waitUntil("window.webauthnRequests.length === 1")
            #expect(try await Self.lastRequest(tab)["hints"] == .array([.string("hybrid")]), "the request asks for a phone first")
            try await tab.waitUntil("document.querySelector('#status.is-error') !== null")

            // A password sign-in does not try the automatic upgrade this browser cannot do.
            try await tab.click("#password-option summary")
            try await tab.fill("#password-username", "caps@example.com")
            try await tab.fill("#password", "caps's long password")
            try await tab.click("#password-form button")
            try await PasswordUpgradeBrowserTests.waitForAccount(fixture)
            #expect(try await tab.evaluate("sessionStorage.getItem('latchkey.upgraded')") == .string("false"))
            #expect(try await tab.evaluate("window.webauthnRequests.filter((request) => request.kind === 'create').length") == .number(0))

            // A browser that reaches no phone is not offered one.
            try await Self.signOut(fixture)
            let fresh = try await fixture.chromium.newTab()
            try await Self.recordRequests(fresh, capabilities: "{ hybridTransport: false }")
            try await fresh.navigate(to: fixture.base + "/login")
            try await fresh.waitUntil("document.body.dataset.capabilities === 'read'")
            #expect(try await fresh.evaluate("document.querySelector('#hybrid-option').hidden") == .bool(true))
        }
    }

    /// An app asked for a stronger sign-in (`acr_values=phrh`): the page says so, and the
    /// browser is asked for a passkey bound to one device first.
    @Test func aStepUpAsksForAPasskeyBoundToOneDevice() async throws {
        try await BrowserFixture.run { fixture in
            let tab = fixture.tab
            try await Self.recordRequests(tab)
            _ = try await VirtualAuthenticator.add(to: tab)
            try await Self.openSignIn(fixture, "/login?reauthenticate=1&step_up=3")
            #expect(try await tab.text("#status").contains("stays on one device"))
            try await tab.fill("#username", "someone@example.com")
            try await tab.click("#login-form button")
            try await tab.waitUntil("window.webauthnRequests.length === 1")
            #expect(try await Self.lastRequest(tab)["hints"] == .array([.string("security-key"), .string("client-device")]))
        }
    }

    /// A sign-in with a passkey on a phone (the hybrid transport) offers one on this device;
    /// "don't ask again" is remembered on this device, and "Add a passkey" makes one here.
    @Test func aSignInWithAPhonesPasskeyOffersOneOnThisDevice() async throws {
        try await BrowserFixture.run { fixture in
            let tab = fixture.tab
            try await Self.recordRequests(tab)
            var phone = try await VirtualAuthenticator.add(to: tab, transport: "cable")
            try await Self.signUp(fixture, email: "phone@example.com")
            #expect(try await fixture.count("SELECT count(*) FROM credentials WHERE transports LIKE '%hybrid%'") == 1, "the phone's passkey is reached over hybrid")

            func signInWithThePhone() async throws {
                try await Self.signOut(fixture)
                try await tab.waitUntil("document.body.dataset.capabilities === 'read'")
                try await tab.fill("#username", "phone@example.com")
                try await tab.click("#login-form button")
            }
            let offered = "!document.querySelector('#local-passkey-offer').hidden"

            // Offered; "not now, and don't ask again".
            try await signInWithThePhone()
            try await tab.waitUntil(offered, timeout: .seconds(20))
            #expect(try await tab.evaluate("document.querySelector('#sign-in-form').hidden") == .bool(true))
            try await fixture.screenshot("login-local-passkey-offer")
            try await tab.click("#never-local-passkey")
            try await tab.click("#skip-local-passkey")
            try await PasswordUpgradeBrowserTests.waitForAccount(fixture)
            #expect(try await tab.evaluate("localStorage.getItem('latchkey.localPasskeyOffer')") == .string("never"))

            // Not asked again on this device: straight to the account.
            try await signInWithThePhone()
            try await PasswordUpgradeBrowserTests.waitForAccount(fixture)

            // Asked again once forgotten; "Add a passkey" makes one on this device.
            _ = try await tab.evaluate("localStorage.removeItem('latchkey.localPasskeyOffer')")
            try await signInWithThePhone()
            try await tab.waitUntil(offered, timeout: .seconds(20))
            try await phone.remove()
            phone = try await VirtualAuthenticator.add(to: tab)
            try await tab.click("#add-local-passkey")
            try await PasswordUpgradeBrowserTests.waitForAccount(fixture)
            let created = try await tab.evaluate("window.webauthnRequests.filter((request) => request.kind === 'create').pop()")
            #expect(created["hints"] == .array([.string("client-device")]), "the new passkey is for this device: \(created)")
            #expect(try await phone.credentials().count == 1)
            #expect(try await tab.evaluate("document.querySelectorAll('li.passkey').length") == .number(2))
        }
    }

    /// PRF through latchkey.js, with the browser's JSON helpers and with its own encoding:
    /// the inputs reach the authenticator (the same salt gives the same secret, another salt
    /// another), the outputs reach the page, and the server never receives them.
    @Test(arguments: [true, false])
    func prfOutputsReachThePageAndNothingElse(withJSONHelpers: Bool) async throws {
        try await BrowserFixture.run { fixture in
            let tab = fixture.tab
            let authenticator = try await VirtualAuthenticator.add(to: tab, options: ["hasPrf": .bool(true)])
            try await fixture.open("/")
            let removeHelpers = withJSONHelpers ? "" : """
                delete PublicKeyCredential.parseCreationOptionsFromJSON;
                delete PublicKeyCredential.parseRequestOptionsFromJSON;
                delete PublicKeyCredential.prototype.toJSON;
                """
            let outcome = try await tab.evaluate("""
                (async () => {
                  \(removeHelpers)
                  const sent = [];
                  const originalFetch = window.fetch;
                  window.fetch = (url, init) => { sent.push(String((init && init.body) || "")); return originalFetch(url, init); };
                  const salt = (text) => Latchkey.base64url.encode(new TextEncoder().encode(text));
                  const client = new Latchkey.Client({ baseURL: location.origin, clientId: "demo" });
                  const signup = await client.signUp({ email: "prf@example.com" }, { extensions: { prf: { eval: { first: salt("one") } } } });
                  const both = await client.signIn({ extensions: { prf: { eval: { first: salt("one"), second: salt("two") } } } });
                  const again = await client.signIn({ extensions: { prf: { eval: { first: salt("one") } } } });
                  return { created: signup.clientExtensionResults.prf || null, first: both.clientExtensionResults.prf.results.first,
                    second: both.clientExtensionResults.prf.results.second, again: again.clientExtensionResults.prf.results.first,
                    sent: sent.join("\\n") };
                })().catch((error) => ({ error: error.name + ": " + error.message }))
                """)
            guard case .string(let first) = outcome["first"], case .string(let second) = outcome["second"] else {
                throw TestFailure("no PRF results on the page: \(outcome)")
            }
            #expect(outcome["created"]?["enabled"] == .bool(true), "\(outcome)")
            #expect(Base64URL.decode(first)?.count == 32)
            #expect(outcome["again"] == .string(first), "the same salt, the same secret")
            #expect(first != second, "another salt, another secret")
            let sent = outcome["sent"]?.string ?? ""
            #expect(sent.contains("\"prf\""), "the inputs go to the server for the options")
            #expect(!sent.contains(first) && !sent.contains(second), "the outputs do not")
            #expect(!fixture.server.output.text.contains(first))

            // evalByCredential: the salt for the passkey the browser picks, by its ID.
            guard let credentialID = try await authenticator.credentials().first?["credentialId"]?.string,
                let raw = Data(base64Encoded: credentialID)
            else { throw TestFailure("the authenticator holds no passkey") }
            let byCredential = try await tab.evaluate("""
                (async () => {
                  \(removeHelpers)
                  const id = \(BrowserTab.literal(Base64URL.encode([UInt8](raw))));
                  const salt = Latchkey.base64url.encode(new TextEncoder().encode("one"));
                  const tokens = await new Latchkey.Client({ baseURL: location.origin, clientId: "demo" })
                    .signIn({ username: "prf@example.com", extensions: { prf: { evalByCredential: { [id]: { first: salt } } } } });
                  return tokens.clientExtensionResults.prf.results.first;
                })().catch((error) => error.name + ": " + error.message)
                """)
            #expect(byCredential == .string(first), "the same passkey and salt, by credential")
        }
    }

    /// An application's policy on the hosted pages: its hints are in the options, and a
    /// device-bound-only policy refuses a synced passkey and keeps nothing of the attempt.
    @Test func thePolicysHintsAreSentAndASyncedPasskeyIsRefused() async throws {
        let policy = """
            passkeys:
              accept: device_bound
              hints: [security-key]
            """
        try await BrowserFixture.run(extraConfiguration: policy) { fixture in
            let tab = fixture.tab
            try await Self.recordRequests(tab)
            let synced = try await VirtualAuthenticator.add(
                to: tab, options: ["defaultBackupEligibility": .bool(true), "defaultBackupState": .bool(true)]
            )
            try await fixture.open("/signup")
            try await tab.fill("#email", "synced@example.com")
            try await tab.click("#signup-form button")
            try await tab.waitUntil("document.querySelector('#status.is-error') !== null", timeout: .seconds(20))
            let refusal = try await tab.text("#status")
            #expect(refusal.contains("device-bound passkeys only"), "\(refusal)")
            #expect(try await Self.lastRequest(tab)["hints"] == .array([.string("security-key")]))
            #expect(try await fixture.count("SELECT count(*) FROM users") == 0, "a refused sign-up leaves no account")
            #expect(try await fixture.count("SELECT count(*) FROM credentials") == 0)

            // A device-bound passkey is welcome.
            try await synced.remove()
            _ = try await VirtualAuthenticator.add(to: tab)
            try await tab.click("#signup-form button")
            try await PasswordUpgradeBrowserTests.waitForAccount(fixture)
            #expect(try await fixture.count("SELECT count(*) FROM credentials WHERE backup_eligible = 0") == 1)
            #expect(try await tab.text("li.passkey .badge") == "This device only")
        }
    }
}
