import Crypto
import Foundation
import Testing
import WebAuthn

/// The hosted pages' server side over HTTP: sessions, cookies, CSRF, `return_to`, and the
/// authorization code flow with its failures. The browser itself is in
/// `HostedPagesBrowserTests`.
@Suite("Hosted pages and OAuth over HTTP")
struct HostedPagesTests {
    static let yaml = """
        relying_party: { id: localhost, name: Latchkey Test, origins: [http://localhost:8080] }
        clients:
          - client_id: demo
            name: Demo app
          - client_id: spa
            name: Single-page app
            redirect_uris: [http://localhost:5173/callback, com.example.app:/oauth]
            first_party: true
          - client_id: other
            name: Other app
            redirect_uris: [https://other.example/callback]
        """

    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk-extra-entropy"
    static var challenge: String { Base64URL.encode(Array(SHA256.hash(data: Data(verifier.utf8)))) }

    static func authorizePath(client: String = "spa", redirect: String = "http://localhost:5173/callback", extra: String = "") -> String {
        let encoded = redirect.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? redirect
        return "/authorize?client_id=\(client)&redirect_uri=\(encoded)&response_type=code&scope=openid%20email&state=xyz&nonce=n-0S6"
            + "&code_challenge=\(challenge)&code_challenge_method=S256" + extra
    }

    /// The query parameters of a redirect's `Location`.
    static func query(_ location: String?) -> [String: String] {
        guard let location, let components = URLComponents(string: location) else { return [:] }
        return Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
    }

