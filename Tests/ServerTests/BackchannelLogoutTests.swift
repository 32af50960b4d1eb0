import Crypto
import Foundation
import LatchkeyClient
import Testing
import WebAuthn

/// OpenID Connect Back-Channel Logout against the real process and a relying party's
/// endpoint that verifies each logout token with authlib: signing out of the browser tells
/// the apps its codes signed in, every other end of a session tells its app too, each app
/// hears only of its own sessions with the `sid` its ID tokens carried, and an app that is
/// down for a moment is told again.
@Suite("Back-channel logout: a real server process and a verifying relying party", .serialized, .timeLimit(.minutes(10)))
struct BackchannelLogoutTests {
    static let issuer = "http://localhost:8080/"

    static func configuration(_ receiver: BackchannelLogoutReceiver) -> String {
        """
        server: { public_url: http://localhost:8080 }
        relying_party: { id: localhost, name: Latchkey Test, origins: [http://localhost:8080] }
        webhooks: { allow_private_networks: [127.0.0.1/32] }
        clients:
          - client_id: web
            name: Web app
            redirect_uris: [https://web.example/callback]
            first_party: true
            post_logout_redirect_uris: [https://web.example/bye]
            backchannel_logout_uri: \(receiver.url(for: "web"))
          - client_id: native
            name: Native app
            grant_types: [webauthn, refresh_token]
            id_token_signed_response_alg: ES256
            backchannel_logout_uri: \(receiver.url(for: "native"))
          - client_id: quiet
            name: Quiet app
            grant_types: [webauthn, refresh_token]
        """
    }

    static let verifier = "logout-test-verifier-with-enough-entropy-0123456789"

    /// The web app's sign-in through the hosted pages' session: code, PKCE, tokens.
    static func webSignIn(_ browser: BrowserAgent, _ http: RawHTTP) async throws -> TokenResponse {
        let challenge = Base64URL.encode(Array(SHA256.hash(data: Data(verifier.utf8))))
        let redirect = "https%3A%2F%2Fweb.example%2Fcallback"
        let authorized = try await browser.get(
            "/authorize?client_id=web&redirect_uri=\(redirect)&response_type=code&scope=openid%20email&state=s&nonce=n"
                + "&code_challenge=\(challenge)&code_challenge_method=S256")
        let location = try #require(authorized.header("Location"), "\(authorized.status) \(authorized.text.prefix(200))")
        let code = try #require(URLComponents(string: location)?.queryItems?.first(where: { $0.name == "code" })?.value, "\(location)")
        let exchanged = try await http.send(
            "POST", "/oauth/token",
            body: Data("grant_type=authorization_code&client_id=web&code=\(code)&redirect_uri=\(redirect)&code_verifier=\(verifier)".utf8),
            contentType: "application/x-www-form-urlencoded")
        #expect(exchanged.status == 200, "\(exchanged.text)")
        return try JSONDecoder().decode(TokenResponse.self, from: Data(exchanged.text.utf8))
    }

