import Authenticator
import Foundation
import IdentityCore
import StorageSQLite
import Testing
import WebAuthn

/// The IDaaS guide's iOS and Android samples, and the backend they call, against the real
/// `latchkey` process and a real SQLite file: administration tokens, user lookup, FIDO token
/// registration and management, passkey sign-in, and every refusal, each checked for its
/// status, its `errorCode`, and what was (not) written.
@Suite("IDaaS face: the IDaaS guide's samples against the application", .serialized)
struct IDaaSFaceTests {
    static let configuration = """
        server: { public_url: http://localhost:8080 }
        relying_party: { id: localhost, name: Latchkey Test, origins: [http://localhost:8080] }
        clients:
          - client_id: demo
            name: Demo
          - client_id: \(IDaaSSampleApp.applicationID)
            name: IDaaS sample apps
            ios: { team_id: ABCDE12345, bundle_ids: [com.example.idaas] }
            android:
              package_name: com.example.idaas
              sha256_cert_fingerprints: ["\(NativeAppsTests.hex(IDaaSSampleApp.androidKey))"]
        \(IDaaSSampleApp.facesYAML)
              - application_id: second-backend
                name: Second backend
                shared_secret: another secret of a backend
        """

    struct Running {
        let directory: TemporaryDirectory
        let server: RouterServer
        var http: RawHTTP { RawHTTP(server) }

        func storage() throws -> SQLiteStorage { try SQLiteStorage(path: directory.path("latchkey.sqlite")) }

        /// The stored passkeys of the account with this email.
        func passkeys(of email: String) async throws -> [PasskeyCredential] {
            let storage = try storage()
            guard let user = try await storage.user(identifier: .email(email)) else { return [] }
            return try await storage.credentials(userID: user.id)
        }

        /// Signs a person up through the Auth0-shaped API, so that an account exists.
        func signUp(_ email: String) async throws -> PasskeyUser {
            var person = PasskeyUser(server)
            try await person.signUp(.init(email: email))
            return person
        }
    }

    static func start() async throws -> Running {
        let directory = try TemporaryDirectory()
        return Running(directory: directory, server: try await RouterServer.start(yaml: configuration, in: directory))
    }

    static func errorCode(_ reply: RawHTTP.Reply) -> String? { reply.json["errorCode"] as? String }

    static func parameter(_ reply: RawHTTP.Reply, _ name: String) -> String? {
        (reply.json["parameters"] as? [[String: Any]] ?? []).first { $0["name"] as? String == name }?["value"] as? String
    }

