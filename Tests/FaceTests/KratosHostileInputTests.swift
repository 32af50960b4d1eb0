import Foundation
import HTTPTypes
import Testing

/// Whatever a client sends to the Kratos face, the answer is a 4xx in Kratos's format.
@Suite("Kratos face in process: hostile input never gets a 5xx")
struct KratosHostileInputTests {
    static let bodies: [(String, String)] = [
        ("application/json", "null"),
        ("application/json", "[]"),
        ("application/json", "\"passkey\""),
        ("application/json", "{"),
        ("application/json", #"{"method": 5, "passkey_login": true}"#),
        ("application/json", #"{"method": "passkey", "passkey_login": {"id": "x"}}"#),
        ("application/json", #"{"method": "passkey", "passkey_register": "{\"id\":\"a+b/\",\"type\":\"public-key\"}", "traits": []}"#),
        ("application/json", #"{"method": "passkey", "passkey_register": "{\"id\":\"\",\"type\":\"public-key\",\"rawId\":\"\",\"response\":{\"attestationObject\":\"\",\"clientDataJSON\":\"\"}}", "traits": {"email": "a@b.co"}}"#),
        ("application/json", #"{"method": "passkey", "passkey_login": "{\"id\":\"AAAA\",\"rawId\":\"AAAA\",\"type\":\"public-key\",\"response\":{\"authenticatorData\":\"\",\"clientDataJSON\":\"\",\"signature\":\"\",\"userHandle\":\"AAAA\"}}"}"#),
        ("application/json", #"{"method": "passkey", "traits": {"email": "\u0000@example.com"}, "passkey_register": "{}"}"#),
        ("application/json", #"{"method": "passkey", "passkey_remove": "zz", "passkey_settings_register": "[]"}"#),
        ("application/json", "{\"traits.email\": \"" + String(repeating: "a", count: 5000) + "@example.com\", \"method\": \"passkey\", \"passkey_register\": \"{}\"}"),
        ("application/x-www-form-urlencoded", "method=passkey&passkey_login=%ZZ"),
        ("application/x-www-form-urlencoded", "method=passkey&method=passkey"),
        ("application/x-www-form-urlencoded", "method=passkey&passkey_register=%7B%7D&traits.email=a%40b.co"),
        ("text/plain", "method=passkey"),
        ("", ""),
    ]

    @Test func submissionsNeverFailWithA5xx() async throws {
        let client = try await RouterClient.start()
        defer { client.remove() }
        for kind in ["registration", "login"] {
            for (contentType, body) in Self.bodies {
                let flow = try await client.send(.get, "/self-service/\(kind)/api")
                let id = try #require(flow.json["id"] as? String)
                let headers: HTTPFields = contentType.isEmpty ? [:] : [.contentType: contentType]
                let reply = try await client.send(.post, "/self-service/\(kind)?flow=\(id)", body: body, headers: headers)
                #expect(reply.status.code >= 400 && reply.status.code < 500, "\(kind) \(contentType) \(body.prefix(60)) → \(reply.status.code) \(reply.text.prefix(200))")
                #expect(reply.json["error"] != nil || reply.json["ui"] != nil, "Kratos's format: \(reply.text.prefix(200))")
            }
        }
        for path in ["/self-service/login?flow=", "/self-service/login?flow=%00", "/self-service/registration?flow=" + String(repeating: "f", count: 4000), "/self-service/settings?flow=x"] {
            let reply = try await client.send(.post, path, body: "{}")
            #expect(reply.status.code >= 400 && reply.status.code < 500, "\(path.prefix(60)) → \(reply.status.code)")
        }
        for body in ["", "{}", #"{"session_token": 5}"#, #"{"session_token": ""}"#, #"{"session_token": "ory_st_x"}"#] {
            let reply = try await client.send(.delete, "/self-service/logout/api", body: body)
            #expect(reply.status.code >= 400 && reply.status.code < 500, "logout \(body) → \(reply.status.code)")
        }
        for query in ["", "?id=", "?id=%00", "?id=00000000-0000-4000-8000-000000000000"] {
            let reply = try await client.send(.get, "/self-service/login/flows" + query)
            #expect(reply.status == .notFound, "flows\(query) → \(reply.status.code)")
        }
    }
}
