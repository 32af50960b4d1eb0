import Authenticator
import IdentityCore
import Foundation
import LatchkeyClient
import Testing
import WebAuthn

/// Bringing people from another identity server: export files in Kratos's and Auth0's
/// formats, with passkeys the software authenticator registered at "the old server" (every
/// algorithm the engine verifies) and password hashes from reference implementations
/// (PyPI's bcrypt and argon2-cffi, hashlib's PBKDF2 and scrypt), imported with the real `latchkey import` command and
/// then used to sign in.
@Suite("Importing accounts from Kratos and Auth0", .serialized)
struct ImportTests {
    /// The password journey's: a client with the password grant.
    static let configuration = PasswordJourneyTests.configuration
    static let python = PythonTools.setUp("password-hashes.sh", unless: "LATCHKEY_HASHES_PYTHON")
    static let algorithms: [COSEAlgorithmIdentifier] = [.es256, .es384, .es512, .edDSA, .rs256, .ps256, .mldsa65]

    /// Hashes of `password` by the reference implementations.
    static func hashes(_ password: String) async throws -> [String: Any] {
        let run = try await ExternalCommand.run(try python.get(), [SMTPSink.repository.appendingPathComponent("scripts/password-hashes.py").path, password])
        guard run.status == 0, let object = (try? JSONSerialization.jsonObject(with: Data(run.output.utf8))) as? [String: Any] else {
            throw TestFailure("password-hashes.py: \(run.output)")
        }
        return object
    }

    /// A passkey the old server registered for `handle`, and its Kratos credential entry.
    static func registered(_ algorithm: COSEAlgorithmIdentifier, handle: [UInt8], name: String) throws -> (SoftwareCredential, [String: Any]) {
        let options = PublicKeyCredentialCreationOptionsJSON(
            rp: .init(id: "localhost", name: "The old server"), user: .init(id: Base64URLBytes(handle), name: name, displayName: name),
            challenge: Base64URLBytes(Array("a challenge the old server sent".utf8)), pubKeyCredParams: [.init(alg: algorithm)]
        )
        var (_, credential) = try SoftwareAuthenticator().makeCredential(options, origin: "http://localhost:8080")
        // The old server saw three sign-ins: the counter it kept comes along.
        credential.signCount = 3
        let entry: [String: Any] = [
            "id": Data(credential.credentialID).base64EncodedString(), "public_key": Data(credential.privateKey.coseKeyBytes).base64EncodedString(),
            "attestation_type": "none", "authenticator": ["aaguid": Data(count: 16).base64EncodedString(), "sign_count": 3, "clone_warning": false],
            "display_name": "\(algorithm)", "added_at": "2024-05-01T10:00:00.123456Z", "is_passwordless": true,
            "flags": ["user_present": true, "user_verified": true, "backup_eligible": false, "backup_state": false],
        ]
        return (credential, entry)
    }

    static func kratosIdentity(_ id: String, email: String, hash: String? = nil, passkeys: [[String: Any]] = [], type: String = "passkey", handle: [UInt8]? = nil, state: String = "active") -> [String: Any] {
        var credentials: [String: Any] = [:]
        if let hash { credentials["password"] = ["type": "password", "identifiers": [email], "config": ["hashed_password": hash]] }
        if !passkeys.isEmpty {
            var config: [String: Any] = ["credentials": passkeys]
            if let handle { config["user_handle"] = Data(handle).base64EncodedString() }
            credentials[type] = ["type": type, "identifiers": [Base64URL.encode(handle ?? [])], "config": config]
        }
        return [
            "id": id, "schema_id": "default", "state": state, "traits": ["email": email, "name": ["first": "Ada", "last": "Lovelace"]],
            "verifiable_addresses": [["value": email, "verified": true, "via": "email", "status": "completed"]], "credentials": credentials,
            "created_at": "2023-01-02T03:04:05Z", "metadata_public": ["plan": "pro"],
        ]
    }

