import Authenticator
import Foundation
import IdentityCore
import LatchkeyClient
import StorageSQLite
import Testing
import WebAuthn

/// Passkey policy per application (`clients[].passkeys`, over the global `passkeys:`): the
/// options each application's ceremonies send (hints, user verification, algorithms), and
/// the passkeys each accepts, at registration and at every sign-in, in every face's shape.
@Suite("Passkey policy per application", .serialized)
struct PasskeyPolicyTests {
    static let configuration = """
        server: { public_url: http://localhost:8080 }
        relying_party: { id: localhost, name: Latchkey Test, origins: [http://localhost:8080] }
        passkeys: { hints: [client-device] }
        clients:
          - client_id: demo
            name: Demo
          - client_id: strict
            name: Device-bound only
            passkeys: { accept: device_bound, hints: [security-key, hybrid], user_verification: required, algorithms: [ES256], attestation_formats: [packed, tpm] }
          - client_id: \(IDaaSSampleApp.applicationID)
            name: IDaaS sample apps
            ios: { team_id: ABCDE12345, bundle_ids: [com.example.idaas] }
            passkeys: { accept: device_bound }
        \(IDaaSSampleApp.facesYAML)
        """

    @Test func eachApplicationsOptionsFollowItsPolicy() async throws {
        let directory = try TemporaryDirectory()
        let server = try await RouterServer.start(yaml: Self.configuration, in: directory)
        defer { server.stop() }
        let demo = LatchkeyAPIClient(baseURL: server.baseURL, clientID: "demo", transport: server.transport)
        let strict = LatchkeyAPIClient(baseURL: server.baseURL, clientID: "strict", transport: server.transport)

        let (demoLogin, _) = try await demo.loginChallenge(username: nil)
        #expect(demoLogin.hints == ["client-device"] && demoLogin.userVerification == "preferred", "the global policy")
        let (strictLogin, _) = try await strict.loginChallenge(username: nil)
        #expect(strictLogin.hints == ["security-key", "hybrid"] && strictLogin.userVerification == "required", "the application's own")

        let (demoSignup, _) = try await demo.signupChallenge(profile: .init(email: "options@example.com"))
        #expect(demoSignup.pubKeyCredParams.map(\.alg) == [.edDSA, .es256, .rs256] && demoSignup.hints == ["client-device"])
        let (strictSignup, _) = try await strict.signupChallenge(profile: .init(email: "options@example.com"))
        #expect(strictSignup.pubKeyCredParams.map(\.alg) == [.es256] && strictSignup.attestationFormats == ["packed", "tpm"])
        #expect(demoSignup.attestationFormats == nil, "left out where the policy names none")
        #expect(strictSignup.authenticatorSelection?.userVerification == "required" && strictSignup.hints == ["security-key", "hybrid"])

        // IDaaS's registration challenge has no hints: its attachment carries the first one.
        let idaas = IDaaSSampleApp(server, platform: .iOS)
        var person = PasskeyUser(server)
        try await person.signUp(.init(email: "idaas@example.com"))
        let admin = try await IDaaSFaceTests.admin(idaas)
        let (_, registration) = try await IDaaSFaceTests.registrationChallenge(idaas, email: "idaas@example.com", admin: admin)
        #expect(registration["registrationAuthenticatorAttachment"] as? String == "PLATFORM", "client-device: \(registration)")

        // A request may choose its own hints (the Authentication API's bodies), but only ones WebAuthn defines.
        let (chosenLogin, _) = try await strict.loginChallenge(username: nil, hints: ["hybrid"])
        #expect(chosenLogin.hints == ["hybrid"])
        let (chosenSignup, _) = try await demo.signupChallenge(profile: .init(email: "options@example.com"), hints: ["security-key"])
        #expect(chosenSignup.hints == ["security-key"])
        do {
            _ = try await demo.loginChallenge(username: nil, hints: ["usb-stick"])
            Issue.record("an unknown hint was sent")
        } catch {
            #expect(error.status == 400 && error.code.rawValue == "invalid_request" && (error.detail ?? "").contains("hints"), "\(error)")
        }
    }

