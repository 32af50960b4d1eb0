import AuthenticationServicesShim
import Foundation
import LatchkeyAuthenticationServices
import LatchkeyClient
import LatchkeyWire
import Testing

/// The AuthenticationServices provider and the keychain store, compiled against the shim of
/// the Apple API they use and driven through it: the "system sheet" is the software
/// authenticator, and the server is the real `latchkey serve`.
@Suite("SDK: the Apple glue through the AuthenticationServices shim", .serialized, .timeLimit(.minutes(10)))
struct AppleGlueTests {
    static let configuration = """
        server: { public_url: http://localhost:8080 }
        relying_party: { id: localhost, name: Latchkey Test, origins: [http://localhost:8080] }
        clients:
          - client_id: shiny
            name: Shiny
            grant_types: [webauthn, refresh_token, password]
            ios: { team_id: ABCDE12345, bundle_ids: [com.example.shiny] }
        """

    private func app(_ server: ServerProcess, accessGroup: String = "ABCDE12345.com.example.shared") -> Latchkey {
        Latchkey(
            configuration: LatchkeyClient.LatchkeyConfiguration(server: server.baseURL, clientID: "shiny"),
            passkeys: AuthenticationServicesPasskeyProvider(relyingPartyID: "localhost", presentationAnchor: { ShimWindow() }),
            tokens: KeychainTokenStore(accessGroup: accessGroup)
        )
    }

    /// Runs `body` against a fresh server, the platform's half, and an app's SDK over both.
    private func withApp(_ body: (ServerProcess, FakeApplePlatform, Latchkey) async throws -> Void) async throws {
        let directory = try TemporaryDirectory()
        let server = try await ServerProcess.start(configuration: Self.configuration, in: directory)
        defer { server.stop() }
        try await body(server, FakeApplePlatform(), app(server))
    }

    @Test func signUpSignInAndPasskeysThroughThePlatform() async throws {
        try await withApp { server, platform, latchkey in

            // The account creation API: the sheet's identifier and name make the account.
            let account = try await latchkey.signUp()
            #expect(account.email == "ada@example.com" && account.name == "Ada Lovelace")
            let creation = try #require(platform.performed.last?.0 as? ASAuthorizationAccountCreationPlatformPublicKeyCredentialRequest)
            #expect(creation.acceptedContactIdentifiers == [.email] && creation.shouldRequestName && creation.relyingPartyIdentifier == "localhost")

            // Sign-in prefers credentials at hand.
            #expect(try await latchkey.signIn().userID == account.userID)
            #expect(platform.performed.last?.1 == .immediate)

            // Another passkey: the request names the one the account has, so the device that holds
            // it makes no second one; another device does.
            await expectSDKError(.passkeyExists) { try await latchkey.addPasskey() }
            platform.switchDevice()
            let added = try await latchkey.addPasskey()
            let registration = try #require(platform.performed.last?.0 as? ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest)
            #expect(registration.excludedCredentials.count == 1 && registration.requestStyle == .standard)
            #expect(try await latchkey.passkeys().count == 2)

            // Removing one reports what remains to the credential managers (26.2's API here).
            try await latchkey.removePasskey(id: added.id)
            let accepted = try #require(ShimAuthorization.reports.last { $0.method == "reportAllAcceptedPublicKeyCredentials" })
            #expect(accepted.api == "ASCredentialDataManager" && accepted.relyingParty == "localhost" && accepted.values.count == 2, "user handle and one ID")
            try await latchkey.reportSignals()
            #expect(ShimAuthorization.reports.contains { $0.method == "reportPublicKeyCredentialUpdate" && $0.values.last == Data("ada@example.com".utf8) })

            // The keychain: an extension in the same access group shares the sign-in; another
            // group does not see it.
            #expect(try await app(server).session?.userID == account.userID)
            #expect(try await app(server, accessGroup: "ABCDE12345.com.example.other").session == nil)
            try await latchkey.signOut()
            #expect(try await app(server).session == nil)
            #expect(ShimKeychain.count == 0)
        }
    }

    /// PRF through the platform: the salts reach the passkey as iOS 18's PRF assertion input,
    /// its secrets come back to the app, and the server is sent none of them.
    @Test func prfSecretsReachTheAppAndNotTheServer() async throws {
        try await withApp { server, platform, latchkey in
            let account = try await latchkey.signUp()

            let one = Base64URLBytes(Array("one".utf8)), two = Base64URLBytes(Array("two".utf8))
            let (session, secrets) = try await latchkey.signIn(prf: PRFInputs(eval: PRFValues(first: one, second: two)))
            #expect(session.userID == account.userID)
            let request = try #require(platform.performed.last?.0 as? ASAuthorizationPlatformPublicKeyCredentialAssertionRequest)
            #expect(request.prf?.inputValues?.saltInput1 == Data("one".utf8) && request.prf?.inputValues?.saltInput2 == Data("two".utf8))
            let first = try #require(secrets?.first)
            #expect(first.bytes.count == 32)
            #expect(secrets?.second != nil && secrets?.second != first, "another salt, another secret")

            // The same passkey and salt give the same secret, by credential ID too.
            #expect(try await latchkey.signIn(prf: PRFInputs(eval: PRFValues(first: one))).prf?.first == first)
            let credentialID = try #require(try await latchkey.passkeys().first?.credentialID)
            let byCredential = try await latchkey.signIn(username: "ada@example.com", prf: PRFInputs(evalByCredential: [credentialID: PRFValues(first: one)]))
            #expect(byCredential.prf?.first == first)
            let perCredential = try #require(platform.performed.last?.0 as? ASAuthorizationPlatformPublicKeyCredentialAssertionRequest)
            #expect(perCredential.prf?.perCredentialInputValues?.count == 1 && perCredential.prf?.inputValues == nil)
            #expect(!server.output.text.contains(Base64URL.encode(first.bytes)), "the server never saw the secret")

            // A sign-in with a phone's passkey is the moment to offer one on this device.
            #expect(await latchkey.lastSignInUsedAnotherDevice == false)
            platform.isAnotherDevice = true
            try await latchkey.signIn(mode: .modal)
            #expect(await latchkey.lastSignInUsedAnotherDevice == true)
        }
    }

    @Test func whatThePersonAndThePlatformRefuse() async throws {
        try await withApp { server, platform, latchkey in

            await expectSDKError(.noCredential) { try await latchkey.signIn() }
            platform.nextError = .deviceNotConfiguredForPasskeyCreation
            await expectSDKError(.deviceNotConfigured) { try await latchkey.signUp() }
            platform.nextError = .preferSignInWithApple
            await expectSDKError(.preferSignInWithApple) { try await latchkey.signUp() }
            platform.nextError = .canceled
            await expectSDKError(.cancelled) { try await latchkey.signUp() }
            #expect(platform.passkeyCount == 0)

            // A password sign-in, then the automatic upgrade: a conditional request, no sheet.
            _ = try await latchkey.api.passwordSignup(email: "cal@example.com", password: "cal's long password")
            try await latchkey.signIn(email: "cal@example.com", password: "cal's long password")
            platform.declinesConditional = true
            #expect(try await latchkey.upgradeToPasskey() == false)
            platform.declinesConditional = false
            #expect(try await latchkey.upgradeToPasskey())
            let upgrade = try #require(platform.performed.last?.0 as? ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest)
            #expect(upgrade.requestStyle == .conditional && upgrade.name == "cal@example.com")
            #expect(try await latchkey.passkeys().count == 1)
        }
    }
}