    /// An administration token, with the checks every issued one passes.
    static func admin(_ app: IDaaSSampleApp) async throws -> String {
        let reply = try await app.adminToken()
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.json["creationTime"] is String && reply.json["expirationTime"] is String)
        return try #require(reply.json["authToken"] as? String)
    }

    /// The backend's part of an enrollment: look the user up and fetch a challenge.
    static func registrationChallenge(_ app: IDaaSSampleApp, email: String, admin: String) async throws -> (uuid: String, challenge: [String: Any]) {
        let user = try await app.lookUp(email, admin: admin)
        #expect(user.status == 200, "\(user.text)")
        let uuid = try #require(user.json["id"] as? String)
        let challenge = try await app.startRegistration(uuid, admin: admin)
        #expect(challenge.status == 200, "\(challenge.text)")
        return (uuid, challenge.json)
    }

    /// Posts a registration to `complete`.
    static func complete(_ app: IDaaSSampleApp, _ uuid: String, _ body: [String: Any], admin: String) async throws -> RawHTTP.Reply {
        try await app.http.json("POST", "/api/web/v1/fidotokens/complete/\(uuid)", body, headers: ["Authorization": admin])
    }

    @Test(arguments: [IDaaSSampleApp.Platform.iOS, .android])
    func theSamplesEnrollSignInAndManageTokens(platform: IDaaSSampleApp.Platform) async throws {
        let running = try await Self.start()
        defer { running.server.stop() }
        _ = try await running.signUp("jane@example.com")
        var app = IDaaSSampleApp(running.server, platform: platform)
        let admin = try await Self.admin(app)
        #expect(admin.hasPrefix("lk_admin_"))

        // The backend looks the user up: the same account, with a stable UUID.
        let (uuid, challenge) = try await Self.registrationChallenge(app, email: "jane@example.com", admin: admin)
        let stored = try #require(try await running.storage().user(identifier: .email("jane@example.com")))
        #expect(uuid == stored.id.uuid)
        #expect(try await app.lookUp("JANE@example.com", admin: admin).json["id"] as? String == uuid)
        for member in ["challenge", "rpName", "userId", "userName", "userDisplayName", "registrationAuthenticatorAttachment", "registrationRequireResidentKey", "registrationUserVerification", "attestation"] {
            #expect(challenge[member] is String, "FIDORegisterChallenge.\(member)")
        }
        #expect(challenge["timeout"] as? Int == (challenge["timeoutMillis"] as? Int ?? 0) / 1000)
        #expect(challenge["registrationRequireResidentKey"] as? String == "REQUIRED")
        let registered = try #require(challenge["registeredCredentials"] as? [String])
        #expect(registered == (try await running.passkeys(of: "jane@example.com")).map { Base64URL.encode($0.credentialID) }, "excludeCredentials: the web passkey")

        // Enrollment in the sample's encoding.
        let body = try app.createPasskey(challenge, name: "Phone", username: "jane@example.com")
        let done = try await Self.complete(app, uuid, body, admin: admin)
        #expect(done.status == 200, "\(done.text)")
        let token = done.json
        let tokenID = try #require(token["id"] as? String)
        #expect(UUID(uuidString: tokenID) != nil)
        #expect(token["name"] as? String == "Phone")
        #expect(token["state"] as? String == "ACTIVE")
        #expect(token["userUUID"] as? String == uuid)
        #expect(token["userId"] as? String == "jane@example.com")
        #expect(token["relyingPartyId"] as? String == "localhost")
        #expect((token["origin"] as? String)?.hasPrefix(platform == .iOS ? "https://localhost" : "android:apk-key-hash:") == true, "\(token["origin"] ?? "")")
        #expect(token["allowedActions"] as? [String] == ["DELETE", "DISABLE", "RENAME"])

        // A second passkey with the same name: 409, and the ceremony is still open, so the
        // same registration goes through under another name.
        let (_, second) = try await Self.registrationChallenge(app, email: "jane@example.com", admin: admin)
        #expect((second["registeredCredentials"] as? [String])?.count == 2)
        var again = try app.createPasskey(second, name: "Phone", username: "jane@example.com")
        let taken = try await Self.complete(app, uuid, again, admin: admin)
        #expect(taken.status == 409, "\(taken.text)")
        #expect(Self.errorCode(taken) == "fido_token_name_exists")
        #expect(try await running.passkeys(of: "jane@example.com").count == 2)
        again["name"] = "Tablet"
        let renamed = try await Self.complete(app, uuid, again, admin: admin)
        #expect(renamed.status == 200, "\(renamed.text)")
        again["name"] = "Another name"
        let replayed = try await Self.complete(app, uuid, again, admin: admin)
        #expect(replayed.status == 400)
        #expect(Self.errorCode(replayed) == "fido_challenge_invalid")
        #expect(try await running.passkeys(of: "jane@example.com").count == 3)

        // PASSKEY sign-in without a user: no allowCredentials; the user from the passkey.
        let usernameless = try await app.requestChallenge()
        #expect(usernameless.status == 200, "\(usernameless.text)")
        #expect(usernameless.json["authenticationCompleted"] as? Bool == false)
        #expect((usernameless.json["fidoChallenge"] as? [String: Any])?["allowCredentials"] == nil)
        let signedIn = try await app.complete(token: try #require(usernameless.json["token"] as? String), fidoResponse: try app.assert(usernameless))
        #expect(signedIn.status == 200, "\(signedIn.text)")
        #expect(signedIn.json["authenticationCompleted"] as? Bool == true)
        #expect(signedIn.json["id"] as? String == uuid)
        #expect(signedIn.json["userId"] as? String == "jane@example.com")
        #expect(signedIn.json["expires"] is Int && signedIn.json["time"] is Int)

        // The deprecated challenge route is the same PASSKEY challenge.
        let deprecated = try await running.http.json("POST", "/api/web/v1/authentication/passkey", ["applicationId": IDaaSSampleApp.applicationID])
        #expect(deprecated.status == 200, "\(deprecated.text)")
        let deprecatedDone = try await app.complete(token: try #require(deprecated.json["token"] as? String), fidoResponse: try app.assert(deprecated))
        #expect(deprecatedDone.status == 200 && deprecatedDone.json["id"] as? String == uuid, "\(deprecatedDone.text)")

        // With `userId`: the user's passkeys are allowed; the second one signs in.
        let named = try await app.requestChallenge(userID: "jane@example.com")
        let allowed = try #require((named.json["fidoChallenge"] as? [String: Any])?["allowCredentials"] as? [String])
        #expect(Set(allowed) == Set(try await running.passkeys(of: "jane@example.com").map { Base64URL.encode($0.credentialID) }))
        let second2 = try await app.complete(token: try #require(named.json["token"] as? String), fidoResponse: try app.assert(named, index: 1))
        #expect(second2.status == 200, "\(second2.text)")
        let session = try #require(second2.json["token"] as? String)
        #expect(session.hasPrefix("idaas_st_"))

        // The signed-in user's own tokens.
        let own = ["Authorization": session]
        let ownToken = try await running.http.send("GET", "/api/web/v1/self/fidotokens/\(tokenID)", contentType: nil, headers: own)
        #expect(ownToken.status == 200)
        #expect(ownToken.json["lastUsedDate"] is String, "the first passkey signed in")
        let rename = try await running.http.json("PUT", "/api/web/v1/self/fidotokens/\(tokenID)", ["name": "Work phone"], headers: ["Authorization": "Bearer \(session)"])
        #expect(rename.status == 200, "\(rename.text)")
        #expect(rename.json["name"] as? String == "Work phone")
        let selfChallenge = try await running.http.send("GET", "/api/web/v1/self/fidotokens", contentType: nil, headers: own)
        #expect(selfChallenge.status == 200)
        let selfBody = try app.createPasskey(selfChallenge.json, name: "Laptop", username: "jane@example.com")
        let selfDone = try await running.http.json("POST", "/api/web/v1/self/fidotokens", selfBody, headers: own)
        #expect(selfDone.status == 200, "\(selfDone.text)")
        let laptopID = try #require(selfDone.json["id"] as? String)
        #expect(try await running.http.send("DELETE", "/api/web/v1/self/fidotokens/\(laptopID)", contentType: nil, headers: own).status == 204)
        // The administration application reads what the user renamed.
        let read = try await running.http.send("GET", "/api/web/v1/fidotokens/\(tokenID)", contentType: nil, headers: ["Authorization": admin])
        #expect(read.json["name"] as? String == "Work phone")

        // Logout ends the token.
        #expect(try await running.http.send("POST", "/api/web/v1/authentication/logout", contentType: nil, headers: own).status == 200)
        let after = try await running.http.send("GET", "/api/web/v1/self/fidotokens/\(tokenID)", contentType: nil, headers: own)
        #expect(after.status == 401)
        #expect(Self.errorCode(after) == "invalid_token")
        #expect(try await running.http.send("POST", "/api/web/v1/authentication/logout", contentType: nil, headers: own).status == 401)
    }

    @Test func refusedSignInsSayWhyAndWriteNothing() async throws {
        let running = try await Self.start()
        defer { running.server.stop() }
        _ = try await running.signUp("ada@example.com")
        var app = IDaaSSampleApp(running.server, platform: .iOS)
        let admin = try await Self.admin(app)
        let (uuid, challenge) = try await Self.registrationChallenge(app, email: "ada@example.com", admin: admin)
        let enrolled = try await Self.complete(app, uuid, try app.createPasskey(challenge, name: "Phone", username: "ada@example.com"), admin: admin)
        let tokenID = try #require(enrolled.json["id"] as? String)
        func lastUsed() async throws -> Date? {
            try await running.storage().credential(id: app.credentials[0].credentialID)?.lastUsedAt
        }

        // A tampered signature: 401 authentication_failed naming the check; nothing written.
        let first = try await app.requestChallenge()
        let transaction = try #require(first.json["token"] as? String)
        var tampered = try app.assert(first)
        var signature = try #require(Data(base64Encoded: tampered["signature"] as? String ?? ""))
        signature[signature.count - 1] ^= 0x01
        tampered["signature"] = signature.base64EncodedString()
        let refused = try await app.complete(token: transaction, fidoResponse: tampered)
        #expect(refused.status == 401, "\(refused.text)")
        #expect(Self.errorCode(refused) == "authentication_failed")
        #expect(Self.parameter(refused, "check") != nil)
        #expect(try await lastUsed() == nil)

        // Another transaction's token: the assertion signs one challenge, the token names another.
        let mine = try await app.requestChallenge()
        let other = try await app.requestChallenge()
        let crossed = try await app.complete(token: try #require(other.json["token"] as? String), fidoResponse: try app.assert(mine))
        #expect(crossed.status == 401, "\(crossed.text)")
        #expect(Self.errorCode(crossed) == "authentication_failed")
        #expect(Self.parameter(crossed, "check") == "challenge_mismatch")

        // Replay: a completed transaction is gone.
        let good = try await app.requestChallenge()
        let goodToken = try #require(good.json["token"] as? String)
        let response = try app.assert(good)
        #expect(try await app.complete(token: goodToken, fidoResponse: response).status == 200)
        let replay = try await app.complete(token: goodToken, fidoResponse: response)
        #expect(replay.status == 401)
        #expect(Self.errorCode(replay) == "transaction_invalid")
        for token in ["", "garbage", String(repeating: "x", count: 3000)] {
            let reply = try await app.complete(token: token, fidoResponse: response)
            #expect(reply.status == 401 && Self.errorCode(reply) == "transaction_invalid", "\(token.prefix(10)): \(reply.text)")
        }

        // A transaction of one application completed as another.
        let bound = try await app.requestChallenge()
        let otherApplication = try await app.complete(token: try #require(bound.json["token"] as? String), fidoResponse: try app.assert(bound), applicationID: "demo")
        #expect(otherApplication.status == 401)
        #expect(Self.errorCode(otherApplication) == "transaction_invalid")

        // Unknown application, the wrong RP ID, an unknown authenticator, FIDO without a user.
        let unknownApplication = try await app.requestChallenge(applicationID: "nope")
        #expect(unknownApplication.status == 400 && Self.errorCode(unknownApplication) == "application_not_found")
        let wrongRP = try await app.requestChallenge(rpId: "evil.example")
        #expect(wrongRP.status == 400 && Self.errorCode(wrongRP) == "invalid_request" && Self.parameter(wrongRP, "field") == "rpId")
        let otp = try await app.requestChallenge(authenticator: "OTP")
        #expect(otp.status == 400 && Self.errorCode(otp) == "authenticator_not_supported")
        let fido = try await app.requestChallenge(authenticator: "FIDO")
        #expect(fido.status == 400 && Self.parameter(fido, "field") == "userId")
        // `userId` at the finish must name the passkey's user.
        _ = try await running.signUp("bob@example.com")
        let mismatch = try await app.requestChallenge()
        let mismatched = try await app.http.json(
            "POST", "/api/web/v1/authentication/users/authenticate/PASSKEY/complete",
            ["applicationId": IDaaSSampleApp.applicationID, "userId": "bob@example.com", "fidoResponse": try app.assert(mismatch)],
            headers: ["Authorization": try #require(mismatch.json["token"] as? String)]
        )
        #expect(mismatched.status == 401 && Self.errorCode(mismatched) == "authentication_failed", "\(mismatched.text)")
        #expect(mismatched.json["token"] == nil)

        // A disabled passkey: 401 fido_token_disabled; enabled again, it signs in.
        let disable = try await running.http.json("PUT", "/api/web/v1/fidotokens/\(tokenID)", ["state": "INACTIVE"], headers: ["Authorization": admin])
        #expect(disable.status == 200 && disable.json["state"] as? String == "INACTIVE", "\(disable.text)")
        #expect(disable.json["allowedActions"] as? [String] == ["DELETE", "ENABLE", "RENAME"])
        let whileDisabled = try await app.signIn()
        #expect(whileDisabled.status == 401)
        #expect(Self.errorCode(whileDisabled) == "fido_token_disabled")
        let excluded = try await app.requestChallenge(userID: "ada@example.com")
        let allowed = (excluded.json["fidoChallenge"] as? [String: Any])?["allowCredentials"] as? [String] ?? []
        #expect(!allowed.contains(Base64URL.encode(app.credentials[0].credentialID)), "a disabled passkey is not offered")
        let badState = try await running.http.json("PUT", "/api/web/v1/fidotokens/\(tokenID)", ["state": "ASLEEP"], headers: ["Authorization": admin])
        #expect(badState.status == 400 && Self.parameter(badState, "field") == "state")
        #expect(try await running.http.json("PUT", "/api/web/v1/fidotokens/\(tokenID)", ["state": "ACTIVE"], headers: ["Authorization": admin]).status == 200)
        #expect(try await app.signIn().status == 200)
        let renamed = try await running.http.json("PUT", "/api/web/v1/fidotokens/\(tokenID)", ["name": "Work phone"], headers: ["Authorization": admin])
        #expect(renamed.status == 200 && renamed.json["name"] as? String == "Work phone", "\(renamed.text)")

        // A deleted passkey: 204, then 404, and its sign-in is refused as unknown.
        let delete = try await running.http.send("DELETE", "/api/web/v1/fidotokens/\(tokenID)", contentType: nil, headers: ["Authorization": admin])
        #expect(delete.status == 204)
        let gone = try await running.http.send("GET", "/api/web/v1/fidotokens/\(tokenID)", contentType: nil, headers: ["Authorization": admin])
        #expect(gone.status == 404 && Self.errorCode(gone) == "fido_token_not_found")
        let deleted = try await app.signIn()
        #expect(deleted.status == 401)
        #expect(Self.errorCode(deleted) == "fido_token_unknown")
        #expect(Self.parameter(deleted, "credentialId") == Base64URL.encode(app.credentials[0].credentialID), "the app can signal the passkey unknown")

        // The last passkey stays: 409 last_fido_token.
        let last = try #require(try await running.passkeys(of: "ada@example.com").first)
        #expect(try await running.passkeys(of: "ada@example.com").count == 1)
        let lastDelete = try await running.http.send("DELETE", "/api/web/v1/fidotokens/\(last.recordID)", contentType: nil, headers: ["Authorization": admin])
        #expect(lastDelete.status == 409 && Self.errorCode(lastDelete) == "last_fido_token")

        // Every admin action is an audit event naming the administration application.
        let events = try await running.storage().events(userID: nil, limit: 200)
        for kind in [AuditEvent.Kind.adminAuthenticated, .credentialDisabled, .credentialEnabled, .credentialRenamed, .credentialDeleted] {
            #expect(events.contains { $0.kind == kind && $0.clientID == IDaaSSampleApp.adminID }, "\(kind)")
        }
        #expect(events.contains { $0.kind == .enrollment && $0.detail.contains(IDaaSSampleApp.adminID) })
    }

    @Test func tokensAreKeptApart() async throws {
        let running = try await Self.start()
        defer { running.server.stop() }
        _ = try await running.signUp("ada@example.com")
        _ = try await running.signUp("bob@example.com")
        var app = IDaaSSampleApp(running.server, platform: .android)

        // The wrong shared secret, an unknown application: 401, and an audit event.
        for secret in ["wrong", "", String(repeating: "s", count: 10_000)] {
            let reply = try await app.adminToken(secret: secret)
            #expect(reply.status == 401 && Self.errorCode(reply) == "admin_authentication_failed", "\(reply.text.prefix(200))")
            #expect(reply.json["authToken"] == nil)
        }
        let failures = try await running.storage().events(userID: nil, limit: 50).filter { $0.kind == .adminAuthenticationFailed }
        #expect(failures.count == 3)
        let admin = try await Self.admin(app)

        // Administration calls without a token, with garbage, with a user's sign-in token.
        let (adaUUID, adaChallenge) = try await Self.registrationChallenge(app, email: "ada@example.com", admin: admin)
        let body = try app.createPasskey(adaChallenge, name: "Phone", username: "ada@example.com")
        #expect(try await Self.complete(app, adaUUID, body, admin: admin).status == 200)
        let session = try #require(try await app.signIn().json["token"] as? String)
        for token in ["", "lk_admin_nope", session, "Bearer \(session)"] {
            let reply = try await app.lookUp("ada@example.com", admin: token)
            #expect(reply.status == 401 && Self.errorCode(reply) == "invalid_token", "\(token.prefix(12)): \(reply.text)")
            #expect(reply.json["id"] == nil)
        }
        // An administration token is not a user's sign-in token.
        let selfWithAdmin = try await running.http.send("GET", "/api/web/v1/self/fidotokens", contentType: nil, headers: ["Authorization": admin])
        #expect(selfWithAdmin.status == 401 && Self.errorCode(selfWithAdmin) == "invalid_token")
        #expect(try await app.lookUp("ada@example.com", admin: "Bearer \(admin)").status == 200)

        // Unknown users and tokens.
        let unknownUser = try await app.lookUp("nobody@example.com", admin: admin)
        #expect(unknownUser.status == 404 && Self.errorCode(unknownUser) == "user_not_found")
        for id in ["00000000-0000-4000-8000-000000000000", "not-a-uuid", "%00"] {
            let reply = try await app.startRegistration(id, admin: admin)
            #expect(reply.status == 404 && Self.errorCode(reply) == "user_not_found", "\(id): \(reply.text)")
            let token = try await running.http.send("GET", "/api/web/v1/fidotokens/\(id)", contentType: nil, headers: ["Authorization": admin])
            #expect(token.status == 404 && Self.errorCode(token) == "fido_token_not_found")
        }

        // A registration started for Ada cannot complete through another administration
        // application or Ada's own session (the ceremony stays open for its starter), nor
        // for Bob (the attempt uses it up).
        let (bobUUID, _) = try await Self.registrationChallenge(app, email: "bob@example.com", admin: admin)
        let (_, forAda) = try await Self.registrationChallenge(app, email: "ada@example.com", admin: admin)
        let adaBody = try app.createPasskey(forAda, name: "Tablet", username: "ada@example.com")
        let secondAdmin = try await app.http.json("POST", "/api/web/v1/adminapi/authenticate", ["applicationId": "second-backend", "sharedSecret": "another secret of a backend"])
        let otherAdmin = try #require(secondAdmin.json["authToken"] as? String)
        let byOther = try await Self.complete(app, adaUUID, adaBody, admin: otherAdmin)
        #expect(byOther.status == 400 && Self.errorCode(byOther) == "fido_challenge_invalid", "\(byOther.text)")
        let bySelf = try await running.http.json("POST", "/api/web/v1/self/fidotokens", adaBody, headers: ["Authorization": session])
        #expect(bySelf.status == 400 && Self.errorCode(bySelf) == "fido_challenge_invalid", "\(bySelf.text)")
        let forBob = try await Self.complete(app, bobUUID, adaBody, admin: admin)
        #expect(forBob.status == 400 && Self.errorCode(forBob) == "fido_challenge_invalid", "\(forBob.text)")
        #expect(try await Self.complete(app, adaUUID, adaBody, admin: admin).status == 400)
        #expect(try await running.passkeys(of: "bob@example.com").count == 1, "nothing added to Bob")
        #expect(try await running.passkeys(of: "ada@example.com").count == 2, "nor to Ada")

        // Bob's session cannot read or change Ada's tokens.
        var bobApp = IDaaSSampleApp(running.server, platform: .android)
        let (_, bobChallenge) = try await Self.registrationChallenge(bobApp, email: "bob@example.com", admin: admin)
        #expect(try await Self.complete(bobApp, bobUUID, try bobApp.createPasskey(bobChallenge, name: "Phone", username: "bob@example.com"), admin: admin).status == 200)
        let bobSession = try #require(try await bobApp.signIn().json["token"] as? String)
        let adaToken = try #require(try await running.passkeys(of: "ada@example.com").first { $0.name == "Phone" })
        for method in ["GET", "DELETE"] {
            let reply = try await running.http.send(method, "/api/web/v1/self/fidotokens/\(adaToken.recordID)", contentType: nil, headers: ["Authorization": bobSession])
            #expect(reply.status == 404 && Self.errorCode(reply) == "fido_token_not_found", "\(method)")
        }
        #expect(try await running.passkeys(of: "ada@example.com").count == 2)
    }

    @Test func aPasskeyWorksInEveryFace() async throws {
        let running = try await Self.start()
        defer { running.server.stop() }
        var web = try await running.signUp("ada@example.com")
        var app = IDaaSSampleApp(running.server, platform: .iOS)
        let admin = try await Self.admin(app)
        let (uuid, challenge) = try await Self.registrationChallenge(app, email: "ada@example.com", admin: admin)
        #expect(try await Self.complete(app, uuid, try app.createPasskey(challenge, name: "Phone", username: "ada@example.com"), admin: admin).status == 200)

        // Enrolled through the IDaaS face, used through the Auth0-shaped API…
        var viaAuth0 = PasskeyUser(running.server, clientID: "demo", credentials: app.credentials)
        viaAuth0.origin = "https://localhost"
        viaAuth0.authenticator = app.authenticator
        let tokens = try await viaAuth0.signIn(username: "ada@example.com")
        #expect(claims(of: tokens.accessToken)["sub"] as? String != nil)

        // …through the Kratos face…
        let kratos = KratosSampleApp(running.server, platform: .iOS)
        let loginFlow = try await kratos.initialize("/self-service/login/api").json
        let assertion = try app.authenticator.getAssertion(try KratosSampleApp.requestOptions(loginFlow), origin: "http://localhost:8080", credential: &viaAuth0.credentials[0])
        let viaKratos = try await kratos.submit(loginFlow, [("method", "passkey"), ("passkey_login", String(decoding: try JSONEncoder().encode(assertion), as: UTF8.self))])
        #expect(viaKratos.status == 200, "\(viaKratos.text)")
        let identity = (viaKratos.json["session"] as? [String: Any])?["identity"] as? [String: Any]
        #expect(identity?["id"] as? String == uuid, "the Kratos identity, the IDaaS user and the Latchkey user are one")

        // …and on the hosted pages.
        let browser = BrowserAgent(running.server)
        browser.authenticator = app.authenticator
        browser.credentials = viaAuth0.credentials
        #expect(try await browser.signIn().status == 200)
        #expect(try await browser.get("/account").text.contains("ada@example.com"))
        #expect(try await browser.get("/account").text.contains("Phone"), "the name given through IDaaS")

        // Created through the Auth0-shaped API, used through the IDaaS face.
        var fromWeb = IDaaSSampleApp(running.server, platform: .iOS)
        fromWeb.authenticator = web.authenticator
        fromWeb.credentials = web.credentials
        let signedIn = try await fromWeb.signIn()
        #expect(signedIn.status == 200, "\(signedIn.text)")
        #expect(signedIn.json["id"] as? String == uuid)
        web.credentials = fromWeb.credentials
        #expect(try await web.signIn().accessToken.isEmpty == false, "the counter moved on in both")

        // Created on the hosted pages, used through the IDaaS face (Android omits the ID).
        let visitor = BrowserAgent(running.server)
        #expect(try await visitor.signUp(email: "hopper@example.com").status == 200)
        var android = IDaaSSampleApp(running.server, platform: .android)
        android.authenticator = visitor.authenticator
        android.credentials = visitor.credentials
        let hosted = try await android.signIn()
        #expect(hosted.status == 200, "\(hosted.text)")
        #expect(hosted.json["userId"] as? String == "hopper@example.com")

        // Created through the Kratos face, used through the IDaaS face.
        var kratosUser = KratosSampleApp(running.server, platform: .iOS)
        let kratosSignUp = try await kratosUser.signUp(email: "lovelace@example.com")
        #expect(kratosSignUp.status == 200, "\(kratosSignUp.text)")
        var fromKratos = IDaaSSampleApp(running.server, platform: .iOS)
        fromKratos.authenticator = kratosUser.authenticator
        fromKratos.credentials = kratosUser.credentials
        let kratosPasskey = try await fromKratos.signIn(userID: "lovelace@example.com")
        #expect(kratosPasskey.status == 200, "\(kratosPasskey.text)")
        #expect(kratosPasskey.json["userId"] as? String == "lovelace@example.com")
    }

    /// The Android sample sends no `credentialId`: the pipeline finds the passkey after the
    /// transaction is opened, and every refusal there uses the transaction up, writes its
    /// audit event and nothing else.
    @Test func androidSignInsWithoutCredentialIDAreCheckedInThePipeline() async throws {
        let running = try await Self.start()
        defer { running.server.stop() }
        let visitor = BrowserAgent(running.server)
        #expect(try await visitor.signUp(email: "ada@example.com").status == 200)
        _ = try await running.signUp("bob@example.com")
        var app = IDaaSSampleApp(running.server, platform: .android)
        app.authenticator = visitor.authenticator
        app.credentials = visitor.credentials
        func state() async throws -> (Date?, Int) {
            let storage = try running.storage()
            return (try await storage.credential(id: app.credentials[0].credentialID)?.lastUsedAt, try await storage.events(userID: nil, limit: 500).count)
        }
        let before = try await state()

        // A tampered signature verifies under none of the user's passkeys.
        let first = try await app.requestChallenge()
        let transaction = try #require(first.json["token"] as? String)
        var tampered = try app.assert(first)
        #expect(tampered["credentialId"] == nil, "as the sample sends it")
        var signature = try #require(Base64URLBytes(base64URL: tampered["signature"] as? String ?? "")).bytes
        signature[signature.count - 1] ^= 0x01
        tampered["signature"] = Base64URL.encode(signature)
        let refused = try await app.complete(token: transaction, fidoResponse: tampered)
        #expect(refused.status == 401 && Self.errorCode(refused) == "authentication_failed", "\(refused.text)")
        #expect(Self.parameter(refused, "check") == "bad_signature")
        let replay = try await app.complete(token: transaction, fidoResponse: tampered)
        #expect(replay.status == 401 && Self.errorCode(replay) == "transaction_invalid", "the refusal used the transaction up")
        let afterTampered = try await state()
        #expect(afterTampered.0 == before.0, "the passkey was not used")
        #expect(afterTampered.1 == before.1 + 1, "one audit event, the refusal's")

        // A `userId` that names another account, or no account, is refused the same way,
        // before the passkey is used.
        for named in ["bob@example.com", "nobody@example.com"] {
            let challenge = try await app.requestChallenge()
            let reply = try await app.http.json(
                "POST", "/api/web/v1/authentication/users/authenticate/PASSKEY/complete",
                ["applicationId": IDaaSSampleApp.applicationID, "userId": named, "fidoResponse": try app.assert(challenge)],
                headers: ["Authorization": try #require(challenge.json["token"] as? String)]
            )
            #expect(reply.status == 401 && Self.errorCode(reply) == "authentication_failed" && Self.parameter(reply, "field") == "userId", "\(named): \(reply.text)")
            #expect(reply.json["token"] == nil)
        }
        #expect(try await state().0 == before.0, "the passkey was not used")

        // An unknown application at the finish.
        let challenge = try await app.requestChallenge()
        let unknown = try await app.complete(token: try #require(challenge.json["token"] as? String), fidoResponse: try app.assert(challenge), applicationID: "nope")
        #expect(unknown.status == 400 && Self.errorCode(unknown) == "application_not_found", "\(unknown.text)")

        // And the sample's own sign-in, with a user named and without.
        #expect(try await app.signIn().status == 200)
        #expect(try await app.signIn(userID: "ada@example.com").status == 200)
    }
}
