import Foundation
import Testing

/// Kratos's session management as an app drives it: the identity's other sessions listed
/// (paged, with Kratos's headers), one ended by its ID, the rest ended at once; every answer,
/// refusals included, in Kratos's shapes, and every ID a version 4 UUID.
@Suite("Kratos: session management")
struct KratosSessionTests {
    static func sessions(_ reply: RawHTTP.Reply) -> [[String: Any]] {
        (try? JSONSerialization.jsonObject(with: reply.body)) as? [[String: Any]] ?? []
    }

    static func isVersion4(_ id: String?) -> Bool {
        guard let id, id.count == 36 else { return false }
        return Array(id)[14] == "4" && "89ab".contains(Array(id)[19])
    }

    @Test func listEndOneAndEndTheRest() async throws {
        let running = try await KratosFaceTests.start()
        defer { running.server.stop() }
        var app = KratosSampleApp(server: running.url, platform: .iOS)
        let first = try #require(try await app.signUp(email: "kim@example.com").json["session_token"] as? String)
        var tokens: [String] = []
        for _ in 0..<2 { tokens.append(try #require(try await app.signIn().json["session_token"] as? String)) }
        let http = running.http
        func call(_ method: String, _ path: String, _ token: String?) async throws -> RawHTTP.Reply {
            try await http.send(method, path, contentType: nil, headers: token.map { ["X-Session-Token": $0] } ?? [:])
        }

        let listed = try await call("GET", "/sessions", first)
        let others = Self.sessions(listed)
        #expect(listed.status == 200 && others.count == 2 && listed.header("X-Total-Count") == "2", "\(listed.text)")
        #expect(listed.header("Link")?.contains(#"rel="first""#) == true, "\(String(describing: listed.header("Link")))")
        #expect(others.allSatisfy { $0["active"] as? Bool == true && Self.isVersion4($0["id"] as? String) && ($0["identity"] as? [String: Any])?["id"] is String })
        let whoami = try await call("GET", "/sessions/whoami", first).json
        #expect(Self.isVersion4(whoami["id"] as? String) && !others.contains { $0["id"] as? String == whoami["id"] as? String }, "the current one is not listed")

        let paged = try await call("GET", "/sessions?per_page=1", first)
        #expect(Self.sessions(paged).count == 1 && paged.header("Link")?.contains(#"rel="next""#) == true, "\(String(describing: paged.header("Link")))")
        // Page numbers and token offsets far past the list are empty pages, not overflows.
        for query in ["page=9223372036854775807", "page=9223372036854775807&per_page=1000", "page_token=eyJvZmZzZXQiOiI5MjIzMzcyMDM2ODU0Nzc1ODA3IiwidiI6Mn0&page_size=500"] {
            let far = try await call("GET", "/sessions?\(query)", first)
            #expect(far.status == 200 && Self.sessions(far).isEmpty, "\(query): \(far.status) \(far.text.prefix(120))")
        }
        let secondPage = try await call("GET", "/sessions?per_page=1&page=1", first)
        #expect(Self.sessions(secondPage).count == 1 && Self.sessions(secondPage).first?["id"] as? String != Self.sessions(paged).first?["id"] as? String)

        // One ended by its ID: its token stops working at once.
        let target = try #require(others.first?["id"] as? String)
        #expect(try await call("DELETE", "/sessions/\(target)", first).status == 204)
        let remaining = Self.sessions(try await call("GET", "/sessions", first))
        #expect(remaining.count == 1 && remaining.first?["id"] as? String != target)
        #expect(try await call("DELETE", "/sessions/\(target)", first).status == 204, "an ID that names nothing live: 204, as Kratos answers")
        let own = try await call("DELETE", "/sessions/\(try #require(whoami["id"] as? String))", first)
        #expect(own.status == 400 && (own.json["error"] as? [String: Any])?["message"] as? String == "cannot revoke current session", "\(own.text)")
        let malformed = try await call("DELETE", "/sessions/not-a-uuid", first)
        #expect(malformed.status == 400 && (malformed.json["error"] as? [String: Any])?["code"] as? Int == 400, "\(malformed.text)")

        // The rest at once.
        let ended = try await call("DELETE", "/sessions", first)
        #expect(ended.status == 200 && ended.json["count"] as? Int == 1, "\(ended.text)")
        for token in tokens { #expect(try await call("GET", "/sessions/whoami", token).status == 401) }
        #expect(try await call("GET", "/sessions/whoami", first).status == 200, "the current session stays")
        #expect(Self.sessions(try await call("GET", "/sessions", first)).isEmpty)

        // Without a session, and off the map: Kratos's error shape.
        let anonymous = try await call("GET", "/sessions", nil)
        #expect(anonymous.status == 401 && (anonymous.json["error"] as? [String: Any])?["code"] as? Int == 401, "\(anonymous.text)")
        let unknown = try await call("GET", "/sessions/nothing/here", first)
        #expect(unknown.status == 404 && (unknown.json["error"] as? [String: Any])?["code"] as? Int == 404, "\(unknown.text)")
    }
}
