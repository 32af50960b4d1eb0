import Foundation
import LatchkeyClient
import Testing
import WebAuthn

/// Revocation that reaches every session, against the real process: removing a passkey ends
/// the sessions it started (their refresh and access tokens stop working at once), and
/// "sign out everywhere" ends all of them.
@Suite("Session revocation: a real server process", .serialized, .timeLimit(.minutes(10)))
struct SessionRevocationTests {
    @Test func aRemovedPasskeysSessionsEndAndSignOutEverywhereEndsTheRest() async throws {
        let directory = try TemporaryDirectory()
        let server = try await ServerProcess.start(configuration: EndToEndTests.configuration, in: directory)
        defer { server.stop() }
        var ada = PasskeyUser(server)

        // Passkey A signs up; passkey B is added; each signs in once more.
        let byA = try await ada.signUp(SignupProfile(email: "ada@example.com"))
        let enrolled = try await ada.enroll(accessToken: byA.accessToken)
        let byB = try await ada.signIn(index: 1)
        let alsoByB = try await ada.signIn(index: 1)

        // Removing A (from B's session) ends A's session: its refresh token and access token.
        try await ada.client.deleteAuthenticationMethod(id: try #require(ada.methodID(of: 0, in: try await ada.client.authenticationMethods(accessToken: byB.accessToken))), accessToken: byB.accessToken)
        await expectAPIError(status: 403) { try await ada.client.refresh(refreshToken: try #require(byA.refreshToken)) }
        await expectAPIError(status: 401) { try await ada.client.authenticationMethods(accessToken: byA.accessToken) }
        // B's sessions are untouched.
        _ = try await ada.client.authenticationMethods(accessToken: byB.accessToken)
        #expect(enrolled.id.hasPrefix("passkey|"))

        // Sign out everywhere, from one of B's sessions: both of B's end.
        try await ada.client.signOutEverywhere(accessToken: byB.accessToken)
        await expectAPIError(status: 403) { try await ada.client.refresh(refreshToken: try #require(alsoByB.refreshToken)) }
        await expectAPIError(status: 401) { try await ada.client.authenticationMethods(accessToken: alsoByB.accessToken) }
        // Signing in again works.
        _ = try await ada.signIn(index: 1)
        server.stop()
        #expect(server.output.text.contains("signed_out_everywhere"), "a security line: \(server.output.text.suffix(800))")
    }
}

extension PasskeyUser {
    /// The My Account method ID of the software authenticator's credential at `index`.
    func methodID(of index: Int, in methods: [AuthenticationMethod]) -> String? {
        let id = Base64URL.encode(credentials[index].credentialID)
        return methods.first { $0.id == "passkey|" + id }?.id
    }
}
