import Foundation
import LatchkeyClient
import Testing
import WebAuthn

/// The rules every face enforces, against the whole application in process and its SQLite
/// file (the keys at rest across restarts of the real `latchkey` process):
/// removing a password ends what a password started, and tokens say how each session signed
/// in; a stale sign-in is refused by every face; a `HEAD` starts nothing; the keys at rest
/// are sealed under the operator's key.
@Suite("Rules every face enforces: the whole application", .timeLimit(.minutes(10)))
struct RulesEveryFaceProcessTests {
    /// The password journey's clients, with the IDaaS samples' application (whose iOS app
    /// gives the apps' origin), a first-party web app, and the IDaaS face's backend.
    static let configuration = PasswordJourneyTests.configuration + """

          - client_id: \(IDaaSSampleApp.applicationID)
            name: IDaaS sample apps
            ios: { team_id: ABCDE12345, bundle_ids: [com.example.idaas] }
          - client_id: spa
            name: Single-page app
            redirect_uris: [http://localhost:5173/callback]
            first_party: true
        \(IDaaSSampleApp.facesYAML)
        """

    static let scopes = PasskeyUser.allScopes

    /// Runs a SQL query against the server's SQLite file with Python's `sqlite3`, returning
    /// each row's columns joined by `|`.
    static func query(_ directory: TemporaryDirectory, _ sql: String) async throws -> [String] {
        let script = "import sqlite3, sys\nfor row in sqlite3.connect(sys.argv[1]).execute(sys.argv[2]): print('|'.join(str(v) for v in row))"
        let run = try await ExternalCommand.run("/usr/bin/python3", ["-c", script, directory.path("latchkey.sqlite"), sql])
        guard run.status == 0 else { throw TestFailure("python3 sqlite3: \(run.output)") }
        return run.output.split(separator: "\n").map(String.init)
    }

    /// `GET /userinfo` with an access token: 200 while its session lives.
    static func userinfo(_ http: RawHTTP, _ token: String) async throws -> Int {
        try await http.send("GET", "/userinfo", contentType: nil, headers: ["Authorization": "Bearer \(token)"]).status
    }

    static func form(_ http: RawHTTP, _ fields: [String: String]) async throws -> RawHTTP.Reply {
        let body = fields.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(separator: "&")
        return try await http.send("POST", "/oauth/token", body: Data(body.utf8), contentType: "application/x-www-form-urlencoded")
    }

    // MARK: - Sessions a password started

    /// Removing a password ends, at once, every session a password sign-in started, in
    /// every face: refresh and access tokens of the password grant, the hosted pages'
    /// browser session, and the tokens of an authorization code issued to it. Sessions a
    /// passkey started go on. Every token says how its session signed in: `pwd` for a
    /// password, also through the code flow of a password browser session.
    @Test func removingAPasswordEndsTheSessionsItStarted() async throws {
        let directory = try TemporaryDirectory()
        let server = try await RouterServer.start(yaml: Self.configuration, in: directory)
        defer { server.stop() }
        let http = RawHTTP(server)
        let password = "jo's long passphrase"
        #expect(try await http.json("POST", "/dbconnections/signup", ["client_id": "demo", "email": "jo@example.com", "password": password]).status == 200)

        // A: the password grant.
        let grant = try await Self.form(http, ["grant_type": "password", "client_id": "demo", "username": "jo@example.com", "password": password, "scope": Self.scopes])
        #expect(grant.status == 200, "\(grant.text)")
        let passwordAccess = try #require(grant.json["access_token"] as? String)
        let passwordRefresh = try #require(grant.json["refresh_token"] as? String)
        #expect(claims(of: passwordAccess)["amr"] as? [String] == ["pwd"])
        let userID = try #require(claims(of: passwordAccess)["sub"] as? String)

        // B: a password sign-in on the hosted pages; C: a code issued to that browser.
        let browser = BrowserAgent(server)
        try await browser.get("/login")
        let signedIn = try await browser.call("POST", "/ui/password-session", ["username": "jo@example.com", "password": password])
        #expect(signedIn.status == 200, "\(signedIn.text)")
        let authorized = try await browser.get(HostedPagesTests.authorizePath())
        let code = try #require(HostedPagesTests.query(authorized.header("Location"))["code"], "\(authorized.status) \(authorized.header("Location") ?? "")")
        let exchanged = try await HostedPagesTests().exchange(http, code: code)
        #expect(exchanged.status == 200, "\(exchanged.text)")
        let codeAccess = try #require(exchanged.json["access_token"] as? String)
        #expect(claims(of: codeAccess)["amr"] as? [String] == ["pwd"], "a password's browser session gives tokens that say so")
        #expect(claims(of: try #require(exchanged.json["id_token"] as? String))["amr"] as? [String] == ["pwd"])

        // D: a passkey, added with A's token, signs in.
        var jo = PasskeyUser(server)
        try await jo.enroll(accessToken: passwordAccess)
        let passkey = try await jo.signIn()
        #expect(claims(of: passkey.accessToken)["amr"] as? [String] == ["pop", "user"])

        // The password goes, from the passkey's session.
        _ = try await jo.client.removePassword(userID: userID, accessToken: passkey.accessToken)
        #expect(try await Self.userinfo(http, passwordAccess) == 401, "A's access token")
        let refused = try await Self.form(http, ["grant_type": "refresh_token", "client_id": "demo", "refresh_token": passwordRefresh])
        #expect(refused.status == 403 && refused.json["error"] as? String == "invalid_grant", "A's refresh token: \(refused.text)")
        let account = try await browser.get("/account")
        #expect(account.status == 302 && account.header("Location") == "/login?return_to=/account", "B's browser session")
        #expect(try await Self.userinfo(http, codeAccess) == 401, "C's access token")
        #expect(try await Self.userinfo(http, passkey.accessToken) == 200, "D lives on")
        #expect(try await jo.client.refresh(refreshToken: try #require(passkey.refreshToken)).accessToken.isEmpty == false)
    }