    static func write(_ objects: [[String: Any]], to path: String, ndjson: Bool = false) throws {
        let data: Data
        if ndjson {
            data = Data(try objects.map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) }.joined(separator: "\n").utf8)
        } else {
            data = try JSONSerialization.data(withJSONObject: objects)
        }
        try data.write(to: URL(fileURLWithPath: path))
    }

    func importFile(_ kind: String, _ file: String, in directory: TemporaryDirectory, _ extra: [String] = []) async throws -> CommandRun {
        try await CommandRun.run(
            ["import", kind, file, "--config", directory.path("latchkey.yaml"), "--database", "sqlite:" + directory.path("latchkey.sqlite")] + extra,
            workingDirectory: directory.url
        )
    }

    /// The stored password hash of `email`, read from the database file.
    func storedHash(_ email: String, in directory: TemporaryDirectory) async throws -> String {
        let script = "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(c.execute('SELECT p.hash FROM passwords p JOIN users u ON u.id = p.user_id WHERE u.email = ?', (sys.argv[2],)).fetchone()[0])"
        let run = try await ExternalCommand.run("/usr/bin/python3", ["-c", script, directory.path("latchkey.sqlite"), email])
        return run.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func kratosIdentitiesKeepTheirIDsPasskeysAndPasswords() async throws {
        let directory = try TemporaryDirectory()
        try Self.configuration.write(toFile: directory.path("latchkey.yaml"), atomically: true, encoding: .utf8)
        let password = "an old password from Kratos"
        let hashes = try await Self.hashes(password)

        // Ada: a passkey of every algorithm, under the user handle Kratos kept, and bcrypt.
        let adaID = "9b3a1c2e-5d4f-4e6a-8b7c-0d1e2f3a4b5c"
        let adaHandle = Array("kratos-user-handle-ada".utf8)
        var adaPasskeys: [SoftwareCredential] = []
        var adaEntries: [[String: Any]] = []
        for algorithm in Self.algorithms {
            let (credential, entry) = try Self.registered(algorithm, handle: adaHandle, name: "ada@example.com")
            adaPasskeys.append(credential)
            adaEntries.append(entry)
        }
        // Lin: a WebAuthn credential from before Kratos kept user handles (the identity ID's
        // bytes), and PBKDF2-SHA512.
        let linID = "1c2d3e4f-5a6b-4c7d-8e9f-a0b1c2d3e4f5"
        let (linPasskey, linEntry) = try Self.registered(.es256, handle: UUIDText.bytes(linID)!, name: "lin@example.com")
        var brokenEntry = adaEntries[0]
        brokenEntry["id"] = Data(Array("a passkey whose key is not COSE".utf8)).base64EncodedString()
        brokenEntry["public_key"] = Data([0x01, 0x02, 0x03]).base64EncodedString()
        let identities: [[String: Any]] = [
            Self.kratosIdentity(adaID, email: "ada@example.com", hash: hashes["bcrypt"] as? String, passkeys: adaEntries, handle: adaHandle),
            Self.kratosIdentity("2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e", email: "grace@example.com", hash: hashes["pbkdf2-sha256"] as? String),
            Self.kratosIdentity(linID, email: "lin@example.com", hash: hashes["pbkdf2-sha512"] as? String, passkeys: [linEntry], type: "webauthn"),
            Self.kratosIdentity("3c4d5e6f-7a8b-4c9d-8e0f-2a3b4c5d6e7f", email: "ivy@example.com", hash: hashes["bcrypt-2a"] as? String, state: "inactive"),
            Self.kratosIdentity("7a8b9c0d-1e2f-4a3b-8c4d-6e7f8a9b0c1d", email: "sam@example.com", hash: hashes["kratos-scrypt"] as? String),
            Self.kratosIdentity("4d5e6f7a-8b9c-4d0e-9f1a-3b4c5d6e7f8a", email: "argon@example.com", hash: hashes["argon2id"] as? String),
            Self.kratosIdentity("8b9c0d1e-2f3a-4b4c-9d5e-7f8a9b0c1d2e", email: "old@example.com", hash: "$sha1$pf=e1NBTFR9e1BBU1NXT1JEfQ==$c2FsdA==$aGFzaA=="),
            Self.kratosIdentity("5e6f7a8b-9c0d-4e1f-8a2b-4c5d6e7f8a9b", email: "broken@example.com", passkeys: [brokenEntry], handle: [7, 7, 7]),
            Self.kratosIdentity("6f7a8b9c-0d1e-4f2a-9b3c-5d6e7f8a9b0c", email: "ADA@example.com", hash: hashes["bcrypt"] as? String),
            ["schema_id": "default", "traits": ["email": "nobody@example.com"]],
        ]
        let file = directory.path("identities.json")
        try Self.write(identities, to: file)

        // A dry run checks everything and writes nothing.
        let dry = try await importFile("kratos", file, in: directory, ["--dry-run", "--report", directory.path("dry.ndjson")])
        #expect(dry.status == 0, "\(dry.output)")
        #expect(dry.output.contains("dry run, nothing written: created 7, merged 0, skipped 0, failed 3"), "\(dry.output)")
        #expect(dry.output.contains("not a COSE key"), "\(dry.output)")
        #expect(dry.output.contains("appears in an earlier record"), "the second ada@example.com: \(dry.output)")
        #expect(dry.output.contains("(sha1) is in a form this server does not verify: imported without a password"), "sha1: \(dry.output)")
        #expect(!dry.output.contains("aGFzaA==") && !dry.output.contains(hashes["bcrypt"] as? String ?? "-"), "no hash is printed")
        let dryReport = try String(contentsOfFile: directory.path("dry.ndjson"), encoding: .utf8).split(separator: "\n")
        #expect(dryReport.count == identities.count)

        let real = try await importFile("kratos", file, in: directory, ["--report", directory.path("report.ndjson")])
        #expect(real.status == 0, "\(real.output)")
        #expect(real.output.contains("created 7, merged 0, skipped 0, failed 3"), "a dry run wrote nothing: \(real.output)")
        let report = try String(contentsOfFile: directory.path("report.ndjson"), encoding: .utf8).split(separator: "\n")
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(report.first?["source_id"] as? String == adaID && report.first?["outcome"] as? String == "created")
        let again = try await importFile("kratos", file, in: directory)
        #expect(again.output.contains("created 0, merged 0, skipped 7, failed 3"), "a second import changes nothing: \(again.output)")

        let server = try await RouterServer.start(yaml: Self.configuration, in: directory)
        defer { server.stop() }
        // Every passkey signs in as the account Kratos knew, under its UUID.
        var ada = PasskeyUser(server, credentials: adaPasskeys)
        for index in adaPasskeys.indices {
            let tokens = try await ada.signIn(index: index)
            #expect(claims(of: tokens.idToken ?? "")["sub"] as? String == UserID(uuid: adaID)?.rawValue, "\(Self.algorithms[index])")
        }
        var lin = PasskeyUser(server, credentials: [linPasskey])
        _ = try await lin.signIn()

        // Passwords: each reference hash signs in once as it came, then as Latchkey's own.
        let client = LatchkeyAPIClient(baseURL: server.baseURL, clientID: "demo", transport: server.transport)
        for email in ["ada@example.com", "grace@example.com", "lin@example.com", "sam@example.com", "argon@example.com"] {
            #expect(!(try await storedHash(email, in: directory)).hasPrefix("$scrypt$ln=15,r=8,p=1$"), "\(email): as the source kept it")
            await #expect(throws: (any Error).self, "\(email): a wrong password") {
                _ = try await client.signIn(username: email, password: "not it at all", scope: "openid", audience: nil)
            }
            _ = try await client.signIn(username: email, password: password, scope: "openid", audience: nil)
            #expect(try await storedHash(email, in: directory).hasPrefix("$scrypt$ln=15,r=8,p=1$"), "\(email): rehashed after its first sign-in")
            _ = try await client.signIn(username: email, password: password, scope: "openid", audience: nil)
        }
        await #expect(throws: (any Error).self, "an identity Kratos had turned off stays off") {
            _ = try await client.signIn(username: "ivy@example.com", password: password, scope: "openid", audience: nil)
        }
    }

    @Test func auth0UsersBringTheirPasswordsAndBadFilesSayWhy() async throws {
        let directory = try TemporaryDirectory()
        try Self.configuration.write(toFile: directory.path("latchkey.yaml"), atomically: true, encoding: .utf8)
        let password = "an old password from Auth0"
        let hashes = try await Self.hashes(password)
        let users: [[String: Any]] = [
            ["user_id": "auth0|5f7c8ec7c33c6c004bbafe82", "email": "pat@example.com", "email_verified": true, "name": "Pat", "password_hash": hashes["bcrypt"] as Any],
            ["user_id": "auth0|61a", "email": "sam@example.com", "custom_password_hash": ["algorithm": "pbkdf2", "hash": ["value": hashes["pbkdf2-sha256"] as Any, "encoding": "utf8"]]],
            ["user_id": "auth0|61b", "email": "lee@example.com", "custom_password_hash": ["algorithm": "argon2", "hash": ["value": hashes["argon2i"] as Any]]],
            ["user_id": "auth0|62b", "email": "md5@example.com", "custom_password_hash": ["algorithm": "md5", "hash": ["value": "5f4dcc3b5aa765d61d8327deb882cf99", "encoding": "hex"]]],
            ["user_id": "auth0|63c", "email": "not an email"],
        ]
        let file = directory.path("users.ndjson")
        try Self.write(users, to: file, ndjson: true)
        // Pat and Sam are here already, from Kratos, without passwords: Pat's address is
        // verified on both sides, so Auth0's record joins that account; Sam's is verified by
        // neither, so it is another account's.
        try Self.write([
            Self.kratosIdentity("0e1f2a3b-4c5d-4e6f-8a7b-9c0d1e2f3a4b", email: "pat@example.com"),
            ["id": "1f2a3b4c-5d6e-4f7a-8b9c-0d1e2f3a4b5c", "traits": ["email": "sam@example.com"]],
        ], to: directory.path("kratos.json"))
        #expect(try await importFile("kratos", directory.path("kratos.json"), in: directory).output.contains("created 2,"))
        let dry = try await importFile("auth0", file, in: directory, ["--dry-run"])
        #expect(dry.output.contains("created 2, merged 1, skipped 0, failed 2"), "\(dry.output)")
        let run = try await importFile("auth0", file, in: directory)
        #expect(run.status == 0 && run.output.contains("created 2, merged 1, skipped 0, failed 2"), "\(run.output)")
        #expect(run.output.contains("joined to the account here with the same verified address"), "\(run.output)")
        #expect(run.output.contains("sam@example.com is another account's"), "\(run.output)")
        let script = "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT external_id FROM users WHERE email = ?', (sys.argv[2],)).fetchone()[0])"
        let external = try await ExternalCommand.run("/usr/bin/python3", ["-c", script, directory.path("latchkey.sqlite"), "pat@example.com"])
        #expect(external.output.trimmingCharacters(in: .whitespacesAndNewlines) == "auth0|5f7c8ec7c33c6c004bbafe82", "the account has Auth0's ID now")
        #expect(run.output.contains("(md5) is in a form this server does not verify"), "\(run.output)")
        #expect(!run.output.contains("5f4dcc3b5aa765d61d8327deb882cf99"), "no hash is printed")

        let server = try await RouterServer.start(yaml: Self.configuration, in: directory)
        defer { server.stop() }
        let client = LatchkeyAPIClient(baseURL: server.baseURL, clientID: "demo", transport: server.transport)
        for email in ["pat@example.com", "lee@example.com"] {
            _ = try await client.signIn(username: email, password: password, scope: "openid", audience: nil)
            #expect(try await storedHash(email, in: directory).hasPrefix("$scrypt$ln=15,r=8,p=1$"), "\(email): rehashed after its first sign-in")
        }
        await #expect(throws: (any Error).self, "md5 was not imported") {
            _ = try await client.signIn(username: "md5@example.com", password: "password", scope: "openid", audience: nil)
        }
        server.stop()

        // Files that are not what they claim: every record reported, nothing written, and a
        // non-zero status because nothing could be imported.
        try Data("[{\"user_id\": \"auth0|1\", \"email\": \"t@example.com\"".utf8).write(to: URL(fileURLWithPath: directory.path("truncated.json")))
        let truncated = try await importFile("auth0", directory.path("truncated.json"), in: directory)
        #expect(truncated.status == 1 && truncated.output.contains("does not parse"), "\(truncated.output)")
        try Data("name,email\nPat,pat@example.com\n".utf8).write(to: URL(fileURLWithPath: directory.path("users.csv")))
        let csv = try await importFile("kratos", directory.path("users.csv"), in: directory)
        #expect(csv.status == 1 && csv.output.contains("is not a JSON object"), "\(csv.output)")
        let missing = try await importFile("kratos", directory.path("nothing-here.json"), in: directory)
        #expect(missing.status == 66 && missing.output.contains("cannot read"), "\(missing.output)")
    }
}

