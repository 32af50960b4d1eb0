import Foundation
import Testing
import WebAuthnCorpus

/// One real browser against one real `latchkey serve` process with a SQLite file, plus a
/// small web app on another origin that signs in through OAuth. The server's port is picked
/// first because the hosted pages' origin is part of its configuration.
final class BrowserFixture: @unchecked Sendable {
    let directory: TemporaryDirectory
    let server: ServerProcess
    let app: FixedResponseServer
    let chromium: ChromiumProcess
    let tab: BrowserTab
    /// The hosted pages' origin, `http://localhost:<port>`: a secure context with RP ID localhost.
    let base: String
    /// The test web app's origin.
    let appBase: String

    /// The AAGUID Chromium's virtual authenticator reports, given a provider name and icon in
    /// the names file so that the pages show both.
    static let virtualAAGUID = "01020304-0506-0708-0102-030405060708"
    static let providerName = "Chromium Virtual Authenticator"
    static let providerIcon: String = {
        let svg = ##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1a73e8"/><circle cx="16" cy="13" r="6" fill="#fff"/><rect x="14" y="17" width="4" height="10" fill="#fff"/></svg>"##
        return "data:image/svg+xml;base64," + Data(svg.utf8).base64EncodedString()
    }()

    /// Where screenshots go, when `LATCHKEY_SCREENSHOTS` names a directory.
    static let screenshotDirectory = ProcessInfo.processInfo.environment["LATCHKEY_SCREENSHOTS"]

    /// Whether the browser tests were explicitly turned off.
    static let skipped = ProcessInfo.processInfo.environment["LATCHKEY_SKIP_BROWSER_TESTS"] == "1"

    /// Starts the browser, the server and the app. `appPages` gives the app's pages from the
    /// server's and the app's origins; `appIsRelyingPartyOrigin` lists the app's origin in
    /// `relying_party.origins`, as a custom UI that runs ceremonies must be.
    static func start(
        appPages: (_ latchkey: String, _ app: String) -> [String: FixedResponseServer.Answer] = TestWebApp.pages,
        appIsRelyingPartyOrigin: Bool = false,
        extraConfiguration: String = ""
    ) async throws -> BrowserFixture {
        guard ChromiumProcess.executable != nil else {
            throw TestFailure(
                "Chromium is not installed at /usr/lib/chromium/chromium (scripts/test.sh installs it; or set LATCHKEY_CHROMIUM, or LATCHKEY_SKIP_BROWSER_TESTS=1)"
            )
        }
        // The ports must be known before either server starts (each names the other), so
        // they are picked free and then bound; another process can take one in between, and
        // then the start is tried again on new ones.
        var attempt = 1
        while true {
            do {
                return try await start(on: (try freePort(), try freePort()), appPages: appPages, appIsRelyingPartyOrigin: appIsRelyingPartyOrigin, extraConfiguration: extraConfiguration)
            } catch let error as TestFailure where attempt < 3 && error.description.contains("already in use") {
                attempt += 1
            }
        }
    }

    private static func start(
        on ports: (server: Int, app: Int),
        appPages: (_ latchkey: String, _ app: String) -> [String: FixedResponseServer.Answer],
        appIsRelyingPartyOrigin: Bool,
        extraConfiguration: String
    ) async throws -> BrowserFixture {
        let directory = try TemporaryDirectory()
        let port = ports.server
        let base = "http://localhost:\(port)"
        let appPort = ports.app
        let appBase = "http://localhost:\(appPort)"
        let appServer = try await FixedResponseServer.start(appPages(base, appBase), port: appPort)

        let names = [virtualAAGUID: ["name": providerName, "icon_light": providerIcon, "icon_dark": providerIcon]]
        try JSONSerialization.data(withJSONObject: names).write(to: URL(fileURLWithPath: directory.path("aaguids.json")))
        let configuration = """
            server: { public_url: \(base) }
            relying_party: { id: localhost, name: Latchkey Demo, origins: [\(base)\(appIsRelyingPartyOrigin ? ", " + appBase : "")] }
            authenticator_names: \(directory.path("aaguids.json"))
            logging: { requests: true }
            clients:
              - client_id: demo
                name: Demo app
                grant_types: [webauthn, refresh_token, password]
              - client_id: spa
                name: Test web app
                redirect_uris: [\(appBase)/callback]
            \(extraConfiguration)
            """
        try configuration.write(toFile: directory.path("latchkey.yaml"), atomically: true, encoding: .utf8)
        let server: ServerProcess
        do {
            server = try await ServerProcess.start(
                arguments: ["--config", directory.path("latchkey.yaml"), "--database", "sqlite:" + directory.path("latchkey.sqlite")],
                workingDirectory: directory.url, port: port
            )
        } catch {
            await appServer.stop()
            throw error
        }
        let chromium = try ChromiumProcess.launch()
        let tab = try await chromium.newTab()
        return BrowserFixture(directory: directory, server: server, app: appServer, chromium: chromium, tab: tab, base: base, appBase: appBase)
    }

    /// Runs `body` with a fresh browser, server and app (see ``start(appPages:appIsRelyingPartyOrigin:)``),
    /// stopping all three whatever happens.
    static func run(
        appPages: (_ latchkey: String, _ app: String) -> [String: FixedResponseServer.Answer] = TestWebApp.pages,
        appIsRelyingPartyOrigin: Bool = false,
        extraConfiguration: String = "",
        _ body: (BrowserFixture) async throws -> Void
    ) async throws {
        let fixture = try await start(appPages: appPages, appIsRelyingPartyOrigin: appIsRelyingPartyOrigin, extraConfiguration: extraConfiguration)
        do {
            try await body(fixture)
        } catch {
            await fixture.stop()
            throw error
        }
        await fixture.stop()
    }

