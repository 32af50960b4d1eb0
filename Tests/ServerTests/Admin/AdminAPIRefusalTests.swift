import Foundation
import LatchkeyClient
import Testing

/// An Admin API call that is refused changes nothing: a refused `Accept` is answered `406`
/// before the operation runs; a forwarded address that cannot be read is nobody's, not the
/// proxy's; an enrollment link needs a scope of its own; and the Admin API's own listener
/// is bounded as the main one is.
@Suite("Admin API refusals")
struct AdminAPIRefusalTests {
    @Test func aRefusedAcceptChangesNothing() async throws {
        let admin = try await AdminAPIFixture.start()
        defer { admin.stop() }
        let key = try await admin.key("users:write,sessions:write,enrollment:write,events:read").key
        var ada = PasskeyUser(admin.server)
        let tokens = try await ada.signUp(SignupProfile(email: "ada@example.com"))
        let adaID = try #require(claims(of: tokens.accessToken)["sub"] as? String)

        expectProblem(try await admin.call("POST", "/users", key: key, json: ["email": "new@example.com"], headers: ["Accept": "text/html"]), 406, "not_acceptable")
        let found = try await admin.call("GET", "/users?identifier=new@example.com", key: key)
        #expect((found.json["users"] as? [Any])?.isEmpty == true, "no user was made: \(found.text)")

        expectProblem(try await admin.call("DELETE", "/users/\(adaID)/sessions", key: key, headers: ["Accept": "application/xml"]), 406, "not_acceptable")
        #expect(try await ada.client.userInfo(accessToken: tokens.accessToken).subject == adaID, "the sessions were not revoked")

        expectProblem(try await admin.call("POST", "/users/\(adaID)/enrollment-links", key: key, headers: ["Accept": "application/json;q=0"]), 406, "not_acceptable")
        let events = try await admin.call("GET", "/events?user_id=\(adaID)&type=enrollment_link_created", key: key)
        #expect((events.json["events"] as? [Any])?.isEmpty == true, "no link was made: \(events.text)")

        // What is acceptable is served; the most specific range decides.
        for accept in ["application/json", "application/*", "*/*", "text/html, application/json;q=0.5", "*/*;q=0.1, text/html", "application/json; charset=utf-8"] {
            #expect(try await admin.call("GET", "/users", key: key, headers: ["Accept": accept]).status == 200, "\(accept)")
        }
        expectProblem(try await admin.call("GET", "/users", key: key, headers: ["Accept": "*/*, application/json;q=0"]), 406, "not_acceptable")

        // The export is NDJSON: with no Accept, */* or its own type; anything else is refused.
        for accept in [nil, "*/*", "application/x-ndjson"] as [String?] {
            let export = try await admin.call("GET", "/events/export", key: key, headers: accept.map { ["Accept": $0] } ?? [:])
            #expect(export.status == 200 && export.header("Content-Type")?.hasPrefix("application/x-ndjson") == true, "\(String(describing: accept)): \(export.status)")
        }
        expectProblem(try await admin.call("GET", "/events/export", key: key, headers: ["Accept": "application/json"]), 406, "not_acceptable")

        // No operation answers a 5xx to a bad Accept, whatever the path's parameters.
        let document = try await admin.http.send("GET", "/admin/v1/openapi.json", contentType: nil).json
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        let everything = try await admin.key(
            "users:write,credentials:write,sessions:write,events:read,webhooks:write,clients:read,enrollment:write", name: "everything"
        ).key
        var calls = 0
        for (template, operations) in paths.sorted(by: { $0.key < $1.key }) {
            let path = template.replacingOccurrences(of: #"\{[^}]+\}"#, with: "nobody", options: .regularExpression)
            for method in operations.keys.map({ $0.uppercased() }).sorted() {
                for accept in ["text/html", "application/xml", "application/json;q=0", "garbage", "*/*;q=2", "application/json;q=0.0001", ";;;", "text/*, image/png"] {
                    let reply = try await admin.call(method, path, key: everything, json: method == "GET" || method == "DELETE" ? nil : [:], headers: ["Accept": accept])
                    #expect(reply.status < 500, "\(method) \(path) with Accept \(accept): \(reply.status) \(reply.text.prefix(200))")
                    calls += 1
                }
            }
        }
        #expect(calls > 100)
    }

    @Test func aForwardedAddressThatCannotBeReadIsNobodysAndEnrollmentLinksNeedTheirOwnScope() async throws {
        let admin = try await AdminAPIFixture.start(process: true)
        defer { admin.stop() }
        let key = try await admin.key("users:write,credentials:write").key
        for forwarded in ["203.0.113.9, not-an-address", "not-an-address", "127.0.0.1, garbage, 127.0.0.1", "203.0.113.9:5678", "[2001:db8::1]:443"] {
            expectProblem(try await admin.call("GET", "/users", key: key, headers: ["X-Forwarded-For": forwarded]), 403, "address_not_allowed")
        }
        for loopback in ["127.0.0.1", "127.0.0.1:5678", "[::1]:443"] {
            #expect(try await admin.call("GET", "/users", key: key, headers: ["X-Forwarded-For": loopback]).status == 200, "a loopback client behind the proxy: \(loopback)")
        }

        // credentials:write no longer makes enrollment links; enrollment:write does.
        let made = try await admin.call("POST", "/users", key: key, json: ["email": "grace@example.com"])
        let id = try #require(made.json["id"] as? String)
        expectProblem(try await admin.call("POST", "/users/\(id)/enrollment-links", key: key), 403, "insufficient_scope")
        let enrolling = try await admin.key("enrollment:write", name: "enrolling").key
        #expect(try await admin.call("POST", "/users/\(id)/enrollment-links", key: enrolling).status == 201)
        expectProblem(try await admin.call("GET", "/users/\(id)", key: enrolling), 403, "insufficient_scope")
        let refused = try await admin.cli(["keys", "create", "--name", "odd", "--scopes", "enrollment:read"])
        #expect(refused.status != 0 && refused.output.contains("enrollment:write"), "\(refused.output)")
    }

    @Test func theAdminListenerClosesAnIdleConnection() async throws {
        let port = try freePort()
        let configuration = AdminAPIFixture.configuration.replacingOccurrences(
            of: "trusted_proxies: [127.0.0.1/32] }", with: "trusted_proxies: [127.0.0.1/32], idle_timeout: 1s }"
        ) + "\nadmin: { host: 127.0.0.1, port: \(port) }\n"
        let admin = try await AdminAPIFixture.start(configuration: configuration, process: true)
        defer { admin.stop() }
        try await #require(admin.process).waitForOutput("Admin API on http://127.0.0.1:\(port)/admin/v1/")
        let socket = try RawSocket(port: port)
        #expect(socket.send("GET /admin/v1/users HTTP/1.1\r\nHost: 127.0.0.1\r\n"), "a head that never ends")
        let answer = await socket.read(for: 6)
        #expect(answer.closed, "the listener closed the silent connection: \(answer.text)")
    }
}