extension ImportTests {
    @Test func keycloakUsersKeepTheirPasskeysUnderKeycloaksUserHandle() async throws {
        let directory = try TemporaryDirectory()
        try Self.configuration.write(toFile: directory.path("latchkey.yaml"), atomically: true, encoding: .utf8)
        let password = "an old password from Keycloak"
        let hashes = try await Self.hashes(password)
        let keycloak = try #require(hashes["keycloak-pbkdf2-sha256"] as? [String: Any])
        let argon2 = try #require(hashes["keycloak-argon2"] as? [String: Any])
        let id = "5b3c9f0e-2f7a-4a8e-9d33-2a1c0b7e6f10"
        // Keycloak's user handle is its user ID's UTF-8 bytes.
        let (passkey, entry) = try Self.registered(.es256, handle: Array(id.utf8), name: "kim@example.com")
        let publicKey = Base64URL.encode(Array(Data(base64Encoded: entry["public_key"] as! String)!))
        func json(_ object: Any) throws -> String { String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self) }
        let realm: [String: Any] = ["realm": "acme", "users": [[
            "id": id, "createdTimestamp": 1_709_287_200_000, "username": "kim", "enabled": true, "emailVerified": true, "firstName": "Kim", "lastName": "Lee",
            "email": "kim@example.com",
            "credentials": [
                ["type": "password", "userLabel": "My password", "createdDate": 1_709_287_200_000,
                 "secretData": try json(["value": keycloak["value"] as Any, "salt": keycloak["salt"] as Any, "additionalParameters": [:] as [String: Any]]),
                 "credentialData": try json(["hashIterations": keycloak["iterations"] as Any, "algorithm": "pbkdf2-sha256", "additionalParameters": [:] as [String: Any]])],
                ["type": "webauthn-passwordless", "userLabel": "Pixel passkey", "createdDate": 1_709_373_600_000, "secretData": "{}",
                 "credentialData": try json([
                    "aaguid": "ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4", "credentialId": entry["id"] as Any, "counter": 3, "credentialPublicKey": publicKey,
                    "attestationStatementFormat": "none", "transports": ["internal", "hybrid"],
                 ])],
            ],
        ], [
            // Argon2 as Keycloak's argon2 provider stores it: each parameter a list of one string.
            "id": "6c4d0a1f-3a8b-4b9f-8e44-3b2d1c8f7a21", "username": "noor", "enabled": true, "email": "noor@example.com",
            "credentials": [[
                "type": "password", "secretData": try json(["value": argon2["value"] as Any, "salt": argon2["salt"] as Any, "additionalParameters": [:] as [String: Any]]),
                "credentialData": try json([
                    "hashIterations": argon2["iterations"] as Any, "algorithm": "argon2",
                    "additionalParameters": [
                        "hashLength": ["32"], "memory": ["\(argon2["memory"] as? Int ?? 0)"], "type": ["id"], "version": ["1.3"],
                        "parallelism": ["\(argon2["parallelism"] as? Int ?? 0)"],
                    ],
                ]),
            ]],
        ]]]
        try JSONSerialization.data(withJSONObject: realm).write(to: URL(fileURLWithPath: directory.path("acme-realm.json")))
        let run = try await importFile("keycloak", directory.path("acme-realm.json"), in: directory)
        #expect(run.status == 0 && run.output.contains("created 2, merged 0, skipped 0, failed 0"), "\(run.output)")