    @Test func eachAppHearsOfItsOwnSessionsEnding() async throws {
        let receiver = try await BackchannelLogoutReceiver.start(issuer: Self.issuer)
        defer { receiver.stop() }
        let directory = try TemporaryDirectory()
        let server = try await ServerProcess.start(configuration: Self.configuration(receiver), in: directory)
        defer { server.stop() }
        try receiver.useKeys(of: server.baseURL)
        let http = RawHTTP(server)
        let discovery = try await http.send("GET", "/.well-known/openid-configuration", contentType: nil).json
        #expect(discovery["backchannel_logout_supported"] as? Bool == true && discovery["backchannel_logout_session_supported"] as? Bool == true)

        let browser = BrowserAgent(server)
        #expect(try await browser.signUp(email: "ada@example.com").status == 200)
        let web = try await Self.webSignIn(browser, http)
        let webClaims = claims(of: try #require(web.idToken))
        var native = PasskeyUser(server, clientID: "native")
        native.authenticator = browser.authenticator
        native.credentials = browser.credentials
        let nativeTokens = try await native.signIn()
        let nativeIDToken = try #require(nativeTokens.idToken)
        let nativeSession = try #require(claims(of: nativeIDToken)["sid"] as? String)
        var quiet = PasskeyUser(server, clientID: "quiet")
        quiet.authenticator = browser.authenticator
        quiet.credentials = native.credentials  // with the counter the native app's sign-in moved on
        _ = try await quiet.signIn()

        // The web app signs the person out: the browser's session ends, and with it the web
        // app's session its code started; only the web app is told.
        let hint = try #require(web.idToken)
        let loggedOut = try await browser.http.send(
            "GET", "/oidc/logout?id_token_hint=\(hint)&post_logout_redirect_uri=https://web.example/bye", contentType: nil, headers: browser.cookieHeader)
        #expect(loggedOut.status == 303 && loggedOut.header("Location") == "https://web.example/bye", "\(loggedOut.status)")
        let first = try await receiver.waitFor(1)
        let told = try #require(first.first)
        #expect(told.client == "web" && told.header["alg"] as? String == "RS256" && told.header["typ"] as? String == "logout+jwt")
        #expect(told.sessionID == webClaims["sid"] as? String && told.claims["sub"] as? String == webClaims["sub"] as? String, "\(told.claims)")
        #expect(told.header["kid"] as? String == header(of: hint)["kid"] as? String, "signed with the key of the client's ID tokens")
        let userinfo = try await http.send("GET", "/userinfo", contentType: nil, headers: ["Authorization": "Bearer \(web.accessToken)"])
        #expect(userinfo.status == 401, "the web app's session is over: \(userinfo.status)")
        // The native app signed in on its own: its session goes on.
        let refreshed = try await http.send(
            "POST", "/oauth/token", body: Data("grant_type=refresh_token&client_id=native&refresh_token=\(try #require(nativeTokens.refreshToken))".utf8),
            contentType: "application/x-www-form-urlencoded")
        #expect(refreshed.status == 200, "\(refreshed.text)")

        // A replayed refresh token ends the native app's session: it is told, signed as its ID tokens are.
        let replayed = try await http.send(
            "POST", "/oauth/token", body: Data("grant_type=refresh_token&client_id=native&refresh_token=\(try #require(nativeTokens.refreshToken))".utf8),
            contentType: "application/x-www-form-urlencoded")
        #expect(replayed.status == 403, "reuse: \(replayed.text)")
        let both = try await receiver.waitFor(2)
        #expect(both[1].client == "native" && both[1].sessionID == nativeSession && both[1].header["alg"] as? String == "ES256", "\(both[1].claims)")
        // Nothing for the app that registered no URI, nothing twice, and every token verified.
        try await Task.sleep(for: .seconds(2))
        #expect(receiver.tokens().count == 2 && receiver.rejected().isEmpty, "\(receiver.tokens().map(\.client)) \(receiver.rejected())")
        #expect(Set(receiver.tokens().compactMap { $0.claims["jti"] as? String }).count == 2)
    }

    @Test func anAppThatIsDownIsToldAgain() async throws {
        let receiver = try await BackchannelLogoutReceiver.start(issuer: Self.issuer, failFirst: 1)
        defer { receiver.stop() }
        let directory = try TemporaryDirectory()
        let server = try await ServerProcess.start(configuration: Self.configuration(receiver), in: directory)
        defer { server.stop() }
        try receiver.useKeys(of: server.baseURL)
        var native = PasskeyUser(server, clientID: "native")
        let tokens = try await native.signUp(SignupProfile(email: "grace@example.com"))
        let session = claims(of: try #require(tokens.idToken))["sid"] as? String
        let revoked = try await RawHTTP(server).send(
            "POST", "/oauth/revoke", body: Data("client_id=native&token=\(try #require(tokens.refreshToken))".utf8), contentType: "application/x-www-form-urlencoded")
        #expect(revoked.status == 200)
        // The first post is answered 503; the retry five seconds later is taken.
        let told = try await receiver.waitFor(1, timeout: 30)
        #expect(told.first?.sessionID == session && told.first?.client == "native")
    }
}
