import Authenticator
import Foundation
import HTTPTypes
import Testing
import WebAuthn

/// The rules every face holds the same line on, in process: a rule lives in IdentityCore or
/// on the route group it guards, so each face answers it, in its own envelope.
@Suite("Rules every face enforces, in process")
struct RulesEveryFaceTests {
    static let idaas = """
        faces:
          idaas:
            admin_applications:
              - { application_id: backend, name: Backend, shared_secret: a secret of sixteen+ }
        """
    static let origin = "http://localhost:8080"
    static let allScopes = "openid profile email offline_access create:me:authentication_methods read:me:authentication_methods update:me:authentication_methods delete:me:authentication_methods"

    // MARK: - Helpers

    /// A person with a software authenticator, signing up and in through the faces.
    struct Person {
        let client: RouterClient
        var authenticator = SoftwareAuthenticator()
        var credentials: [SoftwareCredential] = []
        var address = "192.0.2.1"

        init(_ client: RouterClient) { self.client = client }

        var headers: HTTPFields { [RateLimitHeader.name: address] }

        func send(_ method: HTTPRequest.Method, _ path: String, body: String? = nil, headers: HTTPFields = [:]) async throws -> RouterClient.Reply {
            var all = self.headers
            for field in headers { all[field.name] = field.value }
            return try await client.send(method, path, body: body, headers: all)
        }

