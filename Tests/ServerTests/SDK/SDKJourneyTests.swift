import Foundation
import LatchkeyClient
import LatchkeySoftwarePasskeys
import Testing

/// The SDK's whole surface against the real `latchkey serve` process and its SQLite file,
/// with the software authenticator as the passkey provider.
@Suite("SDK: every call against the application", .serialized, .timeLimit(.minutes(10)))
struct SDKJourneyTests {
    /// Passkeys and passwords for the `demo` client.
    static let configuration = PasswordJourneyTests.configuration

    @Test func passkeysFromSignUpToSignOut() async throws {
        let directory = try TemporaryDirectory()
        let server = try await RouterServer.start(yaml: Self.configuration, in: directory)
        defer { server.stop() }

        // The account creation API: the identifier comes from the provider.
        let ada = try SDKPerson(server: server, email: "ada@example.com", name: "Ada")
        let account = try await ada.latchkey.signUp()
        #expect(account.email == "ada@example.com" && account.name == "Ada" && account.method == .passkey)
        #expect(try await ada.latchkey.session == account)

        // An identifier chosen by the app.
        let bea = try SDKPerson(server: server, email: "unused@example.com")
        let again = try await bea.latchkey.signUp(email: "b@example.com", name: "B")
        #expect(again.email == "b@example.com" && again.name == "B" && again.userID != account.userID)
        // The same identifier twice is the server's refusal, in the SDK's error type.
        let taken = try SDKPerson(server: server, email: "x@example.com")
        let refused = await expectSDKError(.invalidRequest) { try await taken.latchkey.signUp(email: "b@example.com") }
        #expect(refused?.reason == "user_exists", "\(String(describing: refused))")

        // A discoverable sign-in after signing out.
        try await ada.latchkey.signOut()
        #expect(try await ada.latchkey.session == nil)
        let session = try await ada.latchkey.signIn()
        #expect(session.userID == account.userID && session.method == .passkey)

        // Passkeys: list, add, remove.
        let first = try #require(try await ada.latchkey.passkeys().first)
        #expect(first.synced && first.createdAt != nil && first.lastUsedAt != nil)
        let added = try await ada.latchkey.addPasskey()
        #expect(try await ada.latchkey.passkeys().map(\.id).sorted() == [first.id, added.id].sorted())
        #expect(ada.passkeys.credentials.count == 2)
        try await ada.latchkey.removePasskey(id: added.id)
        #expect(try await ada.latchkey.passkeys().map(\.id) == [first.id])
        // The credential manager learnt which passkeys remain, and forgot the removed one.
        #expect(ada.passkeys.credentials.count == 1)

        // Signals: the accepted passkeys and the names, as the server knows them.
        try await ada.latchkey.reportSignals()
        let names = ada.passkeys.receivedSignals.compactMap { signal -> String? in
            if case .currentUserDetails(_, _, let name, _) = signal { return name } else { return nil }
        }
        #expect(names.last == "ada@example.com", "\(ada.passkeys.receivedSignals)")

        // The access token is the stored one while it is fresh.
        let token = try await ada.latchkey.accessToken()
        #expect(try await ada.latchkey.accessToken() == token)
        #expect(ada.transport.refreshes == 0)

        // Signing out revokes the refresh token and clears the store.
        let stored = try #require(try await ada.tokens.load())
        try await ada.latchkey.signOut()
        #expect(try await ada.tokens.load() == nil)
        await expectSDKError(.invalidGrant) { try await ada.latchkey.api.refresh(refreshToken: try #require(stored.refreshToken)) }
        await expectSDKError(.notSignedIn) { try await ada.latchkey.accessToken() }
        await expectSDKError(.notSignedIn) { try await ada.latchkey.passkeys() }
    }

    @Test func aDeviceWithoutAPasskeyAndAPasskeyTheServerForgot() async throws {
        let directory = try TemporaryDirectory()
        let server = try await RouterServer.start(yaml: Self.configuration, in: directory)
        defer { server.stop() }

        let nobody = try SDKPerson(server: server, email: "nobody@example.com")
        await expectSDKError(.noCredential) { try await nobody.latchkey.signIn() }

        // A passkey the server refuses (here: made for an origin it does not serve) is
        // reported unknown at once, so the device never offers it.
        let elsewhere = try SoftwarePasskeyProvider(relyingPartyID: "localhost", origin: "http://localhost:9999", contact: .email("eve@example.com"))
        let eve = try SDKPerson(server: server, email: "eve@example.com", passkeys: elsewhere)
        let refusedSignUp = await expectSDKError(.invalidGrant) { try await eve.latchkey.signUp() }
        #expect(refusedSignUp?.reason == "origin_not_allowed")
        #expect(elsewhere.credentials.isEmpty && elsewhere.receivedSignals.count == 1)

        let ada = try SDKPerson(server: server, email: "ada@example.com")
        try await ada.latchkey.signUp()
        let newest = try await ada.latchkey.addPasskey()
        // Removed behind the provider's back (another device, an administrator): the
        // provider still offers it first.
        try await ada.latchkey.api.deleteAuthenticationMethod(id: newest.id, accessToken: try await ada.latchkey.accessToken())
        #expect(ada.passkeys.credentials.count == 2)
        let refused = await expectSDKError(.invalidGrant) { try await ada.latchkey.signIn() }
        #expect(refused?.reason == "unknown_credential")
        // The SDK told the provider, which stopped offering it; the next sign-in uses the other.
        #expect(ada.passkeys.credentials.count == 1)
        #expect(ada.passkeys.receivedSignals.contains { if case .unknownCredential = $0 { true } else { false } })
        _ = try await ada.latchkey.signIn()
    }

    @Test func fromAPasswordToAPasskey() async throws {
        let directory = try TemporaryDirectory()
        let server = try await RouterServer.start(yaml: Self.configuration, in: directory)
        defer { server.stop() }

        let cal = try SDKPerson(server: server, email: "cal@example.com")
        _ = try await cal.latchkey.api.passwordSignup(email: "cal@example.com", password: "cal's long password", name: "Cal")
        let viaPassword = try await cal.latchkey.signIn(email: "cal@example.com", password: "cal's long password")
        #expect(viaPassword.method == .password && viaPassword.email == "cal@example.com" && viaPassword.name == "Cal")
        // A passkey-only call while the password is the only way in: nothing to remove yet.
        await expectSDKError("conflict") { try await cal.latchkey.removePassword() }

        let upgraded: Bool = try await cal.latchkey.upgradeToPasskey()
        #expect(upgraded)
        #expect(try await cal.latchkey.passkeys().count == 1)
        // An upgrade is for password sign-ins only.
        #expect(try await cal.latchkey.signIn().method == .passkey)
        #expect(try await cal.latchkey.upgradeToPasskey() == false)

        try await cal.latchkey.removePassword()
        #expect(cal.passkeys.receivedSignals.contains(.unusedPassword(domain: "localhost", userName: "cal@example.com")), "\(cal.passkeys.receivedSignals)")
        await expectSDKError(.invalidGrant) { try await cal.latchkey.signIn(email: "cal@example.com", password: "cal's long password") }

        // A platform that declines the automatic upgrade: no passkey, no error.
        let dee = try SDKPerson(server: server, email: "dee@example.com")
        _ = try await dee.latchkey.api.passwordSignup(email: "dee@example.com", password: "dee's long password")
        try await dee.latchkey.signIn(email: "dee@example.com", password: "dee's long password")
        dee.passkeys.declinesAutomaticUpgrades = true
        #expect(try await dee.latchkey.upgradeToPasskey() == false)
        #expect(try await dee.latchkey.passkeys().isEmpty)
    }
}
