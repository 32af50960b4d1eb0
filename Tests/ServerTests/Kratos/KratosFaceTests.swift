import Authenticator
import Foundation
import IdentityCore
import StorageSQLite
import Testing
import WebAuthn

/// The Ory guide's iOS and Android samples against the real `latchkey` process and a real
/// SQLite file: sign-up, sign-in, whoami, adding and removing passkeys, logout, and every
/// refusal the Kratos contract gives, each checked for its status, its id, and that
/// nothing was written.
@Suite("Kratos face: the Ory guide's samples against the application", .serialized)
struct KratosFaceTests {
    static let configuration = """
        server: { public_url: http://localhost:8080 }
        relying_party: { id: localhost, name: Latchkey Test, origins: [http://localhost:8080] }
        clients:
          - client_id: demo
            name: Demo
          - client_id: kratos-apps
            name: Kratos sample apps
            ios: { team_id: ABCDE12345, bundle_ids: [com.example.kratos] }
            android:
              package_name: com.example.kratos
              sha256_cert_fingerprints: ["\(NativeAppsTests.hex(KratosSampleApp.androidKey))"]
        """

    struct Running {
        let directory: TemporaryDirectory
        let server: ServerProcess
        var url: URL { server.baseURL }
        var http: RawHTTP { RawHTTP(server) }

        /// The database, opened beside the server to check what was written.
        func storage() throws -> SQLiteStorage { try SQLiteStorage(path: directory.path("latchkey.sqlite")) }

        /// Whether an account with this email exists.
        func hasAccount(_ email: String) async throws -> Bool {
            try await storage().user(identifier: .email(email)) != nil
        }
    }

    static func start() async throws -> Running {
        let directory = try TemporaryDirectory()
        let server = try await NativeAppsTests.start(directory, configuration: configuration)
        return Running(directory: directory, server: server)
    }

    static func expectNo5xx(_ reply: RawHTTP.Reply, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(reply.status < 500, "a 5xx: \(reply.text)", sourceLocation: sourceLocation)
    }

    static func errorID(_ reply: RawHTTP.Reply) -> String? { (reply.json["error"] as? [String: Any])?["id"] as? String }