        let server = try await RouterServer.start(yaml: Self.configuration, in: directory)
        defer { server.stop() }
        // The counter came along: an authenticator that went back to 0 is the clone signal.
        var clone = passkey
        clone.signCount = 0
        var thief = PasskeyUser(server, credentials: [clone])
        await #expect(throws: (any Error).self, "a counter below the imported one") { _ = try await thief.signIn() }
        var kim = PasskeyUser(server, credentials: [passkey])
        let tokens = try await kim.signIn()
        #expect(claims(of: tokens.idToken ?? "")["sub"] as? String == UserID(uuid: id)?.rawValue)
        let client = LatchkeyAPIClient(baseURL: server.baseURL, clientID: "demo", transport: server.transport)
        for email in ["kim@example.com", "noor@example.com"] {
            _ = try await client.signIn(username: email, password: password, scope: "openid", audience: nil)
            #expect(try await storedHash(email, in: directory).hasPrefix("$scrypt$"), "\(email)")
        }
    }
}

extension ImportTests {
    /// The Admin API's `POST /imports`: the same importer behind a key with `users:write`,
    /// the report as JSON, the key named in the audit trail, and bad calls refused.
    @Test func theAdminAPIImportsWithTheSameReport() async throws {
        let admin = try await AdminAPIFixture.start()
        defer { admin.stop() }
        let key = try await admin.key("users:write,events:read")
        let hashes = try await Self.hashes("an old password from Auth0")
        let line = String(decoding: try JSONSerialization.data(withJSONObject: [
            "user_id": "auth0|70a", "email": "api@example.com", "email_verified": true, "password_hash": hashes["bcrypt"] as Any,
        ]), as: UTF8.self)
        let file = Data((line + "\n" + #"{"user_id": "auth0|71b", "email": "not an email"}"# + "\n").utf8)
        func send(_ query: String, _ body: Data = file, contentType: String = "application/x-ndjson") async throws -> RawHTTP.Reply {
            try await admin.http.send("POST", "/admin/v1/imports?" + query, body: body, contentType: contentType, headers: ["Authorization": "Bearer " + key.key])
        }
        let dry = try await send("format=auth0&dry_run=true")
        #expect(dry.status == 200 && dry.json["dry_run"] as? Bool == true && dry.json["created"] as? Int == 1 && dry.json["failed"] as? Int == 1, "\(dry.text)")
        let real = try await send("format=auth0", contentType: "application/octet-stream")
        #expect(real.status == 200 && real.json["created"] as? Int == 1 && real.json["merged"] as? Int == 0, "\(real.text)")
        let records = real.json["records"] as? [[String: Any]] ?? []
        #expect(records.map { $0["outcome"] as? String } == ["created", "failed"] && records.first?["source_id"] as? String == "auth0|70a")
        #expect((records.last?["reason"] as? String)?.isEmpty == false)
        let again = try await send("format=auth0")
        #expect(again.json["skipped"] as? Int == 1 && again.json["created"] as? Int == 0, "\(again.text)")
        let userID = try #require(records.first?["user_id"] as? String)
        let events = try await admin.call("GET", "/events?user_id=\(userID)", key: key.key).json["events"] as? [[String: Any]] ?? []
        #expect(events.contains { ($0["actor"] as? [String: Any])?["id"] as? String == key.id }, "the key is the import's actor: \(events)")

        #expect(try await send("format=okta").status == 400)
        #expect(try await send("dry_run=true").status == 400, "format is required")
        #expect(try await send("format=auth0", contentType: "application/json").status == 415)
        let narrow = try await admin.key("users:read")
        let refused = try await admin.http.send(
            "POST", "/admin/v1/imports?format=auth0", body: file, contentType: "application/x-ndjson", headers: ["Authorization": "Bearer " + narrow.key]
        )
        #expect(refused.status == 403)
    }
}

extension ImportTests {
    /// What apps stored about people at the old server still matches: an Auth0 `user_id` as
    /// `external_id` in the Admin API, a Kratos identity's `external_id` in its ID tokens and
    /// userinfo, and metadata as the source had it (every digit of a large integer kept) in
    /// the Admin API and the Kratos face's session.
    @Test func importedIDsAndMetadataShowWhereAppsLook() async throws {
        let admin = try await AdminAPIFixture.start()
        defer { admin.stop() }
        let key = try await admin.key("users:write,users:read")
        func post(_ format: String, _ objects: [[String: Any]]) async throws -> RawHTTP.Reply {
            let lines = try objects.map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) }
            return try await admin.http.send(
                "POST", "/admin/v1/imports?format=" + format, body: Data(lines.joined(separator: "\n").utf8), contentType: "application/x-ndjson",
                headers: ["Authorization": "Bearer " + key.key]
            )
        }
        // The bulk import format leaves out the connection's prefix; Auth0 adds it.
        let auth0 = try await post("auth0", [
            ["user_id": "5f7c8ec7c33c6c004bbafe82", "email": "pat@example.com", "app_metadata": ["plan": "pro", "seats": 12], "user_metadata": ["theme": "dark"]],
        ])
        let auth0Records = auth0.json["records"] as? [[String: Any]] ?? []
        #expect(auth0Records.first?["outcome"] as? String == "created", "\(auth0.text)")
        #expect((auth0Records.first?["reason"] as? String)?.contains("user_metadata is not kept") == true, "\(auth0.text)")
        let pat = try await admin.call("GET", "/users/\(auth0Records.first?["user_id"] as? String ?? "-")", key: key.key)
        #expect(pat.json["external_id"] as? String == "auth0|5f7c8ec7c33c6c004bbafe82", "\(pat.text)")
        #expect((pat.json["metadata"] as? [String: Any])?["plan"] as? String == "pro", "\(pat.text)")

        let id = "0d6b2f0c-7e1a-4c55-9a3e-5b8f1e2d3c4a"
        let handle = Array("kratos-handle-of-ren".utf8)
        let (passkey, entry) = try Self.registered(.es256, handle: handle, name: "ren@example.com")
        var identity = Self.kratosIdentity(id, email: "ren@example.com", passkeys: [entry], handle: handle)
        identity["external_id"] = "crm-4711"
        // A number past a Double's 53 bits: the Kratos face shows it as Kratos had it.
        identity["metadata_public"] = ["tier": "gold", "account": 9_007_199_254_740_993]
        let kratos = try await post("kratos", [identity])
        #expect(kratos.json["created"] as? Int == 1, "\(kratos.text)")
        let ren = try await admin.call("GET", "/users/\(UserID(uuid: id)?.rawValue ?? "-")", key: key.key)
        #expect(ren.json["external_id"] as? String == "crm-4711" && (ren.json["metadata"] as? [String: Any])?["tier"] as? String == "gold", "\(ren.text)")

        var user = PasskeyUser(admin.server, credentials: [passkey])
        let tokens = try await user.signIn()
        #expect(claims(of: tokens.idToken ?? "")["external_id"] as? String == "crm-4711")
        let info = try await user.client.userInfo(accessToken: tokens.accessToken)
        #expect(info.externalID == "crm-4711")

        var app = KratosSampleApp(admin.server, platform: .iOS)
        app.credentials = user.credentials
        let session = try await app.signIn()
        let metadata = ((session.json["session"] as? [String: Any])?["identity"] as? [String: Any])?["metadata_public"] as? [String: Any]
        #expect(metadata?["tier"] as? String == "gold", "\(session.text)")
        #expect(session.text.contains("\"account\":9007199254740993"), "every digit: \(session.text)")
    }
}

