import Foundation
import LatchkeyClient
import Testing

/// Signing out at an app's request ends the hosted pages' session: OpenID Connect
/// RP-Initiated Logout at discovery's `end_session_endpoint`, and Auth0's `/v2/logout`.
/// Nothing redirects to an address the client did not register; a request without an ID
/// token hint is confirmed by the person first.
@Suite("Logout for web apps: the application in process", .serialized, .timeLimit(.minutes(10)))
struct LogoutTests {
    static let configuration = """
        server: { public_url: http://localhost:8080 }
        relying_party: { id: localhost, name: Latchkey Test, origins: [http://localhost:8080] }
        clients:
          - client_id: demo
            name: Demo app
            grant_types: [webauthn, refresh_token]
            post_logout_redirect_uris: [https://app.example.com/after]
            allowed_logout_urls: [https://app.example.com/bye, "https://*.example.org/bye"]
        """

    /// A browser signed in on the hosted pages, and an ID token of the same person for `demo`.
    static func signedIn(_ server: some TestServer, email: String = "ada@example.com") async throws -> (BrowserAgent, String) {
        let (browser, tokens) = try await signedInWithTokens(server, email: email)
        return (browser, try #require(tokens.idToken))
    }

    static func signedInWithTokens(_ server: some TestServer, email: String = "ada@example.com") async throws -> (BrowserAgent, TokenResponse) {
        let browser = BrowserAgent(server)
        #expect(try await browser.signUp(email: email).status == 200)
        var app = PasskeyUser(server)
        app.authenticator = browser.authenticator
        app.credentials = browser.credentials
        return (browser, try await app.signIn())
    }

    static func isSignedIn(_ browser: BrowserAgent) async throws -> Bool {
        try await browser.http.send("GET", "/account", contentType: nil, headers: browser.cookieHeader).status == 200
    }

    @Test func rpInitiatedLogoutEndsTheSessionAndReturnsOnlyWhereRegistered() async throws {
        let directory = try TemporaryDirectory()
        let server = try await RouterServer.start(yaml: Self.configuration, in: directory)
        defer { server.stop() }
        let discovery = try await RawHTTP(server).send("GET", "/.well-known/openid-configuration", contentType: nil).json
        #expect(discovery["end_session_endpoint"] as? String == "http://localhost:8080/oidc/logout")

        let (browser, tokens) = try await Self.signedInWithTokens(server)
        let idToken = try #require(tokens.idToken)
        #expect(try await Self.isSignedIn(browser))
        // An unregistered return address, a client_id that disagrees, a forged hint: a page, no redirect, still signed in.
        for query in [
            "id_token_hint=\(idToken)&post_logout_redirect_uri=https://evil.example/",
            "id_token_hint=\(idToken)&client_id=other",
            "id_token_hint=\(idToken.dropLast(4))AAAA&post_logout_redirect_uri=https://app.example.com/after",
            "post_logout_redirect_uri=https://app.example.com/after",
        ] {
            let refused = try await browser.http.send("GET", "/oidc/logout?\(query)", contentType: nil, headers: browser.cookieHeader)
            #expect(refused.status == 400 && refused.header("Location") == nil && refused.text.contains("not valid"), "\(query.prefix(80)): \(refused.status)")
        }
        #expect(try await Self.isSignedIn(browser))

        // With the hint: signed out at once, and sent back with the state.
        let ended = try await browser.http.send(
            "GET", "/oidc/logout?id_token_hint=\(idToken)&post_logout_redirect_uri=https%3A%2F%2Fapp.example.com%2Fafter&state=s-123", contentType: nil,
            headers: browser.cookieHeader
        )
        #expect(ended.status == 303 && ended.header("Location") == "https://app.example.com/after?state=s-123", "\(ended.status) \(ended.headers)")
        #expect(try await Self.isSignedIn(browser) == false, "the browser's session ended")

        // An app's cross-site form POST comes without the cookie: it is sent on as a GET, which carries it.
        let form = "id_token_hint=\(idToken)&post_logout_redirect_uri=https%3A%2F%2Fapp.example.com%2Fafter%3Fa%3D1%26b%3D2"
        let posted = try await browser.http.send("POST", "/oidc/logout", body: Data(form.utf8), contentType: "application/x-www-form-urlencoded")
        #expect(posted.status == 303 && posted.header("Location")?.hasPrefix("/oidc/logout?id_token_hint=") == true, "\(posted.status)")
        #expect(posted.header("Location")?.contains("post_logout_redirect_uri=https%3A%2F%2Fapp.example.com%2Fafter%3Fa%3D1%26b%3D2") == true)
        // A HEAD signs nobody out.
        #expect(try await browser.http.send("HEAD", "/v2/logout", contentType: nil, headers: browser.cookieHeader).status == 405)
        // An access token is never a hint.
        #expect(try await browser.http.send("GET", "/oidc/logout?id_token_hint=\(tokens.accessToken)", contentType: nil).status == 400)
    }

    /// A hint of another account than the browser's asks first, and the answer keeps the
    /// client the hint named, so it returns where that client registered.
    @Test func anotherAccountsHintIsConfirmedAndKeepsItsClient() async throws {
        let directory = try TemporaryDirectory()
        let server = try await RouterServer.start(yaml: Self.configuration, in: directory)
        defer { server.stop() }
        let (browser, _) = try await Self.signedIn(server)
        let (_, othersToken) = try await Self.signedIn(server, email: "eve@example.com")
        let asked = try await browser.http.send(
            "GET", "/oidc/logout?id_token_hint=\(othersToken)&post_logout_redirect_uri=https://app.example.com/after", contentType: nil, headers: browser.cookieHeader
        )
        #expect(asked.status == 200 && asked.text.contains("Sign out?") && asked.text.contains(#"name="client_id" value="demo""#), "\(asked.text.prefix(400))")
        #expect(try await Self.isSignedIn(browser))
        let token = try #require(asked.text.firstMatch(of: /name="csrf_token" value="([^"]+)"/)?.1)
        let form = "client_id=demo&post_logout_redirect_uri=https%3A%2F%2Fapp.example.com%2Fafter&confirm=yes&csrf_token=\(token)"
        let confirmed = try await browser.http.send("POST", "/oidc/logout", body: Data(form.utf8), contentType: "application/x-www-form-urlencoded", headers: browser.cookieHeader)
        #expect(confirmed.status == 303 && confirmed.header("Location") == "https://app.example.com/after", "\(confirmed.status)")
    }

    @Test func withoutAHintThePersonConfirms() async throws {
        let directory = try TemporaryDirectory()
        let server = try await RouterServer.start(yaml: Self.configuration, in: directory)
        defer { server.stop() }
        let (browser, _) = try await Self.signedIn(server)
        let asked = try await browser.http.send(
            "GET", "/oidc/logout?client_id=demo&post_logout_redirect_uri=https://app.example.com/after&state=x", contentType: nil, headers: browser.cookieHeader
        )
        #expect(asked.status == 200 && asked.text.contains("Sign out?") && asked.text.contains("Demo app"), "\(asked.text.prefix(300))")
        #expect(try await Self.isSignedIn(browser), "asking signs nobody out")
        let token = try #require(asked.text.firstMatch(of: /name="csrf_token" value="([^"]+)"/)?.1)
        let form = "client_id=demo&post_logout_redirect_uri=https%3A%2F%2Fapp.example.com%2Fafter&state=x&confirm=yes&csrf_token="
        let forged = try await browser.http.send("POST", "/oidc/logout", body: Data((form + "wrong").utf8), contentType: "application/x-www-form-urlencoded", headers: browser.cookieHeader)
        #expect(forged.status == 200 && forged.text.contains("Sign out?"), "a confirmation without the page's token is asked again")
        #expect(try await Self.isSignedIn(browser))
        let confirmed = try await browser.http.send("POST", "/oidc/logout", body: Data((form + token).utf8), contentType: "application/x-www-form-urlencoded", headers: browser.cookieHeader)
        #expect(confirmed.status == 303 && confirmed.header("Location") == "https://app.example.com/after?state=x", "\(confirmed.status)")
        #expect(try await Self.isSignedIn(browser) == false)
    }

    @Test func auth0sLogoutReturnsToAllowedURLsOnly() async throws {
        let directory = try TemporaryDirectory()
        let server = try await RouterServer.start(yaml: Self.configuration, in: directory)
        defer { server.stop() }
        let (browser, _) = try await Self.signedIn(server)
        for returnTo in ["https://evil.example/bye", "https://app.example.com/other", "https://a.b.example.org/bye"] {
            let refused = try await browser.http.send("GET", "/v2/logout?client_id=demo&returnTo=\(returnTo)", contentType: nil, headers: browser.cookieHeader)
            #expect(refused.status == 400 && refused.header("Location") == nil && refused.text.contains("Allowed Logout URLs"), "\(returnTo): \(refused.status)")
        }
        #expect(try await Self.isSignedIn(browser))
        let wildcard = try await browser.http.send("GET", "/v2/logout?client_id=demo&returnTo=https://shop.example.org/bye?from=app", contentType: nil, headers: browser.cookieHeader)
        #expect(wildcard.status == 303 && wildcard.header("Location") == "https://shop.example.org/bye?from=app", "the query is ignored when matching: \(wildcard.status)")
        #expect(try await Self.isSignedIn(browser) == false)

        let (again, _) = try await Self.signedIn(server, email: "grace@example.com")
        let first = try await again.http.send("GET", "/v2/logout?client_id=demo", contentType: nil, headers: again.cookieHeader)
        #expect(first.status == 303 && first.header("Location") == "https://app.example.com/bye", "without returnTo, the client's first allowed URL")
        let plain = try await again.http.send("GET", "/v2/logout", contentType: nil, headers: again.cookieHeader)
        #expect(plain.status == 200 && plain.text.contains("You are signed out"))
        #expect(try await again.http.send("GET", "/v2/logout?client_id=nobody", contentType: nil).status == 400)
    }
}