    /// On the hosted pages, removing the password from a session the password started ends
    /// that session too: the page is sent to sign in with the passkey, which says why.
    @Test func theHostedPagesSendAPasswordSessionToSignInAgain() async throws {
        let directory = try TemporaryDirectory()
        let server = try await RouterServer.start(yaml: Self.configuration, in: directory)
        defer { server.stop() }
        let http = RawHTTP(server)
        let password = "kim's long passphrase"
        #expect(try await http.json("POST", "/dbconnections/signup", ["client_id": "demo", "email": "kim@example.com", "password": password]).status == 200)
        let browser = BrowserAgent(server)
        try await browser.get("/login")
        #expect(try await browser.call("POST", "/ui/password-session", ["username": "kim@example.com", "password": password]).status == 200)
        // A passkey first, from the account page.
        try await browser.get("/account/passkeys/new")
        let options = try await browser.call("POST", "/ui/passkeys/options")
        #expect(options.status == 200, "\(options.text)")
        let ceremony = try JSONDecoder().decode(BrowserAgent.Ceremony<PublicKeyCredentialCreationOptionsJSON>.self, from: options.body)
        let (response, _) = try browser.authenticator.makeCredential(ceremony.options, origin: browser.origin)
        let added = try await browser.call(
            "POST", "/ui/passkeys", ["auth_session": ceremony.auth_session, "response": try JSONSerialization.jsonObject(with: JSONEncoder().encode(response))]
        )
        #expect(added.status == 201, "\(added.text)")

        let removed = try await browser.call("DELETE", "/ui/password")
        #expect(removed.status == 200 && removed.json["redirect_to"] as? String == "/login?password_removed=1", "\(removed.text)")
        #expect(BrowserAgent.setCookies(removed).contains { $0.hasPrefix("latchkey_session=;") && $0.contains("Max-Age=0") })
        #expect(browser.cookies["latchkey_session"] == nil)
        let notice = try await browser.get("/login?password_removed=1")
        #expect(notice.text.contains("Your password is removed"), "\(notice.text.prefix(400))")
    }

    // MARK: - Step-up in every face

