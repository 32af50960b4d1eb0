import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LatchkeyClient
import Testing
import WebAuthn

/// What an operator reads: one structured line per security event, JSON when asked, and a
/// request log when asked.
@Suite("Operator logs: a real server process", .serialized, .timeLimit(.minutes(10)))
struct OperatorLogTests {
    static let configuration = EndToEndTests.configuration + """

        logging: { format: json, requests: true }
        """

    func lines(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    @Test func securityEventsAndRequestsAreJSONLines() async throws {
        let directory = try TemporaryDirectory()
        let server = try await ServerProcess.start(configuration: Self.configuration, in: directory)
        var ada = PasskeyUser(server)
        let signup = try await ada.signUp(SignupProfile(email: "ada@example.com"))
        try await ada.signIn()
        _ = try await ada.client.refresh(refreshToken: try #require(signup.refreshToken))
        // A login whose signature was tampered with fails with its check's code.
        let (options, authSession) = try await ada.client.loginChallenge(username: nil)
        var response = try ada.authenticator.getAssertion(options, origin: ada.origin, credential: &ada.credentials[0])
        var signature = response.response.signature.bytes
        signature[signature.count - 1] ^= 0x01
        response.response.signature = Base64URLBytes(signature)
        await expectAPIError(status: 403) { try await ada.client.finishLogin(authSession: authSession, response: response) }
        server.stop()
        // The pipe may still hold the last lines when the process has exited.
        try await server.waitForOutput("Latchkey stopped")

        let text = server.output.text
        let all = lines(text)
        let nonJSON = text.split(separator: "\n").filter { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) == nil }
        #expect(nonJSON.isEmpty, "every line is a JSON object: \(nonJSON.prefix(3))")
        let events = all.filter { $0["source"] as? String == "security" }
        let kinds = events.compactMap { $0["event"] as? String }
        for kind in ["signup", "login", "token_refreshed", "login_failed"] {
            #expect(kinds.contains(kind), "\(kind) missing from \(kinds)")
        }
        let failure = try #require(events.first { $0["event"] as? String == "login_failed" })
        #expect(failure["reason"] as? String == "bad_signature", "\(failure)")
        #expect(failure["level"] as? String == "warning")
        #expect(events.allSatisfy { $0["time"] is String && $0["label"] as? String == "latchkey" })
        // The request log names method, path and status, and never a body or a token.
        let requests = all.filter { $0["source"] as? String == "request" }
        #expect(requests.contains { $0["message"] as? String == "POST /oauth/token 200" && $0["ms"] is String }, "\(requests.prefix(5))")
        #expect(requests.contains { $0["path"] as? String == "/oauth/token" && $0["status"] as? String == "403" }, "\(requests.prefix(8))")
        #expect(!text.contains(try #require(signup.refreshToken)))
        #expect(all.contains { $0["message"] as? String == "Latchkey stopped" })
    }
}

/// Prometheus metrics on their own listener, and the health and readiness checks.
@Suite("Metrics and readiness: a real server process", .serialized, .timeLimit(.minutes(10)))
struct MetricsListenerTests {
    static let configuration = EndToEndTests.configuration + """

        metrics: { host: 127.0.0.1, port: 0 }
        limits: { ceremony_starts_per_minute: 3 }
        """

    func get(_ url: URL) async throws -> (Int, String) {
        let (data, response) = try await URLSession.shared.data(from: url)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    @Test func ceremoniesRequestsAndDatabaseTimeAreMeasured() async throws {
        let directory = try TemporaryDirectory()
        let server = try await ServerProcess.start(configuration: Self.configuration, in: directory)
        defer { server.stop() }
        let text = server.output.text
        let marker = try #require(text.range(of: "metrics on http://127.0.0.1:"), "\(text)")
        let port = try #require(Int(text[marker.upperBound...].prefix { $0.isNumber }))
        let metricsURL = try #require(URL(string: "http://127.0.0.1:\(port)/metrics"))

        var ada = PasskeyUser(server)
        try await ada.signUp(SignupProfile(email: "ada@example.com"))
        try await ada.signIn()
        try await ada.signIn()
        // The fourth start in the minute is refused, and counted.
        await #expect(throws: (any Error).self) { try await ada.signIn() }

        let (status, body) = try await get(metricsURL)
        #expect(status == 200)
        for expected in [
            #"latchkey_ceremonies_total{face="api",kind="signup",result="success",client="demo"} 1"#,
            #"latchkey_ceremonies_total{face="api",kind="login",result="success",client="demo"} 2"#,
            "latchkey_database_write_seconds_bucket",
            "latchkey_open_ceremonies 0",
            #"latchkey_rate_limit_refusals_total{kind="start"} 1"#,
            "latchkey_database_read_seconds_count",
            #"http_route="/oauth/token""#,
            "http_server_request_duration_bucket",
        ] {
            #expect(body.contains(expected), "\(expected) missing from:\n\(body.prefix(3000))")
        }
        // Metrics are not served where the API is.
        #expect(try await get(server.baseURL.appendingPathComponent("metrics")).0 == 404)
        let ready = try await get(server.baseURL.appendingPathComponent("ready"))
        #expect(ready.0 == 200 && ready.1 == "ready\n", "\(ready)")
        #expect(try await get(server.baseURL.appendingPathComponent("health")).0 == 200)
    }
}