    private init(directory: TemporaryDirectory, server: ServerProcess, app: FixedResponseServer, chromium: ChromiumProcess, tab: BrowserTab, base: String, appBase: String) {
        self.directory = directory
        self.server = server
        self.app = app
        self.chromium = chromium
        self.tab = tab
        self.base = base
        self.appBase = appBase
    }

    func stop() async {
        chromium.close()
        server.stop()
        await app.stop()
    }

    /// Loads a hosted page.
    func open(_ path: String) async throws {
        try await tab.navigate(to: base + path)
    }

    /// One number the server's database answers `sql` with, read by another process (as an
    /// operator would), so the check does not go through the code under test.
    func count(_ sql: String) async throws -> Int {
        let text = try await string(sql)
        guard let value = Int(text) else { throw TestFailure("sqlite3 \(sql): \(text)") }
        return value
    }

    /// One text the server's database answers `sql` with, read the same way.
    func string(_ sql: String) async throws -> String {
        let script = "import sqlite3, sys; print(sqlite3.connect('file:' + sys.argv[1] + '?mode=ro', uri=True).execute(sys.argv[2]).fetchone()[0])"
        let run = try await ExternalCommand.run("/usr/bin/python3", ["-c", script, directory.path("latchkey.sqlite"), sql])
        guard run.status == 0 else { throw TestFailure("sqlite3 \(sql): \(run.output)") }
        return run.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Waits until the page is `path` (and, optionally, has `query`).
    func waitForPath(_ path: String, query: String? = nil, timeout: Duration = .seconds(10)) async throws {
        var condition = "location.origin === \(BrowserTab.literal(base)) && location.pathname === \(BrowserTab.literal(path)) && document.readyState === 'complete'"
        if let query { condition += " && location.search === \(BrowserTab.literal(query))" }
        try await tab.waitUntil(condition, timeout: timeout)
    }

    /// Saves a screenshot named `name` when screenshots were asked for.
    func screenshot(_ name: String, width: Int = 900, height: Int = 760, mobile: Bool = false) async throws {
        guard let directory = Self.screenshotDirectory else { return }
        _ = try await tab.send("Emulation.setDeviceMetricsOverride", [
            "width": .number(Double(width)), "height": .number(Double(height)), "deviceScaleFactor": .number(1), "mobile": .bool(mobile),
        ])
        try await tab.screenshot(to: directory + "/" + name + ".png")
        _ = try await tab.send("Emulation.clearDeviceMetricsOverride")
    }

    /// The text of the page's alert line.
    func errorText() async throws -> String {
        try await tab.evaluate("(document.querySelector('#status.is-error') || {}).textContent || ''").string ?? ""
    }
}

/// A tiny web app on another origin: it signs in with the authorization code flow and PKCE,
/// exchanges the code with `fetch` (CORS), and reads `/userinfo`. It also includes
/// `latchkey.js`, to run a ceremony from an origin the relying party does not allow.
enum TestWebApp {
    static func pages(latchkey: String, app: String) -> [String: FixedResponseServer.Answer] {
        let page = FixedResponseServer.Answer(contentType: "text/html; charset=utf-8", body: html(latchkey: latchkey, app: app))
        return ["/": page, "/callback": page]
    }

    static func html(latchkey: String, app: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>Test web app</title>
        <script src="\(latchkey)/latchkey.js"></script></head>
        <body style="font: 16px system-ui; margin: 2rem">
        <h1>Test web app</h1>
        <p id="out">Signed out.</p>
        <script>
        const LATCHKEY = \(String(decoding: JSONValue.string(latchkey).data(), as: UTF8.self));
        const REDIRECT = \(String(decoding: JSONValue.string(app + "/callback").data(), as: UTF8.self));
        function random() { return Latchkey.base64url.encode(crypto.getRandomValues(new Uint8Array(32))); }
        async function challengeFor(verifier) {
          return Latchkey.base64url.encode(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
        }
        window.startSignIn = async function (extra) {
          const verifier = random(), state = random(), nonce = random();
          sessionStorage.setItem("pkce", JSON.stringify({ verifier, state, nonce }));
          const query = new URLSearchParams({ client_id: "spa", redirect_uri: REDIRECT, response_type: "code",
            scope: "openid profile email", state, nonce, code_challenge: await challengeFor(verifier), code_challenge_method: "S256" });
          location.assign(LATCHKEY + "/authorize?" + query + (extra || ""));
        };
        async function finish() {
          const params = new URLSearchParams(location.search);
          const saved = JSON.parse(sessionStorage.getItem("pkce") || "{}");
          if (params.get("error")) { window.result = { error: params.get("error") }; return; }
          if (params.get("state") !== saved.state) { window.result = { error: "state mismatch" }; return; }
          const form = new URLSearchParams({ grant_type: "authorization_code", client_id: "spa", code: params.get("code"),
            redirect_uri: REDIRECT, code_verifier: saved.verifier });
          const tokens = await (await fetch(LATCHKEY + "/oauth/token", { method: "POST", body: form })).json();
          if (!tokens.access_token) { window.result = { error: tokens.error }; return; }
          const info = await (await fetch(LATCHKEY + "/userinfo", { headers: { Authorization: "Bearer " + tokens.access_token } })).json();
          const idClaims = JSON.parse(new TextDecoder().decode(Latchkey.base64url.decode(tokens.id_token.split(".")[1])));
          window.result = { email: info.email, name: info.name, nonceMatches: idClaims.nonce === saved.nonce };
          document.getElementById("out").textContent = "Signed in as " + info.email + " (" + (info.name || "no name") + ")";
        }
        if (location.pathname === "/callback") {
          finish().catch(function (error) { window.result = { error: String(error) }; });
        }
        </script>
        </body></html>
        """
    }
}