    /// A sign-in older than `passkeys.sensitive_action_max_age` cannot add, turn off or
    /// remove a passkey in any face; the same sessions may still read and rename.
    @Test func aStaleSignInCannotChangeHowAnAccountSignsInInAnyFace() async throws {
        let directory = try TemporaryDirectory()
        let server = try await RouterServer.start(yaml: Self.configuration + "\npasskeys: { sensitive_action_max_age: 1m }", in: directory)
        defer { server.stop() }
        let http = RawHTTP(server)

        // Kratos: a registration flow, then a settings flow from its session.
        var kratos = KratosSampleApp(server, platform: .iOS)
        let registered = try await kratos.signUp(email: "ada@example.com")
        let kratosToken = try #require(registered.json["session_token"] as? String, "\(registered.text)")
        let settings = try await kratos.initialize("/self-service/settings/api", token: kratosToken).json

        // IDaaS: Bob signs up, an administrator adds a key for him, he signs in.
        var idaas = IDaaSSampleApp(server, platform: .iOS)
        var bob = PasskeyUser(server)
        let bobTokens = try await bob.signUp(.init(email: "bob@example.com"))
        let admin = try await IDaaSFaceTests.admin(idaas)
        let (uuid, challenge) = try await IDaaSFaceTests.registrationChallenge(idaas, email: "bob@example.com", admin: admin)
        let enrolled = try await IDaaSFaceTests.complete(idaas, uuid, try idaas.createPasskey(challenge, name: "Work key", username: "bob@example.com"), admin: admin)
        let fidoID = try #require(enrolled.json["id"] as? String, "\(enrolled.text)")
        let idaasSession = try #require(try await idaas.signIn(index: 0).json["token"] as? String)

        // The hosted pages: Cy signs up there.
        let cy = BrowserAgent(server)
        #expect(try await cy.signUp(email: "cy@example.com").status == 200)

        server.clock.advance(by: 62)

        let add = try kratos.create(try KratosSampleApp.creationOptions(settings, wrapped: false), name: "ada@example.com")
        let kratosStale = try await kratos.submit(
            settings, [("method", "passkey"), ("passkey_settings_register", try kratos.credentialString(add))], headers: ["X-Session-Token": kratosToken]
        )
        #expect(kratosStale.status == 403, "\(kratosStale.text)")
        #expect((kratosStale.json["error"] as? [String: Any])?["id"] as? String == "session_refresh_required")
        #expect((kratosStale.json["redirect_browser_to"] as? String)?.contains("/self-service/login/browser?refresh=true") == true)

        for (method, path, body) in [("PUT", "/api/web/v1/self/fidotokens/\(fidoID)", #"{"state":"INACTIVE"}"#), ("DELETE", "/api/web/v1/self/fidotokens/\(fidoID)", nil)] {
            let refused = try await http.send(method, path, body: body.map { Data($0.utf8) }, headers: ["Authorization": idaasSession])
            #expect(refused.status == 403 && refused.json["errorCode"] as? String == "reauthentication_required", "\(method) \(path): \(refused.text)")
        }
        let renamed = try await http.send("PUT", "/api/web/v1/self/fidotokens/\(fidoID)", body: Data(#"{"name":"Laptop"}"#.utf8), headers: ["Authorization": idaasSession])
        #expect(renamed.status == 200, "renaming changes nothing about signing in: \(renamed.text)")

        let methods = try await bob.client.authenticationMethods(accessToken: bobTokens.accessToken)
        let myAccount = await expectAPIError(status: 401) {
            try await bob.client.deleteAuthenticationMethod(id: try #require(methods.last?.id), accessToken: bobTokens.accessToken)
        }
        #expect(myAccount?.reason == "insufficient_user_authentication")

        try await cy.get("/account")
        let options = try await cy.call("POST", "/ui/passkeys/options")
        #expect(options.status == 401 && options.json["reason"] as? String == "insufficient_user_authentication", "\(options.text)")
    }

    // MARK: - HEAD

    /// A `HEAD` of a `GET` that starts a flow is refused without running it: no flow is
    /// stored, and the start limit counts nothing.
    @Test func aHeadStartsNoFlow() async throws {
        let directory = try TemporaryDirectory()
        let server = try await RouterServer.start(yaml: Self.configuration + "\nlimits: { ceremony_starts_per_minute: 2 }", in: directory)
        defer { server.stop() }
        let http = RawHTTP(server)
        for path in ["/self-service/login/api", "/self-service/registration/api", "/self-service/login/browser"] {
            for _ in 0..<3 {
                let head = try await http.send("HEAD", path, contentType: nil)
                #expect(head.status == 405 && head.header("Allow") == "GET", "HEAD \(path): \(head.status)")
            }
        }
        #expect(try await Self.query(directory, "SELECT count(*) FROM interactive_flows") == ["0"])
        #expect(try await http.send("GET", "/self-service/login/api", contentType: nil).status == 200)
        #expect(try await http.send("GET", "/self-service/login/api", contentType: nil).status == 200)
        #expect(try await http.send("GET", "/self-service/login/api", contentType: nil).status == 429)
        #expect(try await Self.query(directory, "SELECT count(*) FROM interactive_flows") == ["2"])
    }

    // MARK: - Keys at rest

    /// With `secrets.key_encryption_key_file`, the signing keys and instance secrets are
    /// sealed in the database (existing ones at start-up); a wrong key, or none, stops
    /// start-up with exit 78 naming the setting; `latchkey keys rewrap` moves them to a new
    /// key, and tokens issued before stay valid throughout.
    @Test func keysAtRestAreSealedUnderTheOperatorsKey() async throws {
        let directory = try TemporaryDirectory()
        let first = directory.path("kek-1"), second = directory.path("kek-2")
        try Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString().write(toFile: first, atomically: true, encoding: .utf8)
        try Data((0..<32).map { _ in UInt8.random(in: 0...255) }).map { String(format: "%02x", $0) }.joined().write(toFile: second, atomically: true, encoding: .utf8)
        for file in [first, second] { try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file) }
        let sealedKeys = "SELECT (SELECT count(*) FROM signing_keys WHERE substr(private_key, 1, 4) = CAST('LKS1' AS BLOB)) || ',' || (SELECT count(*) FROM secrets WHERE substr(value, 1, 4) = CAST('LKS1' AS BLOB))"

        // Before: keys in the clear.
        var server = try await ServerProcess.start(configuration: Self.configuration, in: directory)
        var ada = PasskeyUser(server)
        let tokens = try await ada.signUp(.init(email: "ada@example.com"))
        server.stop()
        #expect(try await Self.query(directory, sealedKeys) == ["0,0"])

        // With the key: sealed at start-up, and the earlier token still verifies.
        server = try await ServerProcess.start(configuration: Self.configuration + "\nsecrets: { key_encryption_key_file: \(first) }", in: directory)
        // The ES256 key, the RS256 key the sign-up's ID token made, and the three instance secrets.
        try await server.waitForOutput("sealed 5 stored key(s) under key-encryption key")
        #expect(server.output.text.contains("sealed 5 stored key(s) under key-encryption key"), "\(server.output.text.suffix(1500))")
        #expect(try await Self.userinfo(RawHTTP(server), tokens.accessToken) == 200)
        ada = PasskeyUser(server, credentials: ada.credentials)
        _ = try await ada.signIn()
        server.stop()
        #expect(try await Self.query(directory, sealedKeys) == ["2,3"], "the two signing keys (ES256, RS256) and the three instance secrets")
        #expect(!(try await Self.query(directory, "SELECT hex(private_key) FROM signing_keys")).isEmpty)

        // A wrong key, and no key, stop start-up naming the setting.
        let arguments = ["serve", "--port", "0", "--config", directory.path("latchkey.yaml"), "--database", "sqlite:" + directory.path("latchkey.sqlite")]
        try (Self.configuration + "\nsecrets: { key_encryption_key_file: \(second) }").write(toFile: directory.path("latchkey.yaml"), atomically: true, encoding: .utf8)
        let wrong = try await CommandRun.run(arguments, workingDirectory: directory.url, timeout: 60)
        #expect(wrong.status == 78, "\(wrong.output)")
        #expect(wrong.output.contains("secrets.key_encryption_key_file") && wrong.output.contains("not under this key"), "\(wrong.output)")
        try Self.configuration.write(toFile: directory.path("latchkey.yaml"), atomically: true, encoding: .utf8)
        let none = try await CommandRun.run(arguments, workingDirectory: directory.url, timeout: 60)
        #expect(none.status == 78 && none.output.contains("no key-encryption key is configured"), "\(none.output)")

        // Rewrapped under the second key, the server starts with it, and the token verifies.
        let rewrap = try await CommandRun.run(
            ["keys", "rewrap", "--old-key-file", first, "--new-key-file", second, "--config", directory.path("latchkey.yaml"), "--database", "sqlite:" + directory.path("latchkey.sqlite")],
            workingDirectory: directory.url
        )
        #expect(rewrap.status == 0 && rewrap.output.contains("rewrapped 5 stored key(s) under key"), "\(rewrap.output)")
        let stale = try await CommandRun.run(
            ["keys", "rewrap", "--old-key-file", first, "--new-key-file", second, "--config", directory.path("latchkey.yaml"), "--database", "sqlite:" + directory.path("latchkey.sqlite")],
            workingDirectory: directory.url
        )
        #expect(stale.status == 78 && stale.output.contains("not under this key"), "the old key no longer opens them: \(stale.output)")
        server = try await ServerProcess.start(configuration: Self.configuration + "\nsecrets: { key_encryption_key_file: \(second) }", in: directory)
        defer { server.stop() }
        #expect(try await Self.userinfo(RawHTTP(server), tokens.accessToken) == 200)
        ada = PasskeyUser(server, credentials: ada.credentials)
        _ = try await ada.signIn()
    }
}