    @Test func aDeviceBoundApplicationRefusesSyncedPasskeysInEveryFace() async throws {
        let directory = try TemporaryDirectory()
        let server = try await RouterServer.start(yaml: Self.configuration, in: directory)
        defer { server.stop() }

        // A synced passkey, registered through an application that takes any.
        var synced = PasskeyUser(server)
        synced.authenticator = SoftwareAuthenticator(createsSyncedCredentials: true)
        try await synced.signUp(.init(email: "synced@example.com"), algorithm: .es256)
        try await synced.signIn()

        // Registering one through the strict application is refused, and writes nothing.
        var refusedSignup = PasskeyUser(server, clientID: "strict")
        refusedSignup.authenticator = SoftwareAuthenticator(createsSyncedCredentials: true)
        await #expect(throws: LatchkeyAPIError.self) { try await refusedSignup.signUp(.init(email: "refused@example.com"), algorithm: .es256) }
        do {
            try await refusedSignup.signUp(.init(email: "refused@example.com"), algorithm: .es256)
        } catch let error as LatchkeyAPIError {
            #expect(error.reason == "passkey_not_allowed", "\(error)")
        }
        let storage = try SQLiteStorage(path: directory.path("latchkey.sqlite"))
        #expect(try await storage.user(identifier: .email("refused@example.com")) == nil)

        // Signing in to the strict application with the synced passkey: refused, in the
        // Authentication API's shape and in IDaaS's.
        var asStrict = PasskeyUser(server, clientID: "strict", credentials: synced.credentials)
        asStrict.authenticator = synced.authenticator
        do {
            try await asStrict.signIn()
            Issue.record("a synced passkey signed in to a device-bound application")
        } catch let error as LatchkeyAPIError {
            #expect(error.reason == "passkey_not_allowed" && error.status == 403, "\(error)")
        }
        var idaas = IDaaSSampleApp(server, platform: .iOS)
        idaas.authenticator = synced.authenticator
        idaas.credentials = asStrict.credentials
        let refused = try await idaas.signIn()
        #expect(refused.status == 401 && refused.text.contains("passkey_not_allowed"), "IDaaS: \(refused.text)")
        let events = try await storage.events(userID: try #require(try await storage.user(identifier: .email("synced@example.com"))).id, limit: 20)
        #expect(events.contains { $0.detail.hasPrefix("passkey not allowed: the passkey is synced") }, "the reason is logged")

        // A device-bound passkey signs in to both.
        var bound = PasskeyUser(server, clientID: "strict")
        try await bound.signUp(.init(email: "bound@example.com"), algorithm: .es256)
        try await bound.signIn()
        var boundOnDemo = PasskeyUser(server, credentials: bound.credentials)
        try await boundOnDemo.signIn()
        synced.credentials = idaas.credentials
        try await synced.signIn()

        // The strict application named its algorithms: an EdDSA passkey from elsewhere does not sign in.
        var edwards = PasskeyUser(server)
        try await edwards.signUp(.init(email: "edwards@example.com"), algorithm: .edDSA)
        var edwardsOnStrict = PasskeyUser(server, clientID: "strict", credentials: edwards.credentials)
        do {
            try await edwardsOnStrict.signIn()
            Issue.record("an EdDSA passkey signed in to an ES256-only application")
        } catch let error as LatchkeyAPIError {
            #expect(error.reason == "passkey_not_allowed" && (error.detail ?? "").contains("algorithm"), "\(error)")
        }
    }

    /// The Kratos face and the hosted pages are applications of their own, under the global
    /// policy: an imported synced passkey does not sign in where the global policy is
    /// device-bound only.
    @Test func theGlobalPolicyHoldsOnTheKratosFaceAndTheHostedPages() async throws {
        let directory = try TemporaryDirectory()
        let configuration = KratosFaceTests.configuration + "\npasskeys: { accept: device_bound }\n"
        try configuration.write(toFile: directory.path("latchkey.yaml"), atomically: true, encoding: .utf8)
        let id = "3b8d5f0a-2e4c-4b6d-9f7a-8c9d0e1f2a3b"
        let handle = Array("a handle from the old server".utf8)
        let (passkey, entry) = try ImportTests.registered(.es256, handle: handle, name: "sam@example.com")
        var synced = entry
        synced["flags"] = ["user_present": true, "user_verified": true, "backup_eligible": true, "backup_state": true]
        try ImportTests.write([ImportTests.kratosIdentity(id, email: "sam@example.com", passkeys: [synced], handle: handle)], to: directory.path("sam.json"))
        let run = try await CommandRun.run(
            ["import", "kratos", directory.path("sam.json"), "--config", directory.path("latchkey.yaml"), "--database", "sqlite:" + directory.path("latchkey.sqlite")],
            workingDirectory: directory.url
        )
        #expect(run.output.contains("created 1,"), "\(run.output)")

        let server = try await RouterServer.start(yaml: configuration, in: directory)
        defer { server.stop() }
        var kratos = KratosSampleApp(server, platform: .iOS)
        kratos.authenticator = SoftwareAuthenticator(createsSyncedCredentials: true)
        kratos.credentials = [passkey]
        let refused = try await kratos.signIn()
        #expect(refused.status == 400 && refused.text.contains("passkey_not_allowed"), "the Kratos face: \(refused.text)")
        let browser = BrowserAgent(server)
        browser.authenticator = kratos.authenticator
        browser.credentials = kratos.credentials
        let page = try await browser.signIn()
        #expect(page.status >= 400 && page.text.contains("passkey_not_allowed"), "the hosted pages: \(page.text)")
    }
}
