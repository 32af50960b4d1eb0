import Authenticator
import Crypto
import Foundation
import LatchkeyClient
import PKITestSupport
import Testing
import WebAuthn

/// FIDO metadata against the real `latchkey` process: a BLOB and a root the test makes
/// itself, registrations judged by it, a new BLOB taken in without a restart (from the
/// configured file and through `latchkey mds update`), and bad BLOBs refused.
@Suite("FIDO metadata: a real server process", .serialized, .timeLimit(.minutes(10)))
struct MetadataEndToEndTests {
    let directory: TemporaryDirectory
    let service: TestMetadataService
    let modelRoot: TestIssuer
    let batchKey = P256.Signing.PrivateKey()
    let chain: [[UInt8]]
    let certified = "6a7b8c9d-0e1f-4a2b-9c3d-4e5f60718293"
    let revoked = "00000000-1111-2222-3333-444444444444"
    let now = Date()

    init() throws {
        directory = try TemporaryDirectory()
        service = try TestMetadataService(now: now)
        modelRoot = try TestPKI.root("Model Attestation Root", notBefore: now - 365 * TestPKI.day, notAfter: now + 3650 * TestPKI.day)
        chain = [try TestPKI.packedAttestationCertificate(for: batchKey, issuer: modelRoot, notBefore: now - TestPKI.day, notAfter: now + 365 * TestPKI.day)]
        try service.rootPEM.write(toFile: directory.path("mds-root.pem"), atomically: true, encoding: .utf8)
    }

    var nextUpdate: String { TestMetadataService.day(now + 30 * TestPKI.day) }
    var today: String { TestMetadataService.day(now) }

    func blob(_ number: Int, certifiedStatus: String = "FIDO_CERTIFIED_L1") throws -> [UInt8] {
        try service.blob(number: number, nextUpdate: nextUpdate, entries: [
            TestMetadataService.entry(aaguid: certified, description: "Test Key 5", roots: [modelRoot.der], statuses: [(certifiedStatus, today)]),
            TestMetadataService.entry(aaguid: revoked, description: "Leaky Key", roots: [modelRoot.der], statuses: [("FIDO_CERTIFIED", "2023-01-01"), ("REVOKED", today)]),
        ])
    }

    var configuration: String {
        """
        server: { public_url: http://localhost:8080 }
        relying_party: { id: localhost, name: Latchkey Test, origins: [http://localhost:8080] }
        passkeys:
          attestation:
            requirement: trusted
            metadata:
              blob: \(directory.path("blob.jwt"))
              root_certificate: \(directory.path("mds-root.pem"))
              refresh: 1s
        """
    }

