import Foundation
import HTTPTypes
import Testing

/// Each face answers in its own envelope, from the one error-rendering middleware of its
/// route group; the status never comes from comparing strings, and nothing is a 5xx.
@Suite("Faces in process: envelopes, authentication middleware, route groups")
struct FaceEnvelopeTests {
    static let sessionToken = HTTPField.Name("X-Session-Token")!

    @Test func theAuthenticationAPIUsesAuth0sEnvelope() async throws {
        let client = try await RouterClient.start()
        defer { client.remove() }
        let notJSON = try await client.send(.post, "/passkey/challenge", body: "{")
        #expect(notJSON.status == .badRequest)
        #expect(notJSON.json["error"] as? String == "invalid_request")
        #expect(notJSON.json["error_description"] is String)

        let tooLarge = try await client.send(.post, "/passkey/challenge", body: "{\"client_id\":\"" + String(repeating: "a", count: 70_000) + "\"}")
        #expect(tooLarge.status == .contentTooLarge, "a typed reason decides the status")
        #expect(tooLarge.json["reason"] as? String == "body_too_large")

        let wrongType = try await client.send(.post, "/passkey/challenge", body: "client_id=demo", headers: [.contentType: "text/plain"])
        #expect(wrongType.status == .unsupportedMediaType)

        let unknownClient = try await client.send(.post, "/passkey/challenge", body: #"{"client_id":"nobody"}"#)
        #expect(unknownClient.status == .unauthorized)
        #expect(unknownClient.json["error"] as? String == "invalid_client")
    }

    @Test func myAccountAuthenticatesInMiddlewareAndAnswersProblemDetails() async throws {
        let client = try await RouterClient.start()
        defer { client.remove() }
        for path in ["/me/v1/authentication-methods", "/me/v1/authentication-methods/passkey%7Cabc"] {
            let reply = try await client.send(.get, path)
            #expect(reply.status == .unauthorized)
            #expect(reply.json["type"] as? String == "urn:latchkey:error:invalid_token")
            #expect(reply.headers[.wwwAuthenticate]?.hasPrefix("Bearer error=\"invalid_token\"") == true)
        }
        let forged = try await client.send(.get, "/me/v1/authentication-methods", headers: [.authorization: "Bearer a.b.c"])
        #expect(forged.status == .unauthorized)
        let userinfo = try await client.send(.get, "/userinfo", headers: [.authorization: "Basic x"])
        #expect(userinfo.status == .unauthorized)
        #expect(userinfo.json["error"] as? String == "invalid_token", "userinfo keeps the Authentication API's envelope")
    }

    @Test func kratosFlowsHaveTheContractsShape() async throws {
        let client = try await RouterClient.start()
        defer { client.remove() }
        let registration = try await client.send(.get, "/self-service/registration/api")
        #expect(registration.status == .ok)
        let nodes = ((registration.json["ui"] as? [String: Any])?["nodes"] as? [[String: Any]]) ?? []
        let names = nodes.compactMap { ($0["attributes"] as? [String: Any])?["name"] as? String }
        #expect(names == ["csrf_token", "traits.email", "passkey_create_data", "passkey_register_trigger", "passkey_register"])
        #expect(nodes.allSatisfy { ($0["attributes"] as? [String: Any])?["disabled"] as? Bool == false }, "disabled is always present")
        let groups = nodes.compactMap { $0["group"] as? String }
        #expect(groups == ["default", "default", "passkey", "passkey", "passkey"])
        #expect((registration.json["ui"] as? [String: Any])?["action"] as? String == "http://localhost:8080/self-service/registration?flow=\(registration.json["id"] as? String ?? "")")
        #expect(registration.json["refresh"] == nil, "registration flows have no refresh member")

        let login = try await client.send(.get, "/self-service/login/api")
        let loginNames = (((login.json["ui"] as? [String: Any])?["nodes"] as? [[String: Any]]) ?? []).compactMap { ($0["attributes"] as? [String: Any])?["name"] as? String }
        #expect(loginNames == ["csrf_token", "identifier", "passkey_challenge", "passkey_login", "passkey_login_trigger"])
        #expect(login.json["requested_aal"] as? String == "aal1")
        #expect(login.json["refresh"] as? Bool == false)
    }

    @Test func kratosErrorsUseItsEnvelope() async throws {
        let client = try await RouterClient.start()
        defer { client.remove() }
        let whoami = try await client.send(.get, "/sessions/whoami")
        #expect(whoami.status == .unauthorized)
        let error = try #require(whoami.json["error"] as? [String: Any])
        #expect(error["id"] as? String == "session_inactive")
        #expect(error["code"] as? Int == 401)
        #expect(error["status"] as? String == "Unauthorized")
        #expect(error["message"] is String)

        let settings = try await client.send(.get, "/self-service/settings/api", headers: [Self.sessionToken: "ory_st_" + String(repeating: "A", count: 32)])
        #expect((settings.json["error"] as? [String: Any])?["id"] as? String == "session_inactive")

        let tooLarge = try await client.send(.post, "/self-service/login?flow=00000000-0000-4000-8000-000000000000", body: "{\"a\":\"" + String(repeating: "a", count: 70_000) + "\"}")
        #expect(tooLarge.status == .notFound, "an unknown flow is refused before its body is read")
        let login = try await client.send(.get, "/self-service/login/api")
        let id = try #require(login.json["id"] as? String)
        let big = try await client.send(.post, "/self-service/login?flow=\(id)", body: "{\"a\":\"" + String(repeating: "a", count: 70_000) + "\"}")
        #expect(big.status == .contentTooLarge)
        #expect((big.json["error"] as? [String: Any])?["id"] as? String == "body_too_large")
        let form = try await client.send(.post, "/self-service/login?flow=\(id)", body: "method=password", headers: [.contentType: "application/x-www-form-urlencoded"])
        #expect(form.status == .badRequest)
        #expect((((form.json["ui"] as? [String: Any])?["messages"] as? [[String: Any]])?.first?["id"] as? Int) == 4_010_002, "form bodies are read too")
        let nested = try await client.send(.post, "/self-service/login?flow=\(id)", body: #"{"method":{"a":{"b":{"c":{"d":{"e":{}}}}}}}"#)
        #expect(nested.status.code < 500)
    }

    @Test func kratosJSONFollowsFormFormat() async throws {
        let client = try await RouterClient.start()
        defer { client.remove() }
        for body in [#"{"traits.email":"ada@example.com","method":"passkey","passkey_register":"{}"}"#, #"{"traits":{"email":"ada@example.com"},"method":"passkey","passkey_register":"{}"}"#] {
            let flow = try await client.send(.get, "/self-service/registration/api")
            let id = try #require(flow.json["id"] as? String)
            let reply = try await client.send(.post, "/self-service/registration?flow=\(id)", body: body)
            #expect(reply.status == .badRequest)
            let nodes = ((reply.json["ui"] as? [String: Any])?["nodes"] as? [[String: Any]]) ?? []
            let email = nodes.first { ($0["attributes"] as? [String: Any])?["name"] as? String == "traits.email" }
            #expect((email?["attributes"] as? [String: Any])?["value"] as? String == "ada@example.com", "\(body): the trait is read and shown again")
        }
    }

    @Test func aDisabledKratosFaceIsNotServed() async throws {
        let client = try await RouterClient.start(yaml: "faces: { kratos: { enabled: false } }")
        defer { client.remove() }
        #expect(try await client.send(.get, "/self-service/login/api").status == .notFound)
        #expect(try await client.send(.get, "/sessions/whoami").status == .notFound)
    }
}