        /// Signs up through the Auth0-shaped API and returns the token response.
        mutating func signUp(email: String, scope: String = RulesEveryFaceTests.allScopes) async throws -> [String: Any] {
            let start = try await send(.post, "/passkey/register", body: #"{"client_id":"demo","user_profile":{"email":"\#(email)"}}"#)
            #expect(start.status == .ok, "\(start.text)")
            let options = try JSONDecoder().decode(
                PublicKeyCredentialCreationOptionsJSON.self, from: JSONSerialization.data(withJSONObject: try #require(start.json["authn_params_public_key"]))
            )
            let (response, credential) = try authenticator.makeCredential(options, origin: RulesEveryFaceTests.origin)
            credentials.append(credential)
            let reply = try await token(authSession: try #require(start.json["auth_session"] as? String), response: response, scope: scope)
            #expect(reply.status == .ok, "\(reply.text)")
            return reply.json
        }

        /// `POST /oauth/token` with the webauthn grant.
        func token(authSession: String, response: some Encodable, scope: String = RulesEveryFaceTests.allScopes, profile: [String: Any]? = nil) async throws -> RouterClient.Reply {
            var body: [String: Any] = [
                "grant_type": RegistrationPolicyFaceTests.webauthnGrant, "client_id": "demo", "auth_session": authSession, "scope": scope,
                "authn_response": try JSONSerialization.jsonObject(with: JSONEncoder().encode(response)),
            ]
            if let profile { body["user_profile"] = profile }
            return try await send(.post, "/oauth/token", body: String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self))
        }

        /// Signs in through the IDaaS Authentication API with the passkey at `index` and
        /// returns the signed-in user's token.
        mutating func idaasSignIn(index: Int = 0) async throws -> String {
            let started = try await send(.post, "/api/web/v2/authentication/users/authenticate/PASSKEY", body: #"{"applicationId": "demo", "rpId": "localhost"}"#)
            #expect(started.status == .ok, "\(started.text)")
            let challenge = try #require((started.json["fidoChallenge"] as? [String: Any])?["challenge"] as? String)
            let options = PublicKeyCredentialRequestOptionsJSON(challenge: Base64URLBytes(try #require(Base64URL.decode(challenge))), rpId: "localhost")
            let assertion = try authenticator.getAssertion(options, origin: RulesEveryFaceTests.origin, credential: &credentials[index])
            let fido: [String: Any] = [
                "credentialId": assertion.id, "clientDataJSON": assertion.response.clientDataJSON.base64URL,
                "authenticatorData": assertion.response.authenticatorData.base64URL, "signature": assertion.response.signature.base64URL,
                "userHandle": assertion.response.userHandle?.base64URL ?? "",
            ]
            let body = String(decoding: try JSONSerialization.data(withJSONObject: ["applicationId": "demo", "fidoResponse": fido]), as: UTF8.self)
            let completed = try await send(
                .post, "/api/web/v1/authentication/users/authenticate/PASSKEY/complete", body: body,
                headers: [.authorization: try #require(started.json["token"] as? String)]
            )
            #expect(completed.status == .ok, "\(completed.text)")
            return try #require(completed.json["token"] as? String)
        }
    }

    /// The header the server's connection handler writes from the socket.
    enum RateLimitHeader {
        static let name = HTTPField.Name("X-Latchkey-Client-Address")!
    }

    static let sessionToken = HTTPField.Name("X-Session-Token")!

    static func kratosErrorID(_ reply: RouterClient.Reply) -> String? {
        (reply.json["error"] as? [String: Any])?["id"] as? String
    }

    // MARK: - HEAD

    /// A `HEAD` of a `GET` that starts something (a flow, a challenge, a code, a sign-out)
    /// is refused in the face's envelope without running the `GET`: it counts against no
    /// limit and starts nothing. Other routes keep their `HEAD`.
    @Test func aHeadOfAGetThatStartsSomethingStartsNothing() async throws {
        let client = try await RouterClient.start(yaml: Self.idaas + "\nlimits: { ceremony_starts_per_minute: 2 }")
        defer { client.remove() }
        let headers: HTTPFields = [RateLimitHeader.name: "192.0.2.7", .accept: "application/json"]
        for path in ["/self-service/login/api", "/self-service/registration/api", "/self-service/login/browser", "/self-service/registration/browser"] {
            for _ in 0..<3 {
                let head = try await client.send(.head, path, headers: headers)
                #expect(head.status == .methodNotAllowed, "HEAD \(path): \(head.status)")
                #expect(head.headers[.allow] == "GET")
            }
        }
        let logout = try await client.send(.head, "/self-service/logout?token=x", headers: headers)
        #expect(logout.status == .methodNotAllowed)
        let admin = try await IDaaSHostileInputTests.adminToken(client)
        let idaas = try await client.send(.head, "/api/web/v1/fidotokens/challenge/00000000-0000-4000-8000-000000000000", headers: [.authorization: admin])
        #expect(idaas.status == .methodNotAllowed, "\(idaas.status)")
        let authorize = try await client.send(.head, "/authorize?client_id=demo&response_type=code", headers: [.accept: "text/html"])
        #expect(authorize.status == .methodNotAllowed && authorize.headers[.allow] == "GET")

        // None of them counted: the start limit of 2 still lets two flows start, then refuses.
        let get = try await client.send(.get, "/self-service/login/api", headers: headers)
        #expect(get.status == .ok, "\(get.text.prefix(200))")
        #expect(try await client.send(.get, "/self-service/registration/api", headers: headers).status == .ok)
        let refused = try await client.send(.get, "/self-service/login/api", headers: headers)
        #expect(refused.status == .tooManyRequests && refused.headers[.retryAfter] != nil)
        #expect(Self.kratosErrorID(refused) == "rate_limited", "Kratos's envelope: \(refused.text)")

        // A GET that changes nothing keeps its HEAD.
        let discovery = try await client.send(.head, "/.well-known/openid-configuration")
        #expect(discovery.status == .ok && discovery.body.isEmpty)
    }

    // MARK: - Limits

    /// A failed finish counts toward `ceremony_failures_per_minute` in every face, whatever
    /// error type the face threw; the next finish from that address is refused in the
    /// face's own envelope.
    @Test func failedFinishesCountInEveryFace() async throws {
        let client = try await RouterClient.start(yaml: Self.idaas + "\nlimits: { ceremony_starts_per_minute: 0, ceremony_finishes_per_minute: 0, ceremony_failures_per_minute: 3 }")
        defer { client.remove() }

        // Kratos: a flow answered with its messages (400) is a failure.
        let kratos: HTTPFields = [RateLimitHeader.name: "192.0.2.10"]
        let flow = try await client.send(.get, "/self-service/login/api", headers: kratos)
        let action = KratosBrowserFlowTests.Browser.action(flow.json)
        for _ in 0..<3 {
            let rejected = try await client.send(.post, action, body: #"{"method":"passkey","passkey_login":"not a credential"}"#, headers: kratos)
            #expect(rejected.status == .badRequest, "\(rejected.text.prefix(200))")
        }
        let kratosRefused = try await client.send(.post, action, body: #"{"method":"passkey","passkey_login":"not a credential"}"#, headers: kratos)
        #expect(kratosRefused.status == .tooManyRequests && Self.kratosErrorID(kratosRefused) == "rate_limited", "\(kratosRefused.text)")

        // IDaaS: its ErrorInfo failures count, and the refusal is an ErrorInfo.
        let idaas: HTTPFields = [RateLimitHeader.name: "192.0.2.11", .authorization: "not-a-transaction"]
        let body = #"{"applicationId": "demo", "fidoResponse": {"authenticatorData": "AAAA", "clientDataJSON": "e30", "signature": "AA", "credentialId": "AAAA"}}"#
        for _ in 0..<3 {
            let failed = try await client.send(.post, "/api/web/v1/authentication/users/authenticate/PASSKEY/complete", body: body, headers: idaas)
            #expect(failed.status == .unauthorized, "\(failed.text)")
        }
        let idaasRefused = try await client.send(.post, "/api/web/v1/authentication/users/authenticate/PASSKEY/complete", body: body, headers: idaas)
        #expect(idaasRefused.status == .tooManyRequests && idaasRefused.json["errorCode"] as? String == "too_many_requests", "\(idaasRefused.text)")

        // Another address is unaffected.
        let other = try await client.send(.post, action, body: #"{"method":"passkey","passkey_login":"not a credential"}"#, headers: [RateLimitHeader.name: "192.0.2.12"])
        #expect(other.status == .badRequest)
    }

    /// The IDaaS face's signed-in user's routes start and finish ceremonies too: limited.
    @Test func theIDaaSSelfRoutesAreLimited() async throws {
        let client = try await RouterClient.start(yaml: Self.idaas + "\nlimits: { ceremony_starts_per_minute: 2 }")
        defer { client.remove() }
        var ada = Person(client)
        ada.address = "192.0.2.20"
        _ = try await ada.signUp(email: "ada@example.com")
        let token = try await ada.idaasSignIn()
        #expect(try await ada.send(.get, "/api/web/v1/self/fidotokens", headers: [.authorization: token]).status == .tooManyRequests, "sign-up and sign-in used both")
    }

    /// Every sign-up path counts toward `identifier_attempts_per_minute` for the identifier
    /// it names, wherever it names it: a password sign-up, a sign-up that names its
    /// identifier only at `/oauth/token`, a Kratos registration.
    @Test func everySignUpPathCountsTowardTheIdentifierLimit() async throws {
        let client = try await RouterClient.start(
            yaml: KratosBrowserFlowTests.yaml + "\nlimits: { ceremony_starts_per_minute: 0, ceremony_finishes_per_minute: 0, identifier_attempts_per_minute: 3, ceremony_failures_per_minute: 0 }"
        )
        defer { client.remove() }

        // Password sign-ups: one account, two "user exists", then the limit.
        var statuses: [Int] = []
        for _ in 0..<4 {
            let reply = try await client.send(.post, "/dbconnections/signup", body: #"{"client_id":"demo","email":"ada@example.com","password":"a long enough passphrase"}"#)
            statuses.append(Int(reply.status.code))
        }
        #expect(statuses == [200, 400, 400, 429], "\(statuses)")

        // The account creation API: the identifier comes with the finish.
        let bob = Person(client)
        statuses = []
        for _ in 0..<4 {
            let start = try await client.send(.post, "/passkey/register", body: #"{"client_id":"demo"}"#)
            let options = try JSONDecoder().decode(
                PublicKeyCredentialCreationOptionsJSON.self, from: JSONSerialization.data(withJSONObject: try #require(start.json["authn_params_public_key"]))
            )
            let (response, _) = try bob.authenticator.makeCredential(options, origin: Self.origin)
            let finished = try await bob.token(authSession: try #require(start.json["auth_session"] as? String), response: response, profile: ["email": "bob@example.com"])
            statuses.append(Int(finished.status.code))
        }
        #expect(statuses == [200, 400, 400, 429], "\(statuses)")

        // Kratos registration: the traits carry the identifier.
        var browser = KratosBrowserFlowTests.Browser(client: client)
        statuses = []
        for _ in 0..<4 {
            let flow = try await browser.start("registration")
            let reply = try await browser.send(.post, KratosBrowserFlowTests.Browser.action(flow), form: try browser.signUp(flow, email: "cy@example.com"), headers: [.accept: "application/json"])
            statuses.append(Int(reply.status.code))
        }
        #expect(statuses == [200, 400, 400, 429], "\(statuses)")
    }

    /// An IPv6 host commonly holds a whole /64: the per-address limits count its addresses
    /// as one client, by `limits.ipv6_prefix_length`.
    @Test func ipv6AddressesCountByTheirPrefix() async throws {
        for (yaml, sharedLimit) in [("limits: { ceremony_starts_per_minute: 2 }", true), ("limits: { ceremony_starts_per_minute: 2, ipv6_prefix_length: 128 }", false)] {
            let client = try await RouterClient.start(yaml: yaml)
            defer { client.remove() }
            func challenge(from address: String) async throws -> HTTPResponse.Status {
                try await client.send(.post, "/passkey/challenge", body: #"{"client_id":"demo"}"#, headers: [RateLimitHeader.name: address]).status
            }
            #expect(try await challenge(from: "2001:db8:1:2::a") == .ok)
            #expect(try await challenge(from: "2001:db8:1:2:ffff::b") == .ok)
            #expect(try await challenge(from: "2001:db8:1:2::c") == (sharedLimit ? .tooManyRequests : .ok), "\(yaml)")
            #expect(try await challenge(from: "2001:db8:1:3::a") == .ok, "another /64")
            #expect(try await challenge(from: "192.0.2.30") == .ok)
        }
    }

    // MARK: - Scopes, flows, administrators

    /// "Sign out everywhere" changes the account: a token that may only read it is refused.
    @Test func signingOutEverywhereNeedsAWriteScope() async throws {
        let client = try await RouterClient.start()
        defer { client.remove() }
        var ada = Person(client)
        let readOnly = try await ada.signUp(email: "ada@example.com", scope: "openid read:me:authentication_methods")
        let token = try #require(readOnly["access_token"] as? String)
        let refused = try await ada.send(.delete, "/me/v1/sessions", headers: [.authorization: "Bearer \(token)"])
        #expect(refused.status == .forbidden && refused.json["type"] as? String == "urn:latchkey:error:insufficient_scope", "\(refused.text)")
        #expect(try await ada.send(.get, "/me/v1/authentication-methods", headers: [.authorization: "Bearer \(token)"]).status == .ok, "the session lives on")
        for scope in ["update:me:authentication_methods", "delete:me:authentication_methods"] {
            var person = Person(client)
            let tokens = try await person.signUp(email: "\(scope.prefix(6))@example.com", scope: "openid \(scope)")
            let signedOut = try await person.send(.delete, "/me/v1/sessions", headers: [.authorization: "Bearer \(try #require(tokens["access_token"] as? String))"])
            #expect(signedOut.status == .noContent, "\(scope): \(signedOut.text)")
        }
    }

    /// A browser flow carries its browser's CSRF token, so it is shown only to the browser
    /// holding the matching cookie; an API flow is shown to anyone with its ID.
    @Test func aBrowserFlowIsShownOnlyToItsBrowser() async throws {
        let client = try await RouterClient.start(yaml: KratosBrowserFlowTests.yaml)
        defer { client.remove() }
        var browser = KratosBrowserFlowTests.Browser(client: client)
        for kind in ["login", "registration"] {
            let flow = try await browser.start(kind)
            let id = try #require(flow["id"] as? String)
            let stranger = try await client.send(.get, "/self-service/\(kind)/flows?id=\(id)", headers: [.accept: "application/json"])
            #expect(stranger.status == .forbidden && Self.kratosErrorID(stranger) == "security_csrf_violation", "\(stranger.text.prefix(200))")
            #expect(!stranger.text.contains(KratosBrowserFlowTests.Browser.csrf(flow)), "the CSRF token does not leak")
            let forged = try await client.send(.get, "/self-service/\(kind)/flows?id=\(id)", headers: [.cookie: "csrf_token_latchkey=" + String(repeating: "A", count: 43)])
            #expect(forged.status == .forbidden)
            let owner = try await browser.send(.get, "/self-service/\(kind)/flows?id=\(id)", headers: [.accept: "application/json"])
            #expect(owner.status == .ok && KratosBrowserFlowTests.Browser.csrf(owner.json) == KratosBrowserFlowTests.Browser.csrf(flow))
        }
        let api = try await client.send(.get, "/self-service/login/api")
        let apiID = try #require(api.json["id"] as? String)
        #expect(try await client.send(.get, "/self-service/login/flows?id=\(apiID)").status == .ok, "API flows are unchanged")
    }

    /// A passkey an administrator turned off stays off for its owner: the owner's `/self`
    /// cannot turn it on again; another administrator call can.
    @Test func anAdministratorsDecisionStands() async throws {
        let client = try await RouterClient.start(yaml: Self.idaas)
        defer { client.remove() }
        var ada = Person(client)
        _ = try await ada.signUp(email: "ada@example.com")
        let admin = try await IDaaSHostileInputTests.adminToken(client)
        // The administrator enrolls a second passkey for Ada, then turns it off.
        let fidoID = try await Self.adminEnroll(client, admin: admin, for: &ada, email: "ada@example.com")
        let off = try await client.send(.put, "/api/web/v1/fidotokens/\(fidoID)", body: #"{"state":"INACTIVE"}"#, headers: [.authorization: admin])
        #expect(off.json["state"] as? String == "INACTIVE", "\(off.text)")

        // Ada, signed in with her first passkey, cannot turn it on again.
        let session = try await ada.idaasSignIn(index: 0)
        let refused = try await ada.send(.put, "/api/web/v1/self/fidotokens/\(fidoID)", body: #"{"state":"ACTIVE"}"#, headers: [.authorization: session])
        #expect(refused.status == .forbidden && refused.json["errorCode"] as? String == "fido_token_disabled_by_administrator", "\(refused.text)")
        let read = try await ada.send(.get, "/api/web/v1/self/fidotokens/\(fidoID)", headers: [.authorization: session])
        #expect(read.json["state"] as? String == "INACTIVE")
        // She may rename it, which changes nothing about signing in.
        #expect(try await ada.send(.put, "/api/web/v1/self/fidotokens/\(fidoID)", body: #"{"name":"Old work key"}"#, headers: [.authorization: session]).status == .ok)
        // The administrator can.
        let on = try await client.send(.put, "/api/web/v1/fidotokens/\(fidoID)", body: #"{"state":"ACTIVE"}"#, headers: [.authorization: admin])
        #expect(on.json["state"] as? String == "ACTIVE", "\(on.text)")
    }

    // MARK: - Step-up

    /// Kratos settings and IDaaS's `/self` routes need a recent sign-in to add, turn off or
    /// remove a passkey, as My Account and the hosted pages do: the rule is IdentityCore's,
    /// and each face words the refusal its own way.
    @Test func kratosAndIDaaSAskForARecentSignIn() async throws {
        let client = try await RouterClient.start(yaml: KratosBrowserFlowTests.yaml + "\n" + Self.idaas + "\npasskeys: { sensitive_action_max_age: 10m }")
        defer { client.remove() }

        // Kratos, an API flow.
        var kratos = KratosBrowserFlowTests.Browser(client: client)
        kratos.authenticator = SoftwareAuthenticator()
        let registration = try await client.send(.get, "/self-service/registration/api")
        let signedUp = try await client.send(
            .post, KratosBrowserFlowTests.Browser.action(registration.json), body: try Self.kratosSignUp(&kratos, registration.json, email: "ada@example.com")
        )
        let token = try #require(signedUp.json["session_token"] as? String, "\(signedUp.text)")
        let settings = try await client.send(.get, "/self-service/settings/api", headers: [Self.sessionToken: token])
        #expect(settings.status == .ok, "\(settings.text.prefix(300))")
        client.clock.advance(by: 11 * 60)
        let add = try Self.kratosAddPasskey(&kratos, settings.json)
        let stale = try await client.send(.post, KratosBrowserFlowTests.Browser.action(settings.json), body: add, headers: [Self.sessionToken: token])
        #expect(stale.status == .forbidden && Self.kratosErrorID(stale) == "session_refresh_required", "\(stale.text)")
        #expect((stale.json["redirect_browser_to"] as? String)?.contains("/self-service/login/browser?refresh=true") == true)
        let passkeyHex = try #require(KratosBrowserFlowTests.Browser.node(settings.json, "passkey_remove")?["value"] as? String)
        let removal = try await client.send(
            .post, KratosBrowserFlowTests.Browser.action(settings.json), body: #"{"method":"passkey","passkey_remove":"\#(passkeyHex)"}"#, headers: [Self.sessionToken: token]
        )
        #expect(removal.status == .forbidden && Self.kratosErrorID(removal) == "session_refresh_required", "\(removal.text)")
        // Signing in again is enough, on the same flow.
        let login = try await client.send(.get, "/self-service/login/api")
        let signedIn = try await client.send(.post, KratosBrowserFlowTests.Browser.action(login.json), body: try Self.kratosSignIn(&kratos, login.json))
        let fresh = try #require(signedIn.json["session_token"] as? String, "\(signedIn.text)")
        let added = try await client.send(.post, KratosBrowserFlowTests.Browser.action(settings.json), body: add, headers: [Self.sessionToken: fresh])
        #expect(added.status == .ok && added.json["state"] as? String == "success", "\(added.text.prefix(300))")

        // IDaaS: a signed-in user's token from eleven minutes ago.
        var bob = Person(client)
        _ = try await bob.signUp(email: "bob@example.com")
        let session = try await bob.idaasSignIn()
        let challenge = try await bob.send(.get, "/api/web/v1/self/fidotokens", headers: [.authorization: session])
        #expect(challenge.status == .ok, "a fresh sign-in may add a passkey: \(challenge.text)")
        let fidoID = try await Self.adminEnroll(client, admin: try await IDaaSHostileInputTests.adminToken(client), for: &bob, email: "bob@example.com")
        client.clock.advance(by: 11 * 60)
        for (method, path, body) in [
            (HTTPRequest.Method.get, "/api/web/v1/self/fidotokens", nil), (.put, "/api/web/v1/self/fidotokens/\(fidoID)", #"{"state":"INACTIVE"}"#),
            (.delete, "/api/web/v1/self/fidotokens/\(fidoID)", nil),
        ] {
            let refused = try await bob.send(method, path, body: body, headers: [.authorization: session])
            #expect(refused.status == .forbidden && refused.json["errorCode"] as? String == "reauthentication_required", "\(method) \(path): \(refused.text)")
        }
        #expect(try await bob.send(.put, "/api/web/v1/self/fidotokens/\(fidoID)", body: #"{"name":"Laptop"}"#, headers: [.authorization: session]).status == .ok)
    }

    /// An IDaaS administrator enrolls a passkey for `person`; returns its `fidoid`.
    static func adminEnroll(_ client: RouterClient, admin: String, for person: inout Person, email: String) async throws -> String {
        let user = try await client.send(.post, "/api/web/v3/users/userid", body: #"{"userId":"\#(email)"}"#, headers: [.authorization: admin])
        let uuid = try #require(user.json["id"] as? String, "\(user.text)")
        let challenge = try await client.send(.get, "/api/web/v1/fidotokens/challenge/\(uuid)", headers: [.authorization: admin])
        let options = PublicKeyCredentialCreationOptionsJSON(
            rp: .init(id: "localhost", name: "localhost"),
            user: .init(id: Base64URLBytes(try #require(Base64URL.decode(challenge.json["userId"] as? String ?? ""))), name: email, displayName: email),
            challenge: Base64URLBytes(try #require(Base64URL.decode(challenge.json["challenge"] as? String ?? ""))),
            pubKeyCredParams: [.init(alg: .es256)]
        )
        let (registration, credential) = try person.authenticator.makeCredential(options, origin: Self.origin)
        person.credentials.append(credential)
        let body: [String: Any] = [
            "attestationObject": registration.response.attestationObject.base64URL, "clientDataJSON": registration.response.clientDataJSON.base64URL, "name": "Work key",
        ]
        let completed = try await client.send(
            .post, "/api/web/v1/fidotokens/complete/\(uuid)", body: String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self),
            headers: [.authorization: admin]
        )
        return try #require(completed.json["id"] as? String, "\(completed.text)")
    }

    static func kratosSignUp(_ browser: inout KratosBrowserFlowTests.Browser, _ flow: [String: Any], email: String) throws -> String {
        let form = try browser.signUp(flow, email: email)
        return String(decoding: try JSONSerialization.data(withJSONObject: [
            "method": "passkey", "traits": ["email": email], "passkey_register": form.first { $0.0 == "passkey_register" }!.1,
        ]), as: UTF8.self)
    }

    static func kratosSignIn(_ browser: inout KratosBrowserFlowTests.Browser, _ flow: [String: Any]) throws -> String {
        let form = try browser.signIn(flow)
        return String(decoding: try JSONSerialization.data(withJSONObject: ["method": "passkey", "passkey_login": form.first { $0.0 == "passkey_login" }!.1]), as: UTF8.self)
    }

    static func kratosAddPasskey(_ browser: inout KratosBrowserFlowTests.Browser, _ flow: [String: Any]) throws -> String {
        let data = try #require(KratosBrowserFlowTests.Browser.node(flow, "passkey_create_data")?["value"] as? String)
        let wrapper = try #require(try JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any])
        let options = try JSONDecoder().decode(PublicKeyCredentialCreationOptionsJSON.self, from: JSONSerialization.data(withJSONObject: try #require(wrapper["publicKey"])))
        let (response, credential) = try browser.authenticator.makeCredential(options, origin: KratosBrowserFlowTests.ui)
        browser.credentials.append(credential)
        return String(decoding: try JSONSerialization.data(withJSONObject: [
            "method": "passkey", "passkey_settings_register": try KratosBrowserFlowTests.Browser.json(response),
        ]), as: UTF8.self)
    }

    // MARK: - The edge and the hosted pages' frame

    /// A request that reaches no face's routes is answered in the envelope of the face whose
    /// path it names: a path no route has. (A missing `Host`, which only a connection can
    /// send, is `HTTPEdgeTests`'s.)
    @Test func requestsNoRouteTakesGetTheirFacesEnvelope() async throws {
        let client = try await RouterClient.start(yaml: Self.idaas)
        defer { client.remove() }
        let unrouted: [(String, (RouterClient.Reply) -> Bool)] = [
            ("/me/v1/nothing", { $0.json["type"] as? String == "urn:latchkey:error:not_found" }),
            ("/self-service/nothing", { Self.kratosErrorID($0) == "not_found" }),
            ("/sessions/nothing", { Self.kratosErrorID($0) == "not_found" }),
            ("/api/web/v1/nothing", { $0.json["errorCode"] as? String == "not_found" }),
            ("/ui/nothing", { $0.json["error"] as? String == "not_found" }),
            ("/nothing", { $0.json["error"] as? String == "not_found" }),
        ]
        for (path, inEnvelope) in unrouted {
            let reply = try await client.send(.get, path, headers: [.accept: "application/json"])
            #expect(reply.status == .notFound && inEnvelope(reply), "\(path): \(reply.text)")
        }
        let page = try await client.send(.get, "/nothing", headers: [.accept: "text/html"])
        #expect(page.status == .notFound && page.text.contains("<html"), "a browser gets a page")
    }

    /// No face answers a 5xx to an `Accept` it cannot honour or read, with a body or without:
    /// each either serves its one type or refuses in its envelope.
    @Test func aBadAcceptNeverMakesAFiveHundred() async throws {
        let client = try await RouterClient.start(yaml: Self.idaas)
        defer { client.remove() }
        let routes: [(HTTPRequest.Method, String)] = [
            (.post, "/passkey/register"), (.post, "/passkey/challenge"), (.post, "/oauth/token"), (.post, "/oauth/revoke"), (.get, "/userinfo"),
            (.post, "/recovery/start"), (.get, "/.well-known/openid-configuration"), (.get, "/.well-known/jwks.json"), (.get, "/authorize"),
            (.get, "/me/v1/authentication-methods"), (.patch, "/me/v1/profile"), (.post, "/me/v1/recovery-codes"), (.post, "/me/v1/email-verification"),
            (.delete, "/me/v1/sessions"), (.get, "/me/v1/signals"),
            (.get, "/self-service/login/api"), (.get, "/self-service/registration/api"), (.get, "/self-service/recovery/api"), (.post, "/self-service/recovery"),
            (.get, "/self-service/settings/api"), (.get, "/sessions/whoami"), (.post, "/self-service/verification"),
            (.post, "/api/web/v2/authentication/users/authenticate/PASSKEY"), (.post, "/api/web/v1/adminapi/authentication"),
            (.get, "/api/web/v1/fido2/self"),
            (.get, "/login"), (.get, "/account"), (.post, "/ui/login"), (.post, "/ui/recovery"), (.post, "/ui/profile/email"), (.get, "/recover"),
            (.get, "/admin/v1/users"), (.post, "/admin/v1/users"), (.get, "/admin/v1/events/export"),
        ]
        for (method, path) in routes {
            for accept in ["text/html", "application/xml", "application/json;q=0", "garbage", "*/*;q=2", ";;;"] {
                for body in [nil, "{", #"{"client_id":"demo","email":"a@example.com"}"#] as [String?] {
                    let reply = try await client.send(method, path, body: body, headers: [.accept: accept, RateLimitHeader.name: "127.0.0.1"])
                    #expect(reply.status.code < 500, "\(method) \(path) Accept \(accept): \(reply.status.code) \(reply.text.prefix(200))")
                }
            }
        }
    }

    /// The hosted pages' signed-in groups: a page sends the person to sign in and come back;
    /// a JSON call is refused in the pages' envelope; with a session both go through.
    @Test func theHostedPagesSignedInGroups() async throws {
        let client = try await RouterClient.start()
        defer { client.remove() }
        for path in ["/account", "/account/passkeys", "/account/passkeys/new"] {
            let page = try await client.send(.get, path)
            #expect(page.status == .found && page.headers[.location] == "/login?return_to=\(path)", "\(path): \(page.status)")
        }
        let csrf = String(repeating: "c", count: 43)
        let headers: HTTPFields = [.cookie: "latchkey_csrf=\(csrf)", HTTPField.Name("X-CSRF-Token")!: csrf, .origin: Self.origin]
        for (method, path) in [(HTTPRequest.Method.post, "/ui/logout-everywhere"), (.delete, "/ui/password"), (.post, "/ui/passkeys/options"), (.patch, "/ui/profile")] {
            let call = try await client.send(method, path, body: "{}", headers: headers)
            #expect(call.status == .unauthorized && call.json["error"] as? String == "invalid_token", "\(method) \(path): \(call.text)")
        }
        // The CSRF check comes first: without the token, the same call is refused for that.
        let forged = try await client.send(.post, "/ui/logout-everywhere", body: "{}", headers: [.origin: Self.origin])
        #expect(forged.status == .forbidden && forged.json["reason"] as? String == "csrf_check_failed", "\(forged.text)")
    }
}