    @Test(arguments: [KratosSampleApp.Platform.iOS, .android])
    func theSampleSignsUpSignsInAndUsesItsSession(platform: KratosSampleApp.Platform) async throws {
        let running = try await Self.start()
        defer { running.server.stop() }
        var app = KratosSampleApp(server: running.url, platform: platform)

        // Registration flow: the nodes the samples look for.
        let flowReply = try await app.initialize("/self-service/registration/api")
        #expect(flowReply.status == 200)
        let flow = flowReply.json
        #expect(flow["type"] as? String == "api")
        #expect(flow["state"] as? String == "choose_method")
        for name in ["csrf_token", "traits.email", "passkey_create_data", "passkey_register_trigger", "passkey_register"] {
            #expect(KratosSampleApp.nodes(flow, named: name).count == 1, "node \(name)")
        }
        let createData = try #require(KratosSampleApp.nodeValue(flow, "passkey_create_data"))
        let createJSON = try #require(try JSONSerialization.jsonObject(with: Data(createData.utf8)) as? [String: Any])
        #expect(createJSON["displayNameFieldName"] as? String == "traits.email")
        let options = try KratosSampleApp.creationOptions(flow, wrapped: true)
        #expect(options.authenticatorSelection?.residentKey == "required")

        let signUp = try await app.signUp(email: "jane@example.com")
        #expect(signUp.status == 200, "\(signUp.text)")
        let token = try #require(signUp.json["session_token"] as? String)
        #expect(token.hasPrefix("ory_st_") && token.count == 39)
        let identity = try #require(signUp.json["identity"] as? [String: Any])
        #expect((identity["traits"] as? [String: Any])?["email"] as? String == "jane@example.com")
        let identityID = try #require(identity["id"] as? String)
        #expect(UUID(uuidString: identityID) != nil)
        let continueWith = try #require(signUp.json["continue_with"] as? [[String: Any]])
        #expect(continueWith.first?["action"] as? String == "set_ory_session_token")
        #expect(continueWith.first?["ory_session_token"] as? String == token)

        // Login flow: discoverable, no allowCredentials.
        let loginFlow = try await app.initialize("/self-service/login/api").json
        #expect(KratosSampleApp.nodes(loginFlow, named: "identifier").first.flatMap { ($0["attributes"] as? [String: Any])?["autocomplete"] as? String } == "username webauthn")
        #expect(try KratosSampleApp.requestOptions(loginFlow).allowCredentials == nil)
        let signIn = try await app.signIn()
        #expect(signIn.status == 200, "\(signIn.text)")
        let loginToken = try #require(signIn.json["session_token"] as? String)
        let session = try #require(signIn.json["session"] as? [String: Any])
        #expect(session["authenticator_assurance_level"] as? String == "aal1")
        #expect((session["authentication_methods"] as? [[String: Any]])?.first?["method"] as? String == "passkey")
        #expect(signIn.json.keys.contains("continue_with"))

        // whoami, with either header.
        for headers in [["X-Session-Token": loginToken], ["Authorization": "Bearer \(loginToken)"]] {
            let whoami = try await running.http.send("GET", "/sessions/whoami", contentType: nil, headers: headers)
            #expect(whoami.status == 200)
            #expect(whoami.header("X-Kratos-Authenticated-Identity-Id") == identityID)
            #expect(((whoami.json["identity"] as? [String: Any])?["traits"] as? [String: Any])?["email"] as? String == "jane@example.com")
        }

        // Settings: add a second passkey, then remove the first; the last is kept.
        let settings = try await app.initialize("/self-service/settings/api", token: loginToken).json
        let settingsOptions = try KratosSampleApp.creationOptions(settings, wrapped: false)
        #expect(settingsOptions.excludeCredentials?.map(\.id.bytes) == [app.credentials[0].credentialID])
        #expect(settingsOptions.user.name == "jane@example.com")
        let removeNodes = KratosSampleApp.nodes(settings, named: "passkey_remove")
        #expect(removeNodes.count == 1)
        #expect((removeNodes.first?["attributes"] as? [String: Any])?["disabled"] as? Bool == true, "the last passkey cannot be removed")
        let added = try app.create(settingsOptions, name: "jane@example.com")
        let addReply = try await app.submit(settings, [("method", "passkey"), ("passkey_settings_register", try app.credentialString(added))], headers: ["X-Session-Token": loginToken])
        #expect(addReply.status == 200, "\(addReply.text)")
        #expect(addReply.json["state"] as? String == "success")
        #expect(KratosSampleApp.messageIDs(addReply.json) == [1_050_001])
        let afterAdd = KratosSampleApp.nodes(addReply.json, named: "passkey_remove")
        #expect(afterAdd.count == 2)
        let firstHex = app.credentials[0].credentialID.map { String(format: "%02x", $0) }.joined()
        #expect(afterAdd.contains { ($0["attributes"] as? [String: Any])?["value"] as? String == firstHex })
        let label = (afterAdd.first?["meta"] as? [String: Any])?["label"] as? [String: Any]
        #expect(label?["id"] as? Int == 1_050_020)
        let context = try #require(label?["context"] as? [String: Any])
        #expect(context["added_at_unix"] is Int)
        #expect(context["display_name"] is String)
        #expect(context["credential_device_type"] as? String == "single_device", "the software authenticator's passkeys are device-bound")
        let firstLabel = afterAdd.first { ($0["attributes"] as? [String: Any])?["value"] as? String == firstHex }
        let firstContext = ((firstLabel?["meta"] as? [String: Any])?["label"] as? [String: Any])?["context"] as? [String: Any]
        #expect(firstContext?["last_used_at"] is String, "the passkey used to sign in says when")

        let removeReply = try await app.submit(addReply.json, [("method", "passkey"), ("passkey_remove", firstHex)], headers: ["X-Session-Token": loginToken])
        #expect(removeReply.status == 200, "\(removeReply.text)")
        let remaining = KratosSampleApp.nodes(removeReply.json, named: "passkey_remove")
        #expect(remaining.count == 1)
        let lastHex = try #require((remaining.first?["attributes"] as? [String: Any])?["value"] as? String)

        // The first passkey started this session, so removing it ended the session too.
        let ended = try await running.http.send("GET", "/sessions/whoami", contentType: nil, headers: ["X-Session-Token": loginToken])
        #expect(ended.status == 401)
        #expect(Self.errorID(ended) == "session_inactive")

        // The added passkey signs in; the last passkey cannot be removed; logout ends the session.
        let again = try await app.signIn(index: 1)
        #expect(again.status == 200)
        let freshToken = try #require(again.json["session_token"] as? String)
        let fresh = try await app.initialize("/self-service/settings/api", token: freshToken).json
        let refused = try await app.submit(fresh, [("method", "passkey"), ("passkey_remove", lastHex)], headers: ["X-Session-Token": freshToken])
        #expect(refused.status == 400)
        #expect(KratosSampleApp.nodes(refused.json, named: "passkey_remove").count == 1, "the last passkey is still there")
        let logout = try await running.http.json("DELETE", "/self-service/logout/api", ["session_token": freshToken])
        #expect(logout.status == 204)
        let after = try await running.http.send("GET", "/sessions/whoami", contentType: nil, headers: ["X-Session-Token": freshToken])
        #expect(after.status == 401)
        #expect(Self.errorID(after) == "session_inactive")
        #expect(try await running.http.json("DELETE", "/self-service/logout/api", ["session_token": freshToken]).status == 403)
    }

