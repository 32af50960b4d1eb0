import Foundation
import HTTPTypes
import Testing

/// Whatever a client sends to the IDaaS face, the answer is a 4xx `ErrorInfo`; tokens
/// expire on the clock.
@Suite("IDaaS face in process: hostile input never gets a 5xx")
struct IDaaSHostileInputTests {
    // Hundreds of requests from one (unknown) address: the rate limits would answer them first.
    static let yaml = """
        limits: { ceremony_starts_per_minute: 0, ceremony_finishes_per_minute: 0, ceremony_failures_per_minute: 0 }
        faces:
          idaas:
            admin_applications:
              - { application_id: backend, name: Backend, shared_secret: a secret of sixteen+ }
        """

    static let bodies: [(String, String)] = [
        ("application/json", "null"),
        ("application/json", "[]"),
        ("application/json", "\"x\""),
        ("application/json", "{"),
        ("application/json", "{}"),
        ("application/json", #"{"applicationId": 5, "sharedSecret": [], "userId": {}}"#),
        ("application/json", #"{"applicationId": "demo", "rpId": "localhost", "fidoResponse": {"authenticatorData": "%%%", "clientDataJSON": "", "signature": ""}}"#),
        ("application/json", #"{"applicationId": "demo", "fidoResponse": {"authenticatorData": "AAAA", "clientDataJSON": "e30=", "signature": "AA==", "userHandle": "AAAA"}}"#),
        ("application/json", #"{"applicationId": "demo", "fidoResponse": {"authenticatorData": "AAAA", "clientDataJSON": "e30", "signature": "AA", "credentialId": ""}}"#),
        ("application/json", #"{"applicationId": "demo", "cancel": true}"#),
        ("application/json", #"{"attestationObject": "oA==", "clientDataJSON": "eyJjaGFsbGVuZ2UiOiJBQUFBIn0=", "name": "x"}"#),
        ("application/json", #"{"attestationObject": "", "clientDataJson": "", "name": ""}"#),
        ("application/json", #"{"name": "", "state": "ACTIVE"}"#),
        ("application/json", #"{"name": null, "state": null}"#),
        ("application/json", #"{"userId": "\u0000@example.com", "applicationId": "\u0000"}"#),
        ("application/json", "{\"userId\": \"" + String(repeating: "a", count: 5000) + "@example.com\", \"applicationId\": \"demo\"}"),
        ("application/json", "{\"applicationId\": \"" + String(repeating: "a", count: 70_000) + "\"}"),
        ("application/x-www-form-urlencoded", "applicationId=demo"),
        ("text/plain", "{}"),
        ("", ""),
    ]

    static let routes: [(HTTPRequest.Method, String)] = [
        (.post, "/api/web/v1/adminapi/authenticate"),
        (.post, "/api/web/v3/users/userid"),
        (.get, "/api/web/v1/fidotokens/challenge/00000000-0000-4000-8000-000000000000"),
        (.post, "/api/web/v1/fidotokens/complete/00000000-0000-4000-8000-000000000000"),
        (.put, "/api/web/v1/fidotokens/00000000-0000-4000-8000-000000000000"),
        (.delete, "/api/web/v1/fidotokens/x"),
        (.get, "/api/web/v1/self/fidotokens"),
        (.post, "/api/web/v1/self/fidotokens"),
        (.put, "/api/web/v1/self/fidotokens/x"),
        (.post, "/api/web/v2/authentication/users/authenticate/PASSKEY"),
        (.post, "/api/web/v2/authentication/users/authenticate/FIDO"),
        (.post, "/api/web/v2/authentication/users/authenticate/%00"),
        (.post, "/api/web/v1/authentication/passkey"),
        (.post, "/api/web/v1/authentication/users/authenticate/PASSKEY/complete"),
        (.post, "/api/web/v1/authentication/logout"),
    ]

    static func adminToken(_ client: RouterClient) async throws -> String {
        let reply = try await client.send(.post, "/api/web/v1/adminapi/authenticate", body: #"{"applicationId": "backend", "sharedSecret": "a secret of sixteen+"}"#)
        #expect(reply.status == .ok, "\(reply.text)")
        return try #require(reply.json["authToken"] as? String)
    }

    @Test func everyRouteAnswersHostileInputWithErrorInfo() async throws {
        let client = try await RouterClient.start(yaml: Self.yaml)
        defer { client.remove() }
        let admin = try await Self.adminToken(client)
        for authorization in [nil, admin, "garbage", "Bearer " + String(repeating: "x", count: 5000)] {
            for (method, path) in Self.routes {
                for (contentType, body) in Self.bodies {
                    var headers: HTTPFields = contentType.isEmpty ? [:] : [.contentType: contentType]
                    if let authorization { headers[.authorization] = authorization }
                    let reply = try await client.send(method, path, body: body, headers: headers)
                    let where_ = "\(method) \(path) \(authorization?.prefix(12) ?? "-") \(body.prefix(50))"
                    // A sign-in challenge for a real application ignores members it does not use.
                    if path.hasSuffix("/PASSKEY") || path.hasSuffix("/passkey"), body.contains(#""applicationId": "demo""#), reply.status == .ok {
                        #expect(reply.json["token"] is String && reply.json["fidoChallenge"] is [String: Any], "\(where_)")
                        continue
                    }
                    #expect(reply.status.code >= 400 && reply.status.code < 500, "\(where_) → \(reply.status.code) \(reply.text.prefix(200))")
                    #expect(reply.json["errorCode"] is String && reply.json["errorMessage"] is String && reply.json["parameters"] is [Any], "ErrorInfo: \(where_) \(reply.text.prefix(200))")
                    #expect(!reply.text.contains("a secret of sixteen+"), "no secret echoed")
                }
            }
        }
        // The oversized body is a 413 in ErrorInfo.
        let large = try await client.send(.post, "/api/web/v1/adminapi/authenticate", body: Self.bodies.first { $0.1.count > 60_000 }!.1)
        #expect(large.status == .contentTooLarge && large.json["errorCode"] as? String == "body_too_large")
    }

    /// A path under /api/web that no route has, or a method its route does not take, is an
    /// ErrorInfo 404 too; paths elsewhere keep the router's own answer.
    @Test func unroutedPathsAnswerErrorInfo() async throws {
        let client = try await RouterClient.start(yaml: Self.yaml)
        defer { client.remove() }
        let unrouted: [(HTTPRequest.Method, String)] = [
            (.get, "/api/web/v1/adminapi/authenticate"), (.delete, "/api/web/v1/authentication/logout"), (.get, "/api/web/nothing/here"),
            (.post, "/api/web/v9/users/userid"), (.patch, "/api/web/v1/fidotokens/x"), (.get, "/api/web/"),
        ]
        for (method, path) in unrouted {
            let reply = try await client.send(method, path)
            #expect(reply.status == .notFound && reply.json["errorCode"] as? String == "not_found", "\(method) \(path) → \(reply.status.code) \(reply.text)")
        }
        let elsewhere = try await client.send(.get, "/api/webhooks")
        #expect(elsewhere.status == .notFound && elsewhere.json["errorCode"] == nil)
    }

    @Test func administrationTokensExpire() async throws {
        let client = try await RouterClient.start(yaml: Self.yaml)
        defer { client.remove() }
        let admin = try await Self.adminToken(client)
        let lookUp = #"{"userId": "nobody@example.com"}"#
        let live = try await client.send(.post, "/api/web/v3/users/userid", body: lookUp, headers: [.authorization: admin])
        #expect(live.status == .notFound && live.json["errorCode"] as? String == "user_not_found", "a live token reaches the handler")
        client.clock.advance(by: 3_599)
        #expect(try await client.send(.post, "/api/web/v3/users/userid", body: lookUp, headers: [.authorization: admin]).status == .notFound)
        client.clock.advance(by: 2)
        let expired = try await client.send(.post, "/api/web/v3/users/userid", body: lookUp, headers: [.authorization: admin])
        #expect(expired.status == .unauthorized && expired.json["errorCode"] as? String == "invalid_token")
        #expect(expired.headers[.wwwAuthenticate] == "Bearer")
    }

    @Test func transactionsExpireWithTheirCeremony() async throws {
        let client = try await RouterClient.start(yaml: Self.yaml)
        defer { client.remove() }
        let started = try await client.send(.post, "/api/web/v2/authentication/users/authenticate/PASSKEY", body: #"{"applicationId": "demo", "rpId": "localhost"}"#)
        #expect(started.status == .ok, "\(started.text)")
        let token = try #require(started.json["token"] as? String)
        let timeout = try #require((started.json["fidoChallenge"] as? [String: Any])?["timeoutMillis"] as? Int)
        #expect(started.json["expires"] as? Int == (started.json["time"] as? Int ?? 0) + timeout)
        client.clock.advance(by: Double(timeout) / 1000 + 1)
        let body = #"{"applicationId": "demo", "fidoResponse": {"authenticatorData": "AAAA", "clientDataJSON": "e30", "signature": "AA", "credentialId": "AAAA"}}"#
        let late = try await client.send(.post, "/api/web/v1/authentication/users/authenticate/PASSKEY/complete", body: body, headers: [.authorization: token])
        #expect(late.status == .unauthorized && late.json["errorCode"] as? String == "transaction_invalid", "\(late.text)")
    }
}
