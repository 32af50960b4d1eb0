import Crypto
import CryptoExtras
import Foundation
import LatchkeyClient
import Testing
import WebAuthn

/// The real `latchkey` executable and a real SQLite file, driven over HTTP by a software
/// authenticator, the way an app would.
@Suite("End to end: a real server process", .serialized, .timeLimit(.minutes(10)))
struct EndToEndTests {
    static let configuration = """
        server: { public_url: http://localhost:8080 }
        relying_party: { id: localhost, name: Latchkey Test, origins: [http://localhost:8080] }
        clients:
          - client_id: demo
            name: Demo app
            grant_types: [webauthn, refresh_token]
          - client_id: backend
            name: Backend
            client_secret: a-long-enough-test-secret
            grant_types: [webauthn, refresh_token]
        """

    private func startServer(_ directory: TemporaryDirectory) async throws -> ServerProcess {
        try await ServerProcess.start(configuration: Self.configuration, in: directory)
    }

    @Test func signUpSignInEnrollManageAndRefresh() async throws {
        let directory = try TemporaryDirectory()
        let server = try await startServer(directory)
        defer { server.stop() }
        var ada = PasskeyUser(server)

        // Sign up: an account and its first passkey, and tokens.
        let signup = try await ada.signUp(SignupProfile(email: "ada@example.com", name: "Ada Lovelace"))
        let idClaims = claims(of: try #require(signup.idToken))
        #expect(idClaims["iss"] as? String == "http://localhost:8080/")
        #expect(idClaims["aud"] as? String == "demo")
        #expect(idClaims["email"] as? String == "ada@example.com")
        #expect(idClaims["name"] as? String == "Ada Lovelace")
        #expect(signup.refreshToken != nil)
        #expect(signup.tokenType == "Bearer")
        try await expectSignedByServer(try #require(signup.idToken), server: server.baseURL)
        try await expectSignedByServer(signup.accessToken, server: server.baseURL)
        // ID tokens RS256 by default (OpenID Connect's mandatory algorithm, and Auth0's); access
        // tokens ES256. Discovery's jwks_uri lists every key; /.well-known/jwks.json the RSA
        // keys alone, which is all Auth0's SDKs can read there.
        #expect(header(of: try #require(signup.idToken))["alg"] as? String == "RS256" && header(of: signup.accessToken)["alg"] as? String == "ES256")
        let http = RawHTTP(server)
        let discovery = try await http.send("GET", "/.well-known/openid-configuration", contentType: nil).json
        #expect(discovery["jwks_uri"] as? String == "http://localhost:8080/oauth/jwks")
        #expect((discovery["id_token_signing_alg_values_supported"] as? [String])?.first == "RS256")
        let rsaOnly = try await http.send("GET", "/.well-known/jwks.json", contentType: nil).json["keys"] as? [[String: Any]] ?? []
        #expect(!rsaOnly.isEmpty && rsaOnly.allSatisfy { $0["kty"] as? String == "RSA" && $0["n"] is String && $0["e"] as? String == "AQAB" && $0["x"] == nil }, "\(rsaOnly)")
        #expect(try await jwks(server.baseURL).map { $0["alg"] as? String }.contains("ES256"))
        let subject = try #require(idClaims["sub"] as? String)

        // The identifier now exists: signing up again is refused so the app switches to login.
        await #expect(throws: LatchkeyAPIError.self) { try await ada.client.signupChallenge(profile: SignupProfile(email: "ada@example.com")) }

        // Userinfo.
        let info = try await ada.client.userInfo(accessToken: signup.accessToken)
        #expect(info.subject == subject)

        // Discoverable login, then login by username.
        let login = try await ada.signIn()
        #expect(claims(of: try #require(login.idToken))["sub"] as? String == subject)
        let named = try await ada.signIn(username: "ADA@example.com")
        #expect(claims(of: named.accessToken)["sub"] as? String == subject)

        // Enroll a second passkey, then manage both.
        let second = try await ada.enroll(accessToken: login.accessToken, algorithm: .edDSA)
        #expect(second.type == "passkey")
        var methods = try await ada.client.authenticationMethods(accessToken: login.accessToken)
        #expect(methods.count == 2)
        let first = try #require(methods.first { $0.id != second.id })
        #expect(first.createdAt != nil)
        #expect(first.lastAuthAt != nil)
        #expect(first.credentialDeviceType == "single_device")
        #expect(first.credentialBackedUp == false)
        #expect(first.transports == ["internal", "hybrid"])

        let renamed = try await ada.client.renameAuthenticationMethod(id: second.id, name: "Backup key", accessToken: login.accessToken)
        #expect(renamed.name == "Backup key")
        await expectAPIError(status: 409) { try await ada.client.renameAuthenticationMethod(id: first.id, name: "Backup key", accessToken: login.accessToken) }
        try await ada.client.deleteAuthenticationMethod(id: second.id, accessToken: login.accessToken)
        await expectAPIError(status: 409) { try await ada.client.deleteAuthenticationMethod(id: first.id, accessToken: login.accessToken) }
        methods = try await ada.client.authenticationMethods(accessToken: login.accessToken)
        #expect(methods.map(\.id) == [first.id])

        // Refresh rotates; presenting a rotated token again revokes the whole session.
        let originalRefresh = try #require(login.refreshToken)
        let refreshed = try await ada.client.refresh(refreshToken: originalRefresh)
        let rotatedRefresh = try #require(refreshed.refreshToken)
        #expect(rotatedRefresh != originalRefresh)
        #expect(try await ada.client.userInfo(accessToken: refreshed.accessToken).subject == subject)
        let reuse = await expectAPIError(status: 403) { try await ada.client.refresh(refreshToken: originalRefresh) }
        #expect(reuse?.reason == "refresh_token_reused")
        await expectAPIError(status: 403) { try await ada.client.refresh(refreshToken: rotatedRefresh) }
        await expectAPIError(status: 401) { try await ada.client.userInfo(accessToken: refreshed.accessToken) }

        // Revocation ends a session too.
        let other = try await ada.signIn()
        try await ada.client.revoke(token: try #require(other.refreshToken))
        await expectAPIError(status: 401) { try await ada.client.userInfo(accessToken: other.accessToken) }
    }

    @Test func restartsKeepTokensValidAndRotationKeepsOldKeysPublished() async throws {
        let directory = try TemporaryDirectory()
        var server = try await startServer(directory)
        var ada = PasskeyUser(server)
        let tokens = try await ada.signUp(SignupProfile(username: "ada"))
        server.stop()

        server = try await startServer(directory)
        defer { server.stop() }
        ada = PasskeyUser(server, credentials: ada.credentials)
        #expect(try await ada.client.userInfo(accessToken: tokens.accessToken).subject == claims(of: tokens.accessToken)["sub"] as? String)

        let rotate = try await CommandRun.run(["keys", "rotate", "--config", directory.path("latchkey.yaml"), "--database", "sqlite:" + directory.path("latchkey.sqlite")], workingDirectory: directory.url)
        #expect(rotate.status == 0, "\(rotate.output)")
        #expect(rotate.output.contains("new ES256 signing key"))

        // The running server picks up the new key when it meets an unknown kid or its cache ages;
        // a fresh server process uses it at once.
        server.stop()
        server = try await startServer(directory)
        ada = PasskeyUser(server, credentials: ada.credentials)
        let keys = try await jwks(server.baseURL)
        #expect(keys.filter { $0["kty"] as? String == "EC" }.count == 2, "the ES256 key and the one it replaced: \(keys)")
        let fresh = try await ada.signIn()
        #expect(header(of: fresh.accessToken)["kid"] as? String != header(of: tokens.accessToken)["kid"] as? String)
        #expect(try await ada.client.userInfo(accessToken: tokens.accessToken).subject.isEmpty == false)
        try await expectSignedByServer(fresh.accessToken, server: server.baseURL)
    }

    @Test func confidentialClientsMustAuthenticate() async throws {
        let directory = try TemporaryDirectory()
        let server = try await startServer(directory)
        defer { server.stop() }
        var withSecret = PasskeyUser(server, clientID: "backend", clientSecret: "a-long-enough-test-secret")
        try await withSecret.signUp(SignupProfile(email: "backend-user@example.com"))

        let noSecret = PasskeyUser(server, clientID: "backend")
        await expectAPIError(status: 401) { try await noSecret.client.loginChallenge() }
        let wrongSecret = PasskeyUser(server, clientID: "backend", clientSecret: "not-the-right-secret-at-all")
        await expectAPIError(status: 401) { try await wrongSecret.client.loginChallenge() }
        let unknown = PasskeyUser(server, clientID: "nobody")
        await expectAPIError(status: 401) { try await unknown.client.loginChallenge() }
    }

    @Test func theAuthenticatorCommandsWorkAgainstTheServer() async throws {
        let directory = try TemporaryDirectory()
        let server = try await startServer(directory)
        defer { server.stop() }
        let common = ["--server", server.baseURL.absoluteString, "--origin", "http://localhost:8080", "--store", directory.path("store.json")]

        let signup = try await CommandRun.run(["authenticator", "signup", "--email", "cli@example.com", "--name", "Cli User"] + common, workingDirectory: directory.url)
        #expect(signup.status == 0, "\(signup.output)")
        let login = try await CommandRun.run(["authenticator", "login"] + common, workingDirectory: directory.url)
        #expect(login.status == 0, "\(login.output)")
        let enroll = try await CommandRun.run(["authenticator", "enroll", "--algorithm", "eddsa"] + common, workingDirectory: directory.url)
        #expect(enroll.status == 0, "\(enroll.output)")
        let list = try await CommandRun.run(["authenticator", "list"] + common, workingDirectory: directory.url)
        #expect(list.status == 0, "\(list.output)")
        #expect(list.output.components(separatedBy: "passkey|").count - 1 == 2, "\(list.output)")

        let duplicate = try await CommandRun.run(["authenticator", "signup", "--email", "cli@example.com"] + common, workingDirectory: directory.url)
        #expect(duplicate.status != 0)
        #expect(duplicate.output.contains("invalid_request"), "\(duplicate.output)")
    }

    /// Operator-facing edges of the command: its version, a port already taken, the line it
    /// logs when it stops, and where the software authenticator keeps its private keys.
    @Test func versionPortInUseShutdownAndTheAuthenticatorsStore() async throws {
        let directory = try TemporaryDirectory()
        let version = try await CommandRun.run(["--version"], workingDirectory: directory.url)
        #expect(version.status == 0)
        #expect(version.output.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".").count == 3, "\(version.output)")

        let server = try await startServer(directory)
        let port = try #require(server.baseURL.port)
        let taken = try await CommandRun.run(
            ["serve", "--port", String(port), "--database", "sqlite:" + directory.path("other.sqlite")], workingDirectory: directory.url, timeout: 30
        )
        #expect(taken.status == 69)
        #expect(taken.output.contains("cannot listen on 127.0.0.1:\(port): the port is already in use"), "\(taken.output)")

        // Without --store, the keys go to the user's configuration directory, owner-only.
        let configuration = directory.path("config")
        let signup = try await CommandRun.run(
            ["authenticator", "signup", "--email", "store@example.com", "--server", server.baseURL.absoluteString, "--origin", "http://localhost:8080"],
            workingDirectory: directory.url, environment: ["XDG_CONFIG_HOME": configuration]
        )
        #expect(signup.status == 0, "\(signup.output)")
        let store = configuration + "/latchkey/authenticator.json"
        let attributes = try FileManager.default.attributesOfItem(atPath: store)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(!FileManager.default.fileExists(atPath: directory.path("latchkey-authenticator.json")))

        server.stop()
        #expect(server.output.text.contains("Latchkey stopped"), "a shutdown line")
    }

    @Test func migrateAndBadConfigurationFromTheCommandLine() async throws {
        let directory = try TemporaryDirectory()
        let migrate = try await CommandRun.run(["migrate", "--database", "sqlite:" + directory.path("m.sqlite")], workingDirectory: directory.url)
        #expect(migrate.status == 0, "\(migrate.output)")
        #expect(FileManager.default.fileExists(atPath: directory.path("m.sqlite")))

        try "server: { port: 99999 }".write(toFile: directory.path("bad.yaml"), atomically: true, encoding: .utf8)
        let bad = try await CommandRun.run(["serve", "--config", directory.path("bad.yaml")], workingDirectory: directory.url)
        #expect(bad.status != 0)
        #expect(bad.output.contains("server.port"), "\(bad.output)")

        let badOrigin = try await CommandRun.run(["serve", "--rp-id", "example.com"], workingDirectory: directory.url)
        #expect(badOrigin.status != 0)
        #expect(badOrigin.output.contains("relying_party.origins[0]"), "\(badOrigin.output)")

        let badEnvironment = try await CommandRun.run(["serve"], workingDirectory: directory.url, environment: ["LATCHKEY_DATABASE": "mysql://x"])
        #expect(badEnvironment.status == 78)
        #expect(badEnvironment.output.contains("LATCHKEY_DATABASE: must be sqlite:PATH"), "\(badEnvironment.output)")

        // Two mistakes in the file and one on the command line: all three at once, by name.
        try "server: { idle_timeout: 0s }\nlogging: { level: loud }\n".write(toFile: directory.path("two.yaml"), atomically: true, encoding: .utf8)
        let three = try await CommandRun.run(["serve", "--config", directory.path("two.yaml"), "--port", "70000"], workingDirectory: directory.url)
        #expect(three.status == 78)
        for name in ["3 problems:", "--port: must be between 0 and 65535", "server.idle_timeout:", "logging.level:"] {
            #expect(three.output.contains(name), "\(name): \(three.output)")
        }

        // A database that cannot be opened names its flag and what to check (EX_IOERR).
        let unopenable = try await CommandRun.run(
            ["serve", "--port", "0", "--database", "sqlite:" + directory.path("missing/dir/x.sqlite")], workingDirectory: directory.url, timeout: 30
        )
        #expect(unopenable.status == 74)
        #expect(unopenable.output.contains("(from --database)") && unopenable.output.contains("exists and is writable"), "\(unopenable.output)")

        // So does a PostgreSQL server that is not there, without repeating the password.
        let closedPort = try freePort()
        let unreachable = try await CommandRun.run(
            ["serve", "--port", "0", "--database", "postgres://latchkey:hunter2@127.0.0.1:\(closedPort)/latchkey?connect_timeout=2"],
            workingDirectory: directory.url, timeout: 60
        )
        #expect(unreachable.status == 74)
        #expect(unreachable.output.contains("(from --database)") && unreachable.output.contains("127.0.0.1:\(closedPort)"), "\(unreachable.output)")
        #expect(!unreachable.output.contains("hunter2"), "\(unreachable.output)")
    }
}

// MARK: - Helpers

@discardableResult
func expectAPIError(status: Int, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> some Any) async -> LatchkeyAPIError? {
    do {
        _ = try await body()
        Issue.record("expected HTTP \(status), but the call succeeded", sourceLocation: sourceLocation)
        return nil
    } catch let error as LatchkeyAPIError {
        #expect(error.status == status, "expected HTTP \(status), got \(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected LatchkeyAPIError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

func header(of jwt: String) -> [String: Any] {
    guard let part = jwt.split(separator: ".").first, let bytes = Base64URL.decode(part),
        let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
    else { return [:] }
    return object
}

/// Every published key, as discovery's `jwks_uri` (`/oauth/jwks`) lists them.
func jwks(_ server: URL) async throws -> [[String: Any]] {
    let reply = try await RawHTTP(baseURL: server).send("GET", "/oauth/jwks", contentType: nil)
    return reply.json["keys"] as? [[String: Any]] ?? []
}

/// Verifies a JWT's signature (ES256, RS256 or PS256, as its header says and its key's `alg`
/// agrees) with the key the server publishes for its `kid`.
func expectSignedByServer(_ jwt: String, server: URL, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let keyID = try #require(header(of: jwt)["kid"] as? String, sourceLocation: sourceLocation)
    let algorithm = try #require(header(of: jwt)["alg"] as? String, sourceLocation: sourceLocation)
    let key = try #require(try await jwks(server).first { $0["kid"] as? String == keyID }, sourceLocation: sourceLocation)
    #expect(key["alg"] as? String == algorithm, sourceLocation: sourceLocation)
    let parts = jwt.split(separator: ".")
    let input = Data((parts[0] + "." + parts[1]).utf8)
    let signature = try #require(Base64URL.decode(parts[2]))
    switch algorithm {
    case "ES256":
        let x = try #require(Base64URL.decode(key["x"] as? String ?? ""))
        let y = try #require(Base64URL.decode(key["y"] as? String ?? ""))
        let publicKey = try P256.Signing.PublicKey(x963Representation: [0x04] + x + y)
        #expect(publicKey.isValidSignature(try P256.Signing.ECDSASignature(rawRepresentation: signature), for: input), sourceLocation: sourceLocation)
    case "RS256", "PS256":
        let publicKey = try _RSA.Signing.PublicKey(n: try #require(Base64URL.decode(key["n"] as? String ?? "")), e: try #require(Base64URL.decode(key["e"] as? String ?? "")))
        let padding: _RSA.Signing.Padding = algorithm == "PS256" ? .PSS : .insecurePKCS1v1_5
        #expect(publicKey.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: input, padding: padding), sourceLocation: sourceLocation)
    default:
        Issue.record("an unexpected algorithm: \(algorithm)", sourceLocation: sourceLocation)
    }
}
