import Authenticator
import Foundation
import LatchkeyClient
import Testing
import WebAuthn

/// Client extensions an application asks for through the Authentication API (PRF,
/// largeBlob, credProtect) reach the options untouched and in their place; their outputs
/// go back to the app, and the server keeps nothing of them.
@Suite("Client extensions: PRF, largeBlob, credProtect")
struct ClientExtensionsTests {
    @Test func prfInputsReachTheOptionsAndItsOutputsAreNotKept() async throws {
        let directory = try TemporaryDirectory()
        let server = try await RouterServer.start(yaml: PasskeyPolicyTests.configuration, in: directory)
        defer { server.stop() }
        let client = LatchkeyAPIClient(baseURL: server.baseURL, clientID: "demo", transport: server.transport)
        let salt = Base64URLBytes(Array("a salt the app derives its key from".utf8))

        let requested = ExtensionInputs(
            prf: PRFInputs(eval: PRFValues(first: salt)), largeBlob: LargeBlobInputs(support: "preferred"),
            credentialProtectionPolicy: "userVerificationRequired", enforceCredentialProtectionPolicy: false
        )
        let (creation, signupSession) = try await client.signupChallenge(profile: .init(email: "prf@example.com"), extensions: requested)
        #expect(creation.extensions?.prf?.eval?.first == salt && creation.extensions?.largeBlob?.support == "preferred")
        #expect(creation.extensions?.credentialProtectionPolicy == "userVerificationRequired" && creation.extensions?.credProps == true, "credProps stays asked for")
        var person = PasskeyUser(server)
        var (registration, credential) = try person.authenticator.makeCredential(creation, origin: person.origin)
        registration.clientExtensionResults.prf = PRFOutputs(enabled: true)
        _ = try await client.finishSignup(authSession: signupSession, response: registration, scope: "openid", audience: nil)
        person.credentials = [credential]

        // At sign-in, per credential, and the outputs come back in the response: the server
        // verifies the assertion and keeps nothing of them.
        let secret = Array("thirty-two bytes of PRF output!!".utf8)
        let byCredential = ExtensionInputs(prf: PRFInputs(evalByCredential: [Base64URL.encode(credential.credentialID): PRFValues(first: salt)]))
        let (request, loginSession) = try await client.loginChallenge(username: nil, extensions: byCredential)
        #expect(request.extensions?.prf?.evalByCredential?[Base64URL.encode(credential.credentialID)]?.first == salt)
        #expect(request.extensions?.credProps == nil)
        var assertion = try person.authenticator.getAssertion(request, origin: person.origin, credential: &person.credentials[0])
        assertion.clientExtensionResults.prf = PRFOutputs(results: PRFValues(first: Base64URLBytes(secret)))
        let tokens = try await client.finishLogin(authSession: loginSession, response: assertion, scope: "openid", audience: nil)
        #expect(tokens.idToken != nil)
        server.stop()
        var stored = Data()
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path("")) where name.hasPrefix("latchkey.sqlite") {
            stored.append(try Data(contentsOf: URL(fileURLWithPath: directory.path(name))))
        }
        #expect(!stored.isEmpty)
        for form in [Data(secret), Data(Base64URL.encode(secret).utf8), Data(Data(secret).base64EncodedString().utf8)] {
            #expect(stored.range(of: form) == nil, "the PRF output is nowhere in the database")
        }
    }

    @Test(arguments: [
        ("signup", #"{"prf": {"evalByCredential": {"AAAAAAAAAAAAAAAAAAAAAA": {"first": "c2FsdA"}}}}"#),
        ("signup", #"{"largeBlob": {"read": true}}"#),
        ("signup", #"{"credentialProtectionPolicy": "always"}"#),
        ("login", #"{"credentialProtectionPolicy": "userVerificationRequired"}"#),
        ("login", #"{"largeBlob": {"support": "required"}}"#),
        ("login", #"{"prf": {}}"#),
        ("login", #"{"prf": {"eval": {"first": ""}}}"#),
    ])
    func misplacedExtensionsAreRefused(ceremony: String, extensions: String) async throws {
        let directory = try TemporaryDirectory()
        let server = try await RouterServer.start(yaml: PasskeyPolicyTests.configuration, in: directory)
        defer { server.stop() }
        let path = ceremony == "signup" ? "/passkey/register" : "/passkey/challenge"
        let profile = ceremony == "signup" ? #", "user_profile": {"email": "x@example.com"}"# : ""
        let reply = try await RawHTTP(server).send(
            "POST", path, body: Data(#"{"client_id": "demo", "extensions": \#(extensions)\#(profile)}"#.utf8), contentType: "application/json"
        )
        #expect(reply.status == 400 && reply.json["error"] as? String == "invalid_request", "\(ceremony) \(extensions): \(reply.text)")
        #expect((reply.json["error_description"] as? String)?.hasPrefix("extensions:") == true, "\(reply.text)")
    }
}
