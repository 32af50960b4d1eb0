import Foundation
import LatchkeyClient
import LatchkeySoftwarePasskeys
import Testing

/// The SDK's session: one refresh for many callers, a store shared between processes,
/// and the step-up a stale sign-in needs.
@Suite("SDK: tokens and sessions", .serialized, .timeLimit(.minutes(10)))
struct SDKSessionTests {
    /// A session whose access token has expired, by the device's clock.
    private func expire(_ tokens: any TokenStore) async throws {
        var stored = try #require(try await tokens.load())
        stored.accessTokenExpiresAt = Date(timeIntervalSinceNow: -60)
        try await tokens.save(stored)
    }

    @Test func concurrentCallersShareOneRefresh() async throws {
        let directory = try TemporaryDirectory()
        let server = try await RouterServer.start(yaml: SDKJourneyTests.configuration, in: directory)
        defer { server.stop() }
        let tokens = InMemoryTokenStore()
        let ada = try SDKPerson(server: server, email: "ada@example.com", tokens: tokens)
        try await ada.latchkey.signUp()
        let before = try #require(await tokens.load())
        try await expire(tokens)

        // The app relaunched: a new SDK on the same store, whose access token has expired.
        let relaunched = try SDKPerson(server: server, email: "ada@example.com", tokens: tokens, passkeys: ada.passkeys)
        let results = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<100 { group.addTask { try await relaunched.latchkey.accessToken() } }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(relaunched.transport.refreshes == 1, "\(relaunched.transport.paths)")
        #expect(Set(results).count == 1 && results.first != before.accessToken)
        let after = try #require(await tokens.load())
        #expect(after.refreshToken != before.refreshToken && after.accessToken == results.first)
        // The refreshed session works, and a rotated token presented again ends it (reuse).
        #expect(try await relaunched.latchkey.passkeys().count == 1)
        await expectSDKError(.invalidGrant) { try await relaunched.latchkey.api.refresh(refreshToken: try #require(before.refreshToken)) }
    }

    @Test func processesSharingAStoreNeverPresentAStaleRefreshToken() async throws {
        let directory = try TemporaryDirectory()
        let server = try await RouterServer.start(yaml: SDKJourneyTests.configuration, in: directory)
        defer { server.stop() }
        let file = FileTokenStore(url: directory.url.appendingPathComponent("shared/session.json"))
        let app = try SDKPerson(server: server, email: "ada@example.com", tokens: file)
        try await app.latchkey.signUp()
        #expect(try FileManager.default.attributesOfItem(atPath: file.url.path)[.posixPermissions] as? Int == 0o600)

        // An extension (another process) reads the same store. Both find their access tokens
        // due for a refresh (a leeway longer than the token's life stands in for an hour).
        let hour: TimeInterval = 7200
        let widget = try SDKPerson(server: server, email: "ada@example.com", tokens: file, passkeys: app.passkeys, refreshLeeway: hour)
        let first = try #require(try file.load())
        #expect(try await widget.latchkey.session?.userID == first.session.userID)
        let appDue = try SDKPerson(server: server, email: "ada@example.com", tokens: file, passkeys: app.passkeys, refreshLeeway: hour)

        // The app rotates first and writes the new tokens.
        let rotated = try await appDue.latchkey.accessToken()
        #expect(appDue.transport.refreshes == 1 && rotated != first.accessToken)
        let second = try #require(try file.load())
        #expect(second.refreshToken != first.refreshToken)

        // The widget's copy is stale. It reads the store again before refreshing and refreshes
        // with the app's newer refresh token: presenting its own, already rotated, would be a
        // reuse, which ends the session on every device.
        let widgetToken = try await widget.latchkey.accessToken()
        #expect(widget.transport.refreshes == 1 && widgetToken != rotated)
        #expect(try await widget.latchkey.passkeys().count == 1)
        // And the app, in turn, picks up the widget's rotation.
        _ = try await appDue.latchkey.accessToken()
        #expect(try await appDue.latchkey.passkeys().count == 1)

        // A process killed after the new tokens were written: the next launch carries on from
        // the file alone.
        let relaunched = try SDKPerson(server: server, email: "ada@example.com", tokens: FileTokenStore(url: file.url), passkeys: app.passkeys)
        try await expire(file)
        _ = try await relaunched.latchkey.accessToken()
        #expect(relaunched.transport.refreshes == 1)
        #expect(try await relaunched.latchkey.passkeys().count == 1)

        // What the store spared everyone: the first refresh token, presented again, is reuse.
        await expectSDKError(.invalidGrant) { try await app.latchkey.api.refresh(refreshToken: try #require(first.refreshToken)) }
        // The session ended there: the next refresh says so, and the store is cleared.
        let ended = try SDKPerson(server: server, email: "ada@example.com", tokens: file, passkeys: app.passkeys, refreshLeeway: hour)
        await expectSDKError(.notSignedIn) { try await ended.latchkey.accessToken() }
        #expect(try file.load() == nil)
    }

    @Test func aStaleSignInStepsUpBeforeAddingAPasskey() async throws {
        let server = try await RouterServer.start(yaml: """
            clients: [{ client_id: demo, name: Demo, grant_types: [webauthn, refresh_token] }]
            passkeys: { sensitive_action_max_age: 10m }
            """)
        defer { server.stop() }
        let ada = try SDKPerson(server: server, email: "ada@example.com")
        try await ada.latchkey.signUp()
        _ = try await ada.latchkey.addPasskey()

        server.clock.advance(by: 11 * 60)
        let refused = await expectSDKError(.stepUpRequired) { try await ada.latchkey.addPasskey() }
        #expect(refused?.status == 401 && refused?.reason == "insufficient_user_authentication", "\(String(describing: refused))")
        #expect(try await ada.latchkey.passkeys().count == 2)

        // A new sign-in is recent enough.
        try await ada.latchkey.signIn()
        _ = try await ada.latchkey.addPasskey()
        #expect(try await ada.latchkey.passkeys().count == 3)
    }
}