    func exchange(_ http: RawHTTP, code: String, verifier: String? = Self.verifier, client: String = "spa", redirect: String = "http://localhost:5173/callback") async throws -> RawHTTP.Reply {
        var fields = ["grant_type=authorization_code", "client_id=\(client)", "code=\(code)"]
        fields.append("redirect_uri=" + (redirect.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
        if let verifier { fields.append("code_verifier=\(verifier)") }
        return try await http.send("POST", "/oauth/token", body: Data(fields.joined(separator: "&").utf8), contentType: "application/x-www-form-urlencoded")
    }

    @Test func signUpStartsAServerSideSessionWithSafeCookies() async throws {
        let server = try await RouterServer.start(yaml: Self.yaml)
        defer { server.stop() }
        let browser = BrowserAgent(server)

        let landing = try await browser.get("/account/passkeys/new")
        #expect(landing.status == 302)
        #expect(landing.header("Location") == "/login?return_to=/account/passkeys/new", "enroll without a session signs in first, then comes back")

        let finished = try await browser.signUp(email: "ada@example.com", name: "<script>alert(1)</script>", returnTo: "/account/passkeys/new")
        #expect(finished.status == 200)
        #expect(finished.json["redirect_to"] as? String == "/account/passkeys/new")
        let cookie = try #require(BrowserAgent.setCookies(finished).first { $0.hasPrefix("latchkey_session=") })
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax") && cookie.contains("Path=/"))
        #expect(!cookie.contains("Secure"), "over http on localhost a Secure cookie would be dropped")

        let account = try await browser.get("/account")
        #expect(account.status == 200)
        #expect(account.text.contains("ada@example.com"))
        #expect(account.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "names are escaped")
        #expect(!account.text.contains("<script>alert(1)"))
        #expect(account.header("Content-Security-Policy")?.contains("script-src 'self'") == true)
        #expect(account.header("Cache-Control") == "no-store")

        // Signing in again replaces the session: the previous cookie stops working.
        let previous = browser.cookies
        #expect(try await browser.signIn().status == 200)
        let current = browser.cookies
        browser.cookies = previous
        #expect(try await browser.get("/account").status == 302, "the replaced session is revoked")
        browser.cookies = current

        // Signing out revokes the session on the server: replaying the old cookie fails.
        let stolen = browser.cookies
        let signout = try await browser.call("POST", "/ui/logout")
        #expect(signout.status == 200)
        browser.cookies = stolen
        let replay = try await browser.get("/account")
        #expect(replay.status == 302, "a revoked session no longer opens the account page")
        let enroll = try await browser.call("POST", "/ui/passkeys/options")
        #expect(enroll.status == 401)
        #expect(enroll.json["error"] as? String == "invalid_token")
    }

    /// Adding a passkey after an old sign-in asks for the passkey again: the call is refused
    /// with a reason the page acts on, and the login page, asked to re-authenticate, says why.
    @Test func anOldSignInMustConfirmBeforeAddingAPasskey() async throws {
        let server = try await RouterServer.start(yaml: Self.yaml)
        defer { server.stop() }
        let browser = BrowserAgent(server)
        _ = try await browser.signUp(email: "ada@example.com")
        #expect(try await browser.call("POST", "/ui/passkeys/options").status == 200)
        server.clock.advance(by: 16 * 60)
        let stale = try await browser.call("POST", "/ui/passkeys/options")
        #expect(stale.status == 401)
        #expect(stale.json["reason"] as? String == "insufficient_user_authentication", "\(stale.text)")
        let login = try await browser.get("/login?reauthenticate=1&return_to=/account/passkeys")
        #expect(login.status == 200, "shown even though the browser is signed in")
        #expect(login.text.contains("Confirm it&#39;s you") || login.text.contains("Confirm it's you"), "\(login.text.prefix(400))")
        #expect(try await browser.signIn().status == 200)
        #expect(try await browser.call("POST", "/ui/passkeys/options").status == 200)
    }

    @Test func sessionsExpire() async throws {
        let server = try await RouterServer.start(yaml: Self.yaml + "\nhosted_pages: { session_lifetime: 1h }\n")
        defer { server.stop() }
        let browser = BrowserAgent(server)
        _ = try await browser.signUp(email: "ada@example.com")
        #expect(try await browser.get("/account").status == 200)
        server.clock.advance(by: 3599)
        #expect(try await browser.get("/account").status == 200)
        server.clock.advance(by: 1)
        #expect(try await browser.get("/account").status == 302, "the session ended after its lifetime")
    }

    @Test func signingUpTwiceOffersSignIn() async throws {
        let server = try await RouterServer.start(yaml: Self.yaml)
        defer { server.stop() }
        let browser = BrowserAgent(server)
        _ = try await browser.signUp(email: "ada@example.com")
        let again = try await browser.call("POST", "/ui/signup", ["email": "ada@example.com"])
        #expect(again.status == 400)
        #expect(again.json["reason"] as? String == "user_exists")
    }

    @Test func stateChangingCallsNeedTheCSRFTokenAndTheOwnOrigin() async throws {
        let server = try await RouterServer.start(yaml: Self.yaml)
        defer { server.stop() }
        let browser = BrowserAgent(server)
        try await browser.get("/login")
        #expect(!browser.csrfToken.isEmpty)
        #expect(try await browser.call("POST", "/ui/login").status == 200)

        let cases: [(String, [String: String])] = [
            ("no token", ["X-CSRF-Token": ""]),
            ("wrong token", ["X-CSRF-Token": String(repeating: "A", count: 43)]),
            ("another origin", ["Origin": "https://evil.example"]),
            ("another site", ["Sec-Fetch-Site": "cross-site"]),
        ]
        for (label, headers) in cases {
            let refused = try await browser.call("POST", "/ui/login", headers: headers)
            #expect(refused.status == 403, "\(label)")
            #expect(refused.json["reason"] as? String == "csrf_check_failed", "\(label)")
        }
        // Without the cookie the header alone proves nothing.
        browser.cookies = [:]
        #expect(try await browser.call("POST", "/ui/login").status == 403)
    }

    @Test(arguments: ["//evil.example/x", "https://evil.example", "/\\evil.example", "javascript:alert(1)", "/ok\u{0}", ""])
    func returnToStaysOnThisServer(_ target: String) async throws {
        let server = try await RouterServer.start(yaml: Self.yaml)
        defer { server.stop() }
        let browser = BrowserAgent(server)
        let finished = try await browser.signUp(email: "ada@example.com", returnTo: target)
        #expect(finished.json["redirect_to"] as? String == "/account")
    }

    @Test func anUnknownCredentialIsNamedSoThePageCanSignalIt() async throws {
        let server = try await RouterServer.start(yaml: Self.yaml)
        defer { server.stop() }
        let browser = BrowserAgent(server)
        // A passkey for this RP that the server never registered.
        let stranger = BrowserAgent(server)
        let options = PublicKeyCredentialCreationOptionsJSON(
            rp: .init(id: "localhost", name: "x"), user: .init(id: Base64URLBytes([1, 2, 3]), name: "x", displayName: "x"),
            challenge: Base64URLBytes([0]), pubKeyCredParams: [.init(alg: .es256)]
        )
        let (_, orphan) = try stranger.authenticator.makeCredential(options, origin: "http://localhost:8080")
        browser.credentials = [orphan]
        let refused = try await browser.signIn()
        #expect(refused.status == 403)
        #expect(refused.json["reason"] as? String == "unknown_credential")
        #expect(refused.json["credential_id"] as? String == Base64URL.encode(orphan.credentialID))
        #expect(BrowserAgent.setCookies(refused).allSatisfy { !$0.hasPrefix("latchkey_session=") }, "no session")
    }

    @Test func httpsPublicURLMakesCookiesSecureAndHostOnly() async throws {
        let server = try await RouterServer.start(yaml: Self.yaml + "\nserver: { public_url: https://id.example.com }\n", publicURL: nil)
        defer { server.stop() }
        let page = try await RawHTTP(server).send("GET", "/login", contentType: nil)
        let cookie = try #require(BrowserAgent.setCookies(page).first)
        #expect(cookie.hasPrefix("__Host-latchkey_csrf="))
        #expect(cookie.contains("Secure") && cookie.contains("HttpOnly") && cookie.contains("Path=/"))
    }

    @Test func authorizationCodeFlowWithPKCE() async throws {
        let server = try await RouterServer.start(yaml: Self.yaml)
        defer { server.stop() }
        let browser = BrowserAgent(server)
        let http = RawHTTP(server)

        // Nobody signed in: the hosted login, which comes back to the same request.
        let first = try await browser.get(Self.authorizePath())
        #expect(first.status == 302)
        let login = try #require(first.header("Location"))
        #expect(login.hasPrefix("/login?return_to=/authorize%3Fclient_id%3Dspa"))
        let returnTo = try #require(Self.query("http://x" + login)["return_to"])
        _ = try await browser.signUp(email: "ada@example.com", returnTo: returnTo)

        let authorized = try await browser.get(returnTo)
        #expect(authorized.status == 302)
        let location = try #require(authorized.header("Location"))
        #expect(location.hasPrefix("http://localhost:5173/callback?code="))
        let parameters = Self.query(location)
        #expect(parameters["state"] == "xyz")
        #expect(parameters["iss"] == "http://localhost:8080/")
        let code = try #require(parameters["code"])

        let tokens = try await exchange(http, code: code)
        #expect(tokens.status == 200, "\(tokens.text)")
        let idToken = try #require(tokens.json["id_token"] as? String)
        #expect(claims(of: idToken)["nonce"] as? String == "n-0S6")
        #expect(claims(of: idToken)["aud"] as? String == "spa")
        #expect(tokens.json["refresh_token"] == nil, "no offline_access was asked for")
        let access = try #require(tokens.json["access_token"] as? String)

        // An access token without a refresh token still belongs to a live session.
        let info = try await http.send("GET", "/userinfo", contentType: nil, headers: ["Authorization": "Bearer \(access)"])
        #expect(info.status == 200)
        #expect(info.json["email"] as? String == "ada@example.com")

        // The code works once. Presenting it again revokes what it issued.
        let replay = try await exchange(http, code: code)
        #expect(replay.status == 403)
        #expect(replay.json["error"] as? String == "invalid_grant")
        #expect(replay.json["reason"] as? String == "code_reused")
        let revoked = try await http.send("GET", "/userinfo", contentType: nil, headers: ["Authorization": "Bearer \(access)"])
        #expect(revoked.status == 401)
    }

    /// A client that is not first-party gets no code until the person allows it, is not
    /// asked again for the same scopes, is asked again for more, and loses its permission and
    /// its sessions when the person withdraws it.
    @Test func aClientThatIsNotFirstPartyAsksForConsentOnce() async throws {
        let server = try await RouterServer.start(yaml: Self.yaml)
        defer { server.stop() }
        let browser = BrowserAgent(server)
        let http = RawHTTP(server)
        _ = try await browser.signUp(email: "ada@example.com")
        let redirect = "https://other.example/callback"
        let path = Self.authorizePath(client: "other", redirect: redirect)
        let query = String(path.dropFirst("/authorize?".count))

        let silent = try await browser.get(path + "&prompt=none")
        #expect(silent.status == 302)
        #expect(Self.query(silent.header("Location"))["error"] == "consent_required")
        #expect(Self.query(silent.header("Location"))["state"] == "xyz")

        let page = try await browser.get(path)
        #expect(page.status == 200 && page.header("Location") == nil, "a page, not a code")
        #expect(page.text.contains("Allow Other app?") && page.text.contains("See your email address"), "\(page.text)")

        let denied = try await browser.call("POST", "/ui/consent", ["request": query, "decision": "deny"])
        #expect(Self.query(denied.json["redirect_to"] as? String)["error"] == "access_denied", "\(denied.text)")
        let tampered = try await browser.call("POST", "/ui/consent", ["request": query.replacingOccurrences(of: "other%2Eexample", with: "evil%2Eexample"), "decision": "allow"])
        #expect(tampered.status == 400, "an unregistered redirect URI is refused on the answer too: \(tampered.text)")
        let unknown = try await browser.call("POST", "/ui/consent", ["request": query, "decision": "maybe"])
        #expect(unknown.status == 400)
        let withoutCSRF = try await http.send("POST", "/ui/consent", body: Data(#"{"request":"","decision":"allow"}"#.utf8), contentType: "application/json")
        #expect(withoutCSRF.status == 403)

        let allowed = try await browser.call("POST", "/ui/consent", ["request": query, "decision": "allow"])
        let code = try #require(Self.query(allowed.json["redirect_to"] as? String)["code"], "\(allowed.text)")
        let tokens = try await exchange(http, code: code, client: "other", redirect: redirect)
        #expect(tokens.status == 200, "\(tokens.text)")
        let access = try #require(tokens.json["access_token"] as? String)

        // Asked once: the same scopes come straight back, even with prompt=none.
        let again = try await browser.get(path + "&prompt=none")
        #expect(Self.query(again.header("Location"))["code"] != nil, "\(again.status) \(again.text.prefix(200))")
        // More scopes: asked again.
        let wider = try await browser.get(path.replacingOccurrences(of: "scope=openid%20email", with: "scope=openid%20email%20profile"))
        #expect(wider.status == 200 && wider.text.contains("See your name and profile picture"))

        // Listed on the account page; withdrawing it ends the client's session.
        #expect(try await browser.get("/account").text.contains("Apps you allowed"))
        let revoked = try await browser.call("POST", "/ui/consents/revoke", ["client_id": "other"])
        #expect(revoked.status == 200, "\(revoked.text)")
        #expect(try await http.send("GET", "/userinfo", contentType: nil, headers: ["Authorization": "Bearer \(access)"]).status == 401)
        #expect(try await browser.get(path).status == 200, "asked again")
        #expect(try await browser.call("POST", "/ui/consents/revoke", ["client_id": "other"]).status == 404)
    }

    @Test func codeExchangeFailures() async throws {
        let server = try await RouterServer.start(yaml: Self.yaml)
        defer { server.stop() }
        let browser = BrowserAgent(server)
        let http = RawHTTP(server)
        _ = try await browser.signUp(email: "ada@example.com")
        func code() async throws -> String {
            let reply = try await browser.get(Self.authorizePath())
            return try #require(Self.query(reply.header("Location"))["code"])
        }

        // A wrong verifier does not use the code up: its rightful holder redeems it afterwards.
        let contested = try await code()
        let wrongVerifier = try await exchange(http, code: contested, verifier: String(repeating: "a", count: 43))
        #expect(wrongVerifier.status == 403)
        #expect(wrongVerifier.json["reason"] as? String == "pkce_mismatch")
        let rightful = try await exchange(http, code: contested)
        #expect(rightful.status == 200, "\(rightful.text)")
        let access = try #require(rightful.json["access_token"] as? String)
        #expect(try await http.send("GET", "/userinfo", contentType: nil, headers: ["Authorization": "Bearer \(access)"]).status == 200)
        // A replay finds the session the first exchange started, and revokes it.
        let replay = try await exchange(http, code: contested)
        #expect(replay.json["reason"] as? String == "code_reused")
        #expect(try await http.send("GET", "/userinfo", contentType: nil, headers: ["Authorization": "Bearer \(access)"]).status == 401)

        let missingVerifier = try await exchange(http, code: try await code(), verifier: nil)
        #expect(missingVerifier.status == 400)
        #expect(missingVerifier.json["error"] as? String == "invalid_request")

        let shortVerifier = try await exchange(http, code: try await code(), verifier: "short")
        #expect(shortVerifier.status == 400)

        let wrongRedirect = try await exchange(http, code: try await code(), redirect: "http://localhost:5173/other")
        #expect(wrongRedirect.status == 403)

        let otherClient = try await exchange(http, code: try await code(), client: "other", redirect: "http://localhost:5173/callback")
        #expect(otherClient.status == 403)
        #expect(otherClient.json["error"] as? String == "invalid_grant")

        let expiring = try await code()
        server.clock.advance(by: 61)
        let expired = try await exchange(http, code: expiring)
        #expect(expired.status == 403)

        let unknown = try await exchange(http, code: "not-a-code")
        #expect(unknown.status == 403)
        #expect(unknown.json["error"] as? String == "invalid_grant")

        let noGrant = try await exchange(http, code: try await code(), client: "demo")
        #expect(noGrant.status == 403)
        #expect(noGrant.json["error"] as? String == "unauthorized_client")
    }

    @Test func authorizationRequestFailures() async throws {
        let server = try await RouterServer.start(yaml: Self.yaml)
        defer { server.stop() }
        let browser = BrowserAgent(server)

        // Not trustworthy enough to redirect: an error page, and no Location.
        for (label, path) in [
            ("unregistered redirect", Self.authorizePath(redirect: "https://evil.example/callback")),
            ("unknown client", Self.authorizePath(client: "nobody")),
            ("no client", "/authorize?redirect_uri=x&response_type=code"),
            ("repeated parameter", Self.authorizePath() + "&state=again"),
            // Control characters in any parameter: a 400, never echoed into a redirect.
            ("control character in the nonce", Self.authorizePath().replacingOccurrences(of: "nonce=n-0S6", with: "nonce=a%01b")),
            ("newline in the state", Self.authorizePath().replacingOccurrences(of: "state=xyz", with: "state=a%0Ab")),
        ] {
            let page = try await browser.get(path)
            #expect(page.status == 400, "\(label)")
            #expect(page.header("Location") == nil, "\(label)")
            #expect(page.header("Content-Type")?.hasPrefix("text/html") == true, "\(label)")
            #expect(page.text.contains("role=\"alert\""), "\(label)")
        }

        // Errors the client may hear: back to its redirect URI with error and state.
        let noPKCE = "/authorize?client_id=spa&redirect_uri=http%3A%2F%2Flocalhost%3A5173%2Fcallback&response_type=code&state=s1"
        for (label, path, error) in [
            ("missing PKCE", noPKCE, "invalid_request"),
            ("plain PKCE", noPKCE + "&code_challenge=\(Self.challenge)&code_challenge_method=plain", "invalid_request"),
            ("implicit flow", Self.authorizePath().replacingOccurrences(of: "response_type=code", with: "response_type=token"), "unsupported_response_type"),
            ("nobody signed in", Self.authorizePath(extra: "&prompt=none"), "login_required"),
        ] {
            let reply = try await browser.get(path)
            #expect(reply.status == 302, "\(label)")
            let location = reply.header("Location") ?? ""
            #expect(location.hasPrefix("http://localhost:5173/callback?"), "\(label)")
            #expect(Self.query(location)["error"] == error, "\(label)")
            #expect(Self.query(location)["state"] != nil, "\(label)")
        }
    }

    @Test func corsAnswersOnlyKnownOrigins() async throws {
        let server = try await RouterServer.start(yaml: Self.yaml)
        defer { server.stop() }
        let http = RawHTTP(server)
        let preflight = ["Origin": "http://localhost:5173", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"]
        let allowed = try await http.send("OPTIONS", "/oauth/token", contentType: nil, headers: preflight)
        #expect(allowed.status == 204)
        #expect(allowed.header("Access-Control-Allow-Origin") == "http://localhost:5173")
        #expect(allowed.header("Access-Control-Allow-Credentials") == nil)

        var evil = preflight
        evil["Origin"] = "https://evil.example"
        let refused = try await http.send("OPTIONS", "/oauth/token", contentType: nil, headers: evil)
        #expect(refused.header("Access-Control-Allow-Origin") == nil)

        let hosted = try await http.send("OPTIONS", "/ui/login", contentType: nil, headers: preflight)
        #expect(hosted.header("Access-Control-Allow-Origin") == nil, "the hosted pages' calls are same-origin only")
    }

    @Test func nativeTokensWithoutOfflineAccessReachUserinfo() async throws {
        let server = try await RouterServer.start(yaml: Self.yaml)
        defer { server.stop() }
        var ada = PasskeyUser(server)
        let tokens = try await ada.signUp(.init(email: "ada@example.com"), scope: "openid email")
        #expect(tokens.refreshToken == nil)
        let info = try await ada.client.userInfo(accessToken: tokens.accessToken)
        #expect(info.email == "ada@example.com")
    }
}