    @Test func aPasskeyWorksInEveryFace() async throws {
        let running = try await Self.start()
        defer { running.server.stop() }

        // Created through the Kratos face, used through the Auth0-shaped API.
        var app = KratosSampleApp(server: running.url, platform: .iOS)
        #expect(try await app.signUp(email: "ada@example.com").status == 200)
        var viaAuth0 = PasskeyUser(server: running.url, clientID: "demo", credentials: app.credentials)
        viaAuth0.origin = "https://localhost"
        viaAuth0.authenticator = app.authenticator
        let tokens = try await viaAuth0.signIn(username: "ada@example.com")
        #expect(claims(of: tokens.accessToken)["sub"] as? String != nil)

        // Created through the Auth0-shaped API, used through the Kratos face.
        var web = PasskeyUser(server: running.url)
        try await web.signUp(.init(email: "grace@example.com"))
        let loginFlow = try await app.initialize("/self-service/login/api").json
        let assertion = try web.authenticator.getAssertion(try KratosSampleApp.requestOptions(loginFlow), origin: "http://localhost:8080", credential: &web.credentials[0])
        let signIn = try await app.submit(loginFlow, [("method", "passkey"), ("passkey_login", String(decoding: try JSONEncoder().encode(assertion), as: UTF8.self))])
        #expect(signIn.status == 200, "\(signIn.text)")
        let identity = (signIn.json["session"] as? [String: Any])?["identity"] as? [String: Any]
        #expect((identity?["traits"] as? [String: Any])?["email"] as? String == "grace@example.com")

        // Created through the Kratos face, used on the hosted pages.
        let browser = BrowserAgent(server: running.url)
        browser.authenticator = app.authenticator
        // The counter moved on with the Auth0-shaped sign-in above.
        browser.credentials = viaAuth0.credentials
        #expect(try await browser.signIn().status == 200)
        #expect(try await browser.get("/account").text.contains("ada@example.com"))

        // Created on the hosted pages, used through the Kratos face.
        let visitor = BrowserAgent(server: running.url)
        #expect(try await visitor.signUp(email: "hopper@example.com").status == 200)
        let kratosFlow = try await app.initialize("/self-service/login/api").json
        let hostedAssertion = try visitor.authenticator.getAssertion(try KratosSampleApp.requestOptions(kratosFlow), origin: "http://localhost:8080", credential: &visitor.credentials[0])
        let viaKratos = try await app.submit(kratosFlow, [("method", "passkey"), ("passkey_login", String(decoding: try JSONEncoder().encode(hostedAssertion), as: UTF8.self))])
        #expect(viaKratos.status == 200, "\(viaKratos.text)")
        let kratosIdentity = (viaKratos.json["session"] as? [String: Any])?["identity"] as? [String: Any]
        #expect((kratosIdentity?["traits"] as? [String: Any])?["email"] as? String == "hopper@example.com")
        let user = try #require(try await running.storage().user(identifier: .email("hopper@example.com")))
        #expect(kratosIdentity?["id"] as? String == Self.uuid(of: user.id), "the identity is the Latchkey user")
    }

