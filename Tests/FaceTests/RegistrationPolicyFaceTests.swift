import Authenticator
import Foundation
import HTTPTypes
import Testing
import WebAuthn

/// The registration policy is enforced in the one pipeline, so every face refuses the same
/// credential and names the rule in its own envelope; and no face looks a passkey up by an
/// empty credential ID.
@Suite("Registration policy and credential IDs in every face")
struct RegistrationPolicyFaceTests {
    static let yaml = KratosBrowserFlowTests.yaml + """

        passkeys: { require_device_bound: true }
        faces:
          idaas:
            admin_applications:
              - { application_id: backend, name: Backend, shared_secret: a secret of sixteen+ }
        """

    static let webauthnGrant = "urn:okta:params:oauth:grant-type:webauthn"

    /// Options and `auth_session` of an Auth0-shaped sign-up.
    func signupOptions(_ client: RouterClient, email: String) async throws -> (PublicKeyCredentialCreationOptionsJSON, String) {
        let reply = try await client.send(.post, "/passkey/register", body: #"{"client_id":"demo","user_profile":{"email":"\#(email)"}}"#)
        #expect(reply.status == .ok, "\(reply.text)")
        let options = try JSONDecoder().decode(
            PublicKeyCredentialCreationOptionsJSON.self, from: JSONSerialization.data(withJSONObject: try #require(reply.json["authn_params_public_key"]))
        )
        return (options, try #require(reply.json["auth_session"] as? String))
    }

    func finish(_ client: RouterClient, authSession: String, response: some Encodable) async throws -> RouterClient.Reply {
        let body: [String: Any] = [
            "grant_type": Self.webauthnGrant, "client_id": "demo", "auth_session": authSession,
            "authn_response": try JSONSerialization.jsonObject(with: JSONEncoder().encode(response)),
        ]
        return try await client.send(.post, "/oauth/token", body: String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self))
    }

    /// An IDaaS administrator enrolls a passkey made by `authenticator` for the existing
    /// user `email`; the reply of `POST /fidotokens/complete/{uuid}`.
    func idaasEnroll(_ client: RouterClient, email: String, with authenticator: SoftwareAuthenticator) async throws -> RouterClient.Reply {
        let admin = try await IDaaSHostileInputTests.adminToken(client)
        let user = try await client.send(.post, "/api/web/v3/users/userid", body: #"{"userId":"\#(email)"}"#, headers: [.authorization: admin])
        let userUUID = try #require(user.json["id"] as? String, "\(user.text)")
        let challenge = try await client.send(.get, "/api/web/v1/fidotokens/challenge/\(userUUID)", headers: [.authorization: admin])
        #expect(challenge.status == .ok, "\(challenge.text)")
        let options = PublicKeyCredentialCreationOptionsJSON(
            rp: .init(id: "localhost", name: "localhost"),
            user: .init(id: Base64URLBytes(try #require(Base64URL.decode(challenge.json["userId"] as? String ?? ""))), name: email, displayName: email),
            challenge: Base64URLBytes(try #require(Base64URL.decode(challenge.json["challenge"] as? String ?? ""))),
            pubKeyCredParams: [.init(alg: .es256)]
        )
        let (registration, _) = try authenticator.makeCredential(options, origin: "http://localhost:8080")
        return try await client.send(.post, "/api/web/v1/fidotokens/complete/\(userUUID)", body: String(decoding: try JSONSerialization.data(withJSONObject: [
            "attestationObject": Base64URL.encode(registration.response.attestationObject.bytes),
            "clientDataJSON": Base64URL.encode(registration.response.clientDataJSON.bytes), "name": "Key",
        ]), as: UTF8.self), headers: [.authorization: admin])
    }

    @Test func aSyncedPasskeyIsRefusedByEveryFaceNamingTheRule() async throws {
        let client = try await RouterClient.start(yaml: Self.yaml)
        defer { client.remove() }
        let synced = SoftwareAuthenticator(createsSyncedCredentials: true)
        let deviceBound = SoftwareAuthenticator()

        // The Auth0-shaped API: an OAuth error with the rule's reason.
        let (options, authSession) = try await signupOptions(client, email: "ada@example.com")
        let refused = try await finish(client, authSession: authSession, response: try synced.makeCredential(options, origin: "http://localhost:8080").0)
        #expect(refused.json["reason"] as? String == "device_bound_required", "\(refused.text)")
        #expect((refused.json["error_description"] as? String)?.contains("require_device_bound") == true)
        #expect(refused.status.code / 100 == 4)

        // A device-bound passkey is accepted, which gives the IDaaS face a user to enroll.
        let (again, session) = try await signupOptions(client, email: "ada@example.com")
        let accepted = try await finish(client, authSession: session, response: try deviceBound.makeCredential(again, origin: "http://localhost:8080").0)
        #expect(accepted.status == .ok, "\(accepted.text)")

        // Kratos: the flow comes back with the reason in its messages.
        var browser = KratosBrowserFlowTests.Browser(client: client)
        browser.authenticator = synced
        let flow = try await browser.start("registration")
        let kratos = try await browser.send(.post, KratosBrowserFlowTests.Browser.action(flow), form: try browser.signUp(flow, email: "bob@example.com"), headers: [.accept: "application/json"])
        #expect(kratos.status.code / 100 == 4)
        #expect(kratos.text.contains("require_device_bound"), "\(kratos.text.prefix(600))")

        // IDaaS: an administrator enrolls a passkey for Ada; ErrorInfo names the check.
        let complete = try await idaasEnroll(client, email: "ada@example.com", with: synced)
        #expect(complete.status.code / 100 == 4, "\(complete.text)")
        #expect((complete.json["errorMessage"] as? String)?.contains("require_device_bound") == true, "\(complete.text)")
        #expect(complete.text.contains("device_bound_required"), "\(complete.text)")
    }

    /// An empty credential ID names no passkey: the login is refused with the credential-ID
    /// check before any lookup in the Auth0-shaped API, and as an unreadable response in
    /// Kratos.
    @Test func anEmptyCredentialIDNeverSignsIn() async throws {
        let client = try await RouterClient.start(yaml: KratosBrowserFlowTests.yaml)
        defer { client.remove() }
        let authenticator = SoftwareAuthenticator()
        let (options, session) = try await signupOptions(client, email: "ada@example.com")
        let (registration, created) = try authenticator.makeCredential(options, origin: "http://localhost:8080")
        var credential = created
        #expect(try await finish(client, authSession: session, response: registration).status == .ok)

        let start = try await client.send(.post, "/passkey/challenge", body: #"{"client_id":"demo"}"#)
        let request = try JSONDecoder().decode(
            PublicKeyCredentialRequestOptionsJSON.self, from: JSONSerialization.data(withJSONObject: try #require(start.json["authn_params_public_key"]))
        )
        var assertion = try authenticator.getAssertion(request, origin: "http://localhost:8080", credential: &credential)
        assertion.id = ""
        assertion.rawId = Base64URLBytes([])
        let refused = try await finish(client, authSession: try #require(start.json["auth_session"] as? String), response: assertion)
        #expect(refused.json["reason"] as? String == "credential_id_length", "\(refused.text)")
        #expect((refused.json["error_description"] as? String)?.contains("empty") == true, "\(refused.text)")

        var browser = KratosBrowserFlowTests.Browser(client: client)
        let flow = try await browser.start("login")
        var form = [("csrf_token", KratosBrowserFlowTests.Browser.csrf(flow)), ("identifier", "")]
        let data = try #require(KratosBrowserFlowTests.Browser.node(flow, "passkey_challenge")?["value"] as? String)
        let wrapper = try #require(try JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any])
        let kratosRequest = try JSONDecoder().decode(PublicKeyCredentialRequestOptionsJSON.self, from: JSONSerialization.data(withJSONObject: try #require(wrapper["publicKey"])))
        var kratosAssertion = try authenticator.getAssertion(kratosRequest, origin: KratosBrowserFlowTests.ui, credential: &credential)
        kratosAssertion.id = ""
        kratosAssertion.rawId = Base64URLBytes([])
        form.append(("passkey_login", try KratosBrowserFlowTests.Browser.json(kratosAssertion)))
        let kratos = try await browser.send(.post, KratosBrowserFlowTests.Browser.action(flow), form: form, headers: [.accept: "application/json"])
        #expect(kratos.status.code / 100 == 4, "\(kratos.text.prefix(400))")
        // Kratos's reader refuses the empty ID before the pipeline sees it.
        #expect(kratos.text.contains("Unable to parse WebAuthn response"), "\(kratos.text.prefix(600))")
        #expect(kratos.json["session"] == nil && browser.cookies["ory_kratos_session"] == nil)
    }

    /// A credential ID shorter than 16 bytes is refused for its length, with the code of its
    /// own (`credential_id_length`, not `credential_id_mismatch`: nothing mismatched), in
    /// every face's envelope.
    @Test func aShortCredentialIDIsRefusedForItsLengthByEveryFace() async throws {
        let client = try await RouterClient.start(yaml: Self.yaml)
        defer { client.remove() }
        var short = SoftwareAuthenticator()
        short.credentialIDLength = 8
        let code = "credential_id_length"

        // The Auth0-shaped API: `reason`.
        let (options, authSession) = try await signupOptions(client, email: "ada@example.com")
        let refused = try await finish(client, authSession: authSession, response: try short.makeCredential(options, origin: "http://localhost:8080").0)
        #expect(refused.status.code / 100 == 4 && refused.json["reason"] as? String == code, "\(refused.text)")
        #expect((refused.json["error_description"] as? String)?.contains("at least 16 bytes") == true, "\(refused.text)")
        let (again, session) = try await signupOptions(client, email: "ada@example.com")
        #expect(try await finish(client, authSession: session, response: try SoftwareAuthenticator().makeCredential(again, origin: "http://localhost:8080").0).status == .ok)

        // Kratos: the flow's message carries the code in its context.
        var browser = KratosBrowserFlowTests.Browser(client: client)
        browser.authenticator = short
        let flow = try await browser.start("registration")
        let kratos = try await browser.send(.post, KratosBrowserFlowTests.Browser.action(flow), form: try browser.signUp(flow, email: "bob@example.com"), headers: [.accept: "application/json"])
        #expect(kratos.status == .badRequest, "\(kratos.text.prefix(400))")
        let messages = ((kratos.json["ui"] as? [String: Any])?["messages"] as? [[String: Any]]) ?? []
        #expect(messages.contains { ($0["context"] as? [String: Any])?["check"] as? String == code }, "\(kratos.text.prefix(800))")

        // IDaaS: ErrorInfo's `check` parameter.
        let complete = try await idaasEnroll(client, email: "ada@example.com", with: short)
        #expect(complete.status == .badRequest && complete.json["errorCode"] as? String == "fido_registration_failed", "\(complete.text)")
        let parameters = complete.json["parameters"] as? [[String: Any]] ?? []
        #expect(parameters.contains { $0["name"] as? String == "check" && $0["value"] as? String == code }, "\(complete.text)")

        // The hosted pages' JSON calls: `reason`.
        let csrf = String(repeating: "c", count: 43)
        let headers: HTTPFields = [.cookie: "latchkey_csrf=\(csrf)", HTTPField.Name("X-CSRF-Token")!: csrf, .origin: "http://localhost:8080"]
        let start = try await client.send(.post, "/ui/signup", body: #"{"email":"cy@example.com"}"#, headers: headers)
        #expect(start.status == .ok, "\(start.text)")
        let hostedOptions = try JSONDecoder().decode(
            PublicKeyCredentialCreationOptionsJSON.self, from: JSONSerialization.data(withJSONObject: try #require(start.json["options"]))
        )
        let response = try JSONSerialization.jsonObject(with: JSONEncoder().encode(PublicKeyCredentialResponse.registration(try short.makeCredential(hostedOptions, origin: "http://localhost:8080").0)))
        let body = try JSONSerialization.data(withJSONObject: ["auth_session": try #require(start.json["auth_session"] as? String), "response": response])
        let hosted = try await client.send(.post, "/ui/session", body: String(decoding: body, as: UTF8.self), headers: headers)
        #expect(hosted.status.code / 100 == 4 && hosted.json["reason"] as? String == code, "\(hosted.text)")
    }
}
