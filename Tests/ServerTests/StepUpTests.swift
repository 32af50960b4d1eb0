import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LatchkeyClient
import Testing

/// Adding or removing a way to sign in needs a recent sign-in (`passkeys.sensitive_action_max_age`):
/// an older token is refused with RFC 9470's challenge, and a fresh sign-in is enough again.
@Suite("Step-up for sensitive actions", .serialized, .timeLimit(.minutes(10)))
struct StepUpTests {
    @Test func aStaleSignInCannotAddOrRemoveAPasskey() async throws {
        let server = try await RouterServer.start(yaml: "passkeys: { sensitive_action_max_age: 10m }")
        defer { server.stop() }
        var ada = PasskeyUser(server)
        let first = try await ada.signUp(SignupProfile(email: "ada@example.com"))
        // A fresh sign-in may add a passkey.
        try await ada.enroll(accessToken: first.accessToken)

        server.clock.advance(by: 11 * 60)
        let refused = await expectAPIError(status: 401) { try await ada.enroll(accessToken: first.accessToken) }
        #expect(refused?.reason == "insufficient_user_authentication", "\(String(describing: refused))")

        // The challenge, as RFC 9470 §3 writes it.
        var request = URLRequest(url: server.baseURL.appendingPathComponent("me/v1/authentication-methods"))
        request.httpMethod = "POST"
        request.setValue("Bearer \(first.accessToken)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"type":"passkey"}"#.utf8)
        let (_, response) = try await server.transport.send(request)
        let challenge = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "WWW-Authenticate") ?? ""
        #expect(challenge.hasPrefix(#"Bearer error="insufficient_user_authentication""#), "\(challenge)")
        #expect(challenge.hasSuffix("max_age=600"), "\(challenge)")

        // Removing is refused the same way, and nothing is removed.
        let methods = try await ada.client.authenticationMethods(accessToken: first.accessToken)
        #expect(methods.count == 2)
        let second = try #require(methods.last?.id)
        await expectAPIError(status: 401) { try await ada.client.deleteAuthenticationMethod(id: second, accessToken: first.accessToken) }
        #expect(try await ada.client.authenticationMethods(accessToken: first.accessToken).count == 2)

        // Signing in again is enough.
        let fresh = try await ada.signIn()
        try await ada.client.deleteAuthenticationMethod(id: second, accessToken: fresh.accessToken)
        #expect(try await ada.client.authenticationMethods(accessToken: fresh.accessToken).count == 1)
    }

    /// Refreshing keeps a session alive only up to `tokens.refresh_token_absolute_lifetime`
    /// after its sign-in, however recently the last token was rotated.
    @Test func refreshingStopsAtTheAbsoluteLifetime() async throws {
        let server = try await RouterServer.start(yaml: "tokens: { refresh_token_lifetime: 1d, refresh_token_absolute_lifetime: 2d }")
        defer { server.stop() }
        var ada = PasskeyUser(server)
        var token = try #require(try await ada.signUp(SignupProfile(email: "ada@example.com")).refreshToken)
        for _ in 0..<3 {
            server.clock.advance(by: 0.6 * 86_400)
            token = try #require(try await ada.client.refresh(refreshToken: token).refreshToken)
        }
        // 1.8 days after the sign-in; the newest token would live to 2.8 without the bound.
        server.clock.advance(by: 0.3 * 86_400)
        let refused = await expectAPIError(status: 403) { try await ada.client.refresh(refreshToken: token) }
        #expect(refused?.code == .invalidGrant)
        // A new sign-in starts a new session.
        #expect(try await ada.signIn().refreshToken != nil)
    }

    /// A client limited by `allowed_scopes` is refused any other scope (400 invalid_scope),
    /// and gets what it may.
    @Test func clientsReceiveOnlyTheirAllowedScopes() async throws {
        let server = try await RouterServer.start(yaml: """
            clients:
              - { client_id: demo, name: Demo, grant_types: [webauthn, refresh_token] }
              - { client_id: narrow, name: Narrow app, grant_types: [webauthn], allowed_scopes: [openid, email] }
            """)
        defer { server.stop() }
        var narrow = PasskeyUser(server, clientID: "narrow")
        let refused = await expectAPIError(status: 400) {
            try await narrow.signUp(SignupProfile(email: "ada@example.com"), scope: "openid email delete:me:authentication_methods")
        }
        #expect(refused?.code.rawValue == "invalid_scope", "\(String(describing: refused))")
        #expect(refused?.detail?.contains("delete:me:authentication_methods") == true)
        let granted = try await narrow.signUp(SignupProfile(email: "bob@example.com"), scope: "openid email")
        #expect(granted.scope?.split(separator: " ").sorted() == ["email", "openid"])
        // Another client keeps every scope.
        var demo = PasskeyUser(server)
        #expect(try await demo.signUp(SignupProfile(email: "cy@example.com")).scope?.contains("delete:me:authentication_methods") == true)
    }
}