    func write(_ bytes: [UInt8], to name: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: directory.path(name)), options: .atomic)
    }

    func user(_ server: ServerProcess, aaguid: String, attestation: SoftwareAuthenticator.Attestation? = nil) -> PasskeyUser {
        var user = PasskeyUser(server)
        user.authenticator = SoftwareAuthenticator(aaguid: AAGUID(uuidString: aaguid)!, attestation: attestation ?? .packed(key: batchKey, chain: chain))
        return user
    }

    func signUpError(_ user: inout PasskeyUser, _ email: String) async -> LatchkeyAPIError? {
        do {
            try await user.signUp(SignupProfile(email: email))
            return nil
        } catch let error as LatchkeyAPIError {
            return error
        } catch {
            Issue.record("unexpected \(error)")
            return nil
        }
    }

    @Test func registrationsAreJudgedByTheBLOBAndANewOneIsTakenInWithoutARestart() async throws {
        try write(try blob(1), to: "blob.jwt")
        let server = try await ServerProcess.start(configuration: configuration, in: directory)
        defer { server.stop() }
        #expect(server.output.text.contains("metadata BLOB no 1 in use (2 entries"), "\(server.output.text)")

        // Trusted through the model's metadata root, and asked for as direct attestation.
        var ada = user(server, aaguid: certified)
        let (options, _) = try await ada.client.signupChallenge(profile: SignupProfile(email: "probe@example.com"))
        #expect(options.attestation == "direct")
        try await ada.signUp(SignupProfile(email: "ada@example.com"))

        // A model whose latest status is REVOKED is refused, naming the rule.
        var eve = user(server, aaguid: revoked)
        let refused = await signUpError(&eve, "eve@example.com")
        #expect(refused?.reason == "authenticator_status_refused", "\(String(describing: refused))")
        #expect(refused?.detail?.contains("REVOKED") == true)

        // Without attestation nothing vouches for the authenticator.
        var mallory = user(server, aaguid: certified, attestation: SoftwareAuthenticator.Attestation.none)
        #expect(await signUpError(&mallory, "mallory@example.com")?.reason == "attestation_untrusted")

        // A new BLOB in the configured file is picked up by the refresh, without a restart:
        // the certified model is now revoked too, and Ada's passkey is flagged.
        try write(try blob(2, certifiedStatus: "REVOKED"), to: "blob.jwt")
        var bob = user(server, aaguid: certified)
        var reason: String?
        let deadline = Date().addingTimeInterval(20)
        repeat {
            try await Task.sleep(for: .milliseconds(300))
            bob = user(server, aaguid: certified)
            reason = await signUpError(&bob, "bob-\(UUID().uuidString.prefix(8))@example.com")?.reason
        } while reason == nil && Date() < deadline
        #expect(reason == "authenticator_status_refused")
        try await server.waitForOutput("registered passkey(s) a refused authenticator status")
        #expect(server.output.text.contains("metadata BLOB no 2 in use"), "\(server.output.text)")
        // Ada's passkey, and any Bob registered before the refresh came round.
        #expect(server.output.text.contains("registered passkey(s) a refused authenticator status"), "\(server.output.text)")

        // A tampered BLOB in the file is refused at the next refresh; BLOB no 2 stays in use.
        var tampered = try blob(3)
        let payload = try #require(tampered.firstIndex(of: UInt8(ascii: "."))) + 20
        tampered[payload] = tampered[payload] == UInt8(ascii: "x") ? UInt8(ascii: "y") : UInt8(ascii: "x")
        try write(tampered, to: "blob.jwt")
        let refusedDeadline = Date().addingTimeInterval(20)
        while !server.output.text.contains("failed validation"), Date() < refusedDeadline {
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(server.output.text.contains("failed validation (metadata BLOB:"), "\(server.output.text)")
        #expect(server.output.text.contains("keeping BLOB no 2"), "\(server.output.text)")
        #expect(!server.output.text.contains("metadata BLOB no 3"), "\(server.output.text)")

        // The Admin API shows the BLOB in use and the models it refuses.
        let made = try await CommandRun.run(
            ["admin", "keys", "create", "--name", "metadata", "--scopes", "clients:read", "--database", "sqlite:" + directory.path("latchkey.sqlite")],
            workingDirectory: directory.url
        )
        let key = try #require(made.output.split(separator: "\n").last.map(String.init))
        let state = try await RawHTTP(server).send("GET", "/admin/v1/metadata", contentType: nil, headers: ["Authorization": "Bearer " + key]).json
        #expect(state["configured"] as? Bool == true && state["blob_number"] as? Int == 2 && state["entries"] as? Int == 2, "\(state)")
        let models = (state["refused_models"] as? [[String: Any]] ?? []).compactMap { $0["identifier"] as? String }
        #expect(Set(models) == [certified, revoked], "\(state)")
        #expect((state["refused_statuses"] as? [String])?.contains("REVOKED") == true)
    }

    /// `latchkey mds update` stores a BLOB; a running server whose own refresh is a day away
    /// uses it within ten seconds, because every instance reads the stored BLOB's number
    /// every few seconds.
    @Test func aStoredBLOBReachesARunningServerWithinTenSeconds() async throws {
        try write(try blob(1), to: "blob.jwt")
        let daily = configuration.replacingOccurrences(of: "refresh: 1s", with: "refresh: 24h")
        let server = try await ServerProcess.start(configuration: daily, in: directory)
        defer { server.stop() }
        var ada = user(server, aaguid: certified)
        try await ada.signUp(SignupProfile(email: "ada@example.com"))

        try write(try blob(2, certifiedStatus: "REVOKED"), to: "urgent.jwt")
        let arguments = ["--config", directory.path("latchkey.yaml"), "--database", "sqlite:" + directory.path("latchkey.sqlite")]
        let update = try await CommandRun.run(["mds", "update", "--blob", directory.path("urgent.jwt")] + arguments, workingDirectory: directory.url)
        #expect(update.status == 0, "\(update.output)")
        let stored = ContinuousClock.now
        try await server.waitForOutput("metadata BLOB no 2 picked up from the database", timeout: 10)
        #expect(ContinuousClock.now - stored < .seconds(10), "picked up in \(ContinuousClock.now - stored)")
        #expect(server.output.text.contains("metadata BLOB no 2 picked up from the database"), "\(server.output.text.suffix(1500))")
        var bob = user(server, aaguid: certified)
        #expect(await signUpError(&bob, "bob@example.com")?.reason == "authenticator_status_refused", "the running server uses BLOB no 2")
    }

    @Test func mdsUpdateStoresNewerBLOBsAndRefusesOlderAndTamperedOnes() async throws {
        try write(try blob(5), to: "blob.jwt")
        let arguments = ["--config", directory.path("latchkey.yaml"), "--database", "sqlite:" + directory.path("latchkey.sqlite")]
        try configuration.write(toFile: directory.path("latchkey.yaml"), atomically: true, encoding: .utf8)

        let first = try await CommandRun.run(["mds", "update"] + arguments, workingDirectory: directory.url)
        #expect(first.status == 0, "\(first.output)")
        #expect(first.output.contains("stored metadata BLOB no 5 (2 entries"), "\(first.output)")

        try write(try blob(6), to: "newer.jwt")
        let newer = try await CommandRun.run(["mds", "update", "--blob", directory.path("newer.jwt")] + arguments, workingDirectory: directory.url)
        #expect(newer.status == 0 && newer.output.contains("replacing no 5"), "\(newer.output)")

        try write(try blob(4), to: "older.jwt")
        let older = try await CommandRun.run(["mds", "update", "--blob", directory.path("older.jwt")] + arguments, workingDirectory: directory.url)
        #expect(older.status == 65, "\(older.output)")
        #expect(older.output.contains("no 4 is lower than the stored BLOB's 6"), "\(older.output)")

        var tampered = try blob(7)
        let payload = try #require(tampered.firstIndex(of: UInt8(ascii: "."))) + 20
        tampered[payload] = tampered[payload] == UInt8(ascii: "x") ? UInt8(ascii: "y") : UInt8(ascii: "x")
        try write(tampered, to: "tampered.jwt")
        let bad = try await CommandRun.run(["mds", "update", "--blob", directory.path("tampered.jwt")] + arguments, workingDirectory: directory.url)
        #expect(bad.status == 65, "\(bad.output)")
        #expect(bad.output.contains("failed validation: metadata BLOB:"), "\(bad.output)")

        let missing = try await CommandRun.run(["mds", "update", "--blob", directory.path("absent.jwt")] + arguments, workingDirectory: directory.url)
        #expect(missing.status == 69, "\(missing.output)")

        // The server starts on the stored BLOB (no 6), not the configured file's older no 5.
        let server = try await ServerProcess.start(configuration: configuration, in: directory)
        defer { server.stop() }
        #expect(server.output.text.contains("metadata BLOB no 6 loaded from the database"), "\(server.output.text)")
        var ada = user(server, aaguid: certified)
        try await ada.signUp(SignupProfile(email: "ada@example.com"))
    }

    /// The BLOB downloaded over HTTP as `latchkey mds update URL` and the server fetch it: a
    /// redirect is reported with its target rather than followed, and a missing file is an
    /// HTTP error, both exit 69 with nothing stored.
    @Test func mdsUpdateDownloadsTheBLOBAndReportsRedirects() async throws {
        let text = String(decoding: try blob(3), as: UTF8.self)
        let site = try await FixedResponseServer.start([
            "/blob.jwt": .init(contentType: "application/jose", body: text),
            "/moved": .init(status: .found, location: "https://mds3.example/blob.jwt", body: ""),
        ])
        defer { Task { await site.stop() } }
        try configuration.write(toFile: directory.path("latchkey.yaml"), atomically: true, encoding: .utf8)
        let arguments = ["--config", directory.path("latchkey.yaml"), "--database", "sqlite:" + directory.path("latchkey.sqlite")]

        let moved = try await CommandRun.run(["mds", "update", "--blob", "\(site.url)/moved"] + arguments, workingDirectory: directory.url)
        #expect(moved.status == 69, "\(moved.output)")
        #expect(moved.output.contains("HTTP 302 (redirected to https://mds3.example/blob.jwt; configure that URL)"), "\(moved.output)")
        let missing = try await CommandRun.run(["mds", "update", "--blob", "\(site.url)/absent.jwt"] + arguments, workingDirectory: directory.url)
        #expect(missing.status == 69 && missing.output.contains("HTTP 404"), "\(missing.output)")

        let fetched = try await CommandRun.run(["mds", "update", "--blob", "\(site.url)/blob.jwt"] + arguments, workingDirectory: directory.url)
        #expect(fetched.status == 0, "\(fetched.output)")
        #expect(fetched.output.contains("stored metadata BLOB no 3 (2 entries"), "\(fetched.output)")
    }

    @Test func aBLOBThatFailsValidationStopsTheServerWithExit78() async throws {
        let stranger = try TestMetadataService(now: now)
        try write(try stranger.blob(number: 1, nextUpdate: nextUpdate, entries: []), to: "blob.jwt")
        try configuration.write(toFile: directory.path("latchkey.yaml"), atomically: true, encoding: .utf8)
        let run = try await CommandRun.run(
            ["serve", "--port", "0", "--config", directory.path("latchkey.yaml"), "--database", "sqlite:" + directory.path("latchkey.sqlite")],
            workingDirectory: directory.url, timeout: 60
        )
        #expect(run.status == 78, "\(run.output)")
        #expect(run.output.contains("passkeys.attestation.metadata.blob"), "\(run.output)")
        #expect(run.output.contains("does not chain to the metadata root"), "\(run.output)")

        try write(try service.blob(number: 1, nextUpdate: "2020-01-01", entries: []), to: "blob.jwt")
        let stale = try await CommandRun.run(
            ["serve", "--port", "0", "--config", directory.path("latchkey.yaml"), "--database", "sqlite:" + directory.path("latchkey.sqlite")],
            workingDirectory: directory.url, timeout: 60
        )
        #expect(stale.status == 78, "\(stale.output)")
        #expect(stale.output.contains("out of date"), "\(stale.output)")
    }
}