    static func uuid(of userID: UserID) -> String {
        let hex = (Base64URL.decode(userID.rawValue) ?? []).map { String(format: "%02x", $0) }.joined()
        return [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4), hex.dropFirst(20)].joined(separator: "-")
    }

    @Test func refusedRegistrationsWriteNothing() async throws {
        let running = try await Self.start()
        defer { running.server.stop() }
        var app = KratosSampleApp(server: running.url, platform: .iOS)
        let flow = try await app.initialize("/self-service/registration/api").json
        let response = try app.create(try KratosSampleApp.creationOptions(flow, wrapped: true), name: "x@example.com")
        let good = try app.credentialString(response)

        // Standard base64 in `id`, missing members, not JSON: a 400 flow with 4000001.
        let standardID = good.replacingOccurrences(of: "\"id\":\"\(response.rawId.base64URL)\"", with: "\"id\":\"\(Data(response.rawId.bytes).base64EncodedString())+/=\"")
        for broken in [standardID, "{\"id\":\"abc\",\"type\":\"public-key\"}", "not json", "{\"id\":\"abc\",\"rawId\":\"abc\",\"type\":\"public-key\",\"response\":{}}"] {
            let reply = try await app.submit(flow, [("method", "passkey"), ("passkey_register", broken), ("traits", ["email": "x@example.com"])])
            #expect(reply.status == 400, "\(broken.prefix(40)): \(reply.text)")
            #expect(KratosSampleApp.messageIDs(reply.json) == [4_000_001])
        }
        // No email: a field message.
        let noEmail = try await app.submit(flow, [("method", "passkey"), ("passkey_register", good)])
        #expect(noEmail.status == 400)
        let emailNode = KratosSampleApp.nodes(noEmail.json, named: "traits.email").first
        #expect((emailNode?["messages"] as? [[String: Any]])?.first?["id"] as? Int == 4_000_002)
        // No strategy.
        let noStrategy = try await app.submit(flow, [("method", "password"), ("traits", ["email": "x@example.com"])])
        #expect(KratosSampleApp.messageIDs(noStrategy.json) == [4_010_003])
        // A browser's Origin header or cookie on an API flow.
        let withOrigin = try await app.submit(flow, [("method", "passkey"), ("passkey_register", good), ("traits", ["email": "x@example.com"])], headers: ["Origin": "http://localhost:8080"])
        #expect(withOrigin.status == 400)
        let originText = ((withOrigin.json["ui"] as? [String: Any])?["messages"] as? [[String: Any]])?.first?["text"] as? String ?? ""
        #expect(originText.contains("\"Origin\""))
        let withCookie = try await app.submit(flow, [("method", "passkey"), ("passkey_register", good), ("traits", ["email": "x@example.com"])], headers: ["Cookie": "session=1"])
        #expect(withCookie.status == 400)
        #expect(try await running.hasAccount("x@example.com") == false)

        // The wrong origin: a 400 flow naming the failed check, not Kratos's 500.
        let stranger = SoftwareAuthenticator()
        let freshFlow = try await app.initialize("/self-service/registration/api").json
        var options = try KratosSampleApp.creationOptions(freshFlow, wrapped: true)
        options.user = .init(id: options.user.id, name: "y@example.com", displayName: "y@example.com")
        let (wrongOrigin, _) = try stranger.makeCredential(options, origin: "https://evil.example")
        let refused = try await app.submit(freshFlow, [("method", "passkey"), ("passkey_register", String(decoding: try JSONEncoder().encode(wrongOrigin), as: UTF8.self)), ("traits", ["email": "y@example.com"])])
        #expect(refused.status == 400)
        let text = ((refused.json["ui"] as? [String: Any])?["messages"] as? [[String: Any]])?.first?["text"] as? String ?? ""
        #expect(text.contains("Unable to create WebAuthn credential") && text.contains("evil.example"), "\(text)")
        #expect(try await running.hasAccount("y@example.com") == false)

        // The same flow, renewed with a fresh challenge, still works; then it is completed.
        var retryOptions = try KratosSampleApp.creationOptions(refused.json, wrapped: true)
        #expect(retryOptions.challenge != options.challenge)
        retryOptions.user = .init(id: retryOptions.user.id, name: "y@example.com", displayName: "y@example.com")
        let retry = try app.create(retryOptions, name: "y@example.com")
        let done = try await app.submit(refused.json, [("method", "passkey"), ("passkey_register", try app.credentialString(retry)), ("traits", ["email": "y@example.com"])])
        #expect(done.status == 200, "\(done.text)")
        let again = try await app.submit(refused.json, [("method", "passkey"), ("passkey_register", try app.credentialString(retry)), ("traits", ["email": "y@example.com"])])
        #expect(again.status == 400)
        #expect(Self.errorID(again) == "self_service_flow_completed")
        #expect(try await running.hasAccount("y@example.com"))

        // The email is taken now: 4000007, and still one account.
        let taken = try await app.signUp(email: "y@example.com")
        #expect(taken.status == 400)
        #expect(KratosSampleApp.messageIDs(taken.json) == [4_000_007])
        #expect(try await running.storage().credential(id: app.credentials.last!.credentialID) == nil, "the refused passkey was not stored")

        // Unknown and malformed flow IDs.
        let unknown = try await running.http.json("POST", "/self-service/registration?flow=\(UUID().uuidString.lowercased())", ["method": "passkey"])
        #expect(unknown.status == 404)
        #expect(Self.errorID(unknown) == "not_found")
        let malformed = try await running.http.json("POST", "/self-service/registration?flow=../../etc", ["method": "passkey"])
        #expect(malformed.status == 404)
        let missing = try await running.http.json("POST", "/self-service/registration", ["method": "passkey"])
        #expect(missing.status == 400)
    }

    @Test func refusedLoginsSayWhy() async throws {
        let running = try await Self.start()
        defer { running.server.stop() }
        var app = KratosSampleApp(server: running.url, platform: .android)
        #expect(try await app.signUp(email: "ada@example.com").status == 200)

        // A tampered signature: 4000043, and the counter is not advanced.
        let flow = try await app.initialize("/self-service/login/api").json
        var assertion = try app.assert(try KratosSampleApp.requestOptions(flow))
        var signature = assertion.response.signature.bytes
        signature[signature.count - 1] ^= 0x01
        assertion.response = .init(clientDataJSON: assertion.response.clientDataJSON, authenticatorData: assertion.response.authenticatorData, signature: Base64URLBytes(signature), userHandle: assertion.response.userHandle)
        let tampered = try await app.submit(flow, [("method", "passkey"), ("passkey_login", try app.credentialString(assertion))])
        #expect(tampered.status == 400)
        #expect(KratosSampleApp.messageIDs(tampered.json) == [4_000_043])
        let stored = try await running.storage().credential(id: app.credentials[0].credentialID)
        #expect(stored?.lastUsedAt == nil, "nothing written for a refused login")

        // An assertion made for another origin: 4000043, never "unknown credential".
        let originFlow = try await app.initialize("/self-service/login/api").json
        let wrongOrigin = try app.authenticator.getAssertion(try KratosSampleApp.requestOptions(originFlow), origin: "https://evil.example", credential: &app.credentials[0])
        let refusedOrigin = try await app.submit(originFlow, [("method", "passkey"), ("passkey_login", String(decoding: try JSONEncoder().encode(wrongOrigin), as: UTF8.self))])
        #expect(refusedOrigin.status == 400)
        #expect(KratosSampleApp.messageIDs(refusedOrigin.json) == [4_000_043])

        // An unknown passkey: 4000015.
        var stranger = KratosSampleApp(server: running.url, platform: .android)
        let strangerFlow = try await stranger.initialize("/self-service/registration/api").json
        _ = try stranger.create(try KratosSampleApp.creationOptions(strangerFlow, wrapped: true), name: "nobody@example.com")
        let unknownFlow = try await stranger.initialize("/self-service/login/api").json
        let unknownAssertion = try stranger.assert(try KratosSampleApp.requestOptions(unknownFlow))
        let unknown = try await stranger.submit(unknownFlow, [("method", "passkey"), ("passkey_login", try stranger.credentialString(unknownAssertion))])
        #expect(unknown.status == 400)
        #expect(KratosSampleApp.messageIDs(unknown.json) == [4_000_015])

        // `method: passkey` without an assertion: 422; no strategy: 4010002; garbage: 4000001.
        let again = try await app.initialize("/self-service/login/api").json
        let noAssertion = try await app.submit(again, [("method", "passkey")])
        #expect(noAssertion.status == 422)
        #expect(Self.errorID(noAssertion) == "browser_location_change_required")
        #expect(noAssertion.json["redirect_browser_to"] is String)
        let noStrategy = try await app.submit(again, [("method", "password")])
        #expect(KratosSampleApp.messageIDs(noStrategy.json) == [4_010_002])
        let garbage = try await app.submit(again, [("method", "passkey"), ("passkey_login", "{]")])
        #expect(KratosSampleApp.messageIDs(garbage.json) == [4_000_001])

        // A replayed assertion: the first one signs in, its flow is then completed.
        let fresh = try await app.initialize("/self-service/login/api").json
        let good = try app.assert(try KratosSampleApp.requestOptions(fresh))
        #expect(try await app.submit(fresh, [("method", "passkey"), ("passkey_login", try app.credentialString(good))]).status == 200)
        let replay = try await app.submit(fresh, [("method", "passkey"), ("passkey_login", try app.credentialString(good))])
        #expect(replay.status == 400)
        #expect(Self.errorID(replay) == "self_service_flow_completed")

        // Sessions: none, garbage, another identity's settings flow.
        for headers in [[:], ["X-Session-Token": "ory_st_nope"], ["Authorization": "Bearer " + String(repeating: "x", count: 5000)]] {
            let reply = try await running.http.send("GET", "/sessions/whoami", contentType: nil, headers: headers)
            #expect(reply.status == 401)
            #expect(Self.errorID(reply) == "session_inactive")
        }
        let adaToken = try #require(try await app.signIn().json["session_token"] as? String)
        let adaSettings = try await app.initialize("/self-service/settings/api", token: adaToken).json
        var bob = KratosSampleApp(server: running.url, platform: .android)
        let bobToken = try #require(try await bob.signUp(email: "bob@example.com").json["session_token"] as? String)
        let hijack = try await bob.submit(adaSettings, [("method", "passkey"), ("passkey_remove", "00")], headers: ["X-Session-Token": bobToken])
        #expect(hijack.status == 403)
        #expect(Self.errorID(hijack) == "security_identity_mismatch")
        let read = try await running.http.send("GET", "/self-service/settings/flows?id=\(KratosSampleApp.flowID(adaSettings))", contentType: nil, headers: ["X-Session-Token": bobToken])
        #expect(read.status == 403)
        let ada = try #require(try await running.storage().user(identifier: .email("ada@example.com")))
        #expect(try await running.storage().credentials(userID: ada.id).count == 1, "the hijacked flow removed nothing")
    }

    @Test func flowsCanBeFetchedAndExpire() async throws {
        let server = try await RouterServer.start(yaml: Self.configuration)
        defer { server.stop() }
        let http = RawHTTP(server)
        var app = KratosSampleApp(server, platform: .iOS)
        let flow = try await app.initialize("/self-service/registration/api").json
        let id = KratosSampleApp.flowID(flow)
        let fetched = try await http.send("GET", "/self-service/registration/flows?id=\(id)", contentType: nil)
        #expect(fetched.status == 200)
        #expect(KratosSampleApp.nodeValue(fetched.json, "passkey_create_data") == KratosSampleApp.nodeValue(flow, "passkey_create_data"))
        #expect(try await http.send("GET", "/self-service/login/flows?id=\(id)", contentType: nil).status == 404, "a registration flow is not a login flow")

        let response = try app.create(try KratosSampleApp.creationOptions(flow, wrapped: true), name: "late@example.com")
        server.clock.advance(by: 3601)
        let late = try await app.submit(flow, [("method", "passkey"), ("passkey_register", try app.credentialString(response)), ("traits", ["email": "late@example.com"])])
        #expect(late.status == 410)
        #expect(Self.errorID(late) == "self_service_flow_expired")
        let replacement = try #require(late.json["use_flow_id"] as? String)
        #expect(replacement != id)
        let next = try await http.send("GET", "/self-service/registration/flows?id=\(replacement)", contentType: nil)
        #expect(next.status == 200)
        // The replacement flow takes a new passkey.
        let retry = try app.create(try KratosSampleApp.creationOptions(next.json, wrapped: true), name: "late@example.com")
        let done = try await app.submit(next.json, [("method", "passkey"), ("passkey_register", try app.credentialString(retry)), ("traits", ["email": "late@example.com"])])
        #expect(done.status == 200, "\(done.text)")
    }
}