extension ImportTests {
    /// An imported passkey signs in on every face: the Auth0-shaped API, the Kratos face and
    /// the IDaaS face as their guides' samples do, and the hosted pages; each sign-in moves
    /// the counter the old server kept.
    @Test func importedPasskeysSignInOnEveryFace() async throws {
        // Every face on, with the IDaaS samples' application.
        let configuration = RulesEveryFaceProcessTests.configuration
        let directory = try TemporaryDirectory()
        try configuration.write(toFile: directory.path("latchkey.yaml"), atomically: true, encoding: .utf8)
        let id = "2a7c4e9b-1d3f-4a5b-8c6d-7e8f9a0b1c2d"
        let handle = Array("the old server's handle for max".utf8)
        let (passkey, entry) = try Self.registered(.es256, handle: handle, name: "max@example.com")
        try Self.write([Self.kratosIdentity(id, email: "max@example.com", passkeys: [entry], handle: handle)], to: directory.path("max.json"))
        let run = try await importFile("kratos", directory.path("max.json"), in: directory)
        #expect(run.output.contains("created 1,"), "\(run.output)")

        let server = try await RouterServer.start(yaml: configuration, in: directory)
        defer { server.stop() }
        var credential = passkey
        var auth0 = PasskeyUser(server, credentials: [credential])
        #expect(claims(of: try await auth0.signIn().idToken ?? "")["sub"] as? String == UserID(uuid: id)?.rawValue, "the Authentication API")
        credential = auth0.credentials[0]

        var kratos = KratosSampleApp(server, platform: .iOS)
        kratos.credentials = [credential]
        let session = try await kratos.signIn()
        #expect(((session.json["session"] as? [String: Any])?["identity"] as? [String: Any])?["id"] as? String == id, "the Kratos face: \(session.text)")
        credential = kratos.credentials[0]

        var idaas = IDaaSSampleApp(server, platform: .iOS)
        idaas.credentials = [credential]
        let completed = try await idaas.signIn()
        #expect(completed.status == 200, "the IDaaS face: \(completed.text)")
        credential = idaas.credentials[0]

        let browser = BrowserAgent(server)
        browser.credentials = [credential]
        let page = try await browser.signIn()
        #expect(page.status == 200, "the hosted pages: \(page.text)")
        #expect(browser.credentials[0].signCount == passkey.signCount + 4, "four sign-ins, each counted past the imported counter")
    }
}
