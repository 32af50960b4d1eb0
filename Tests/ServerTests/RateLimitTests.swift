import Foundation
import Testing

/// Rate limits per client address, against the real process over real sockets: one address
/// flooding ceremony starts gets 429s with `Retry-After` in each face's format, while a
/// second address (the client bound to 127.0.0.2) is unaffected; a forged client-address
/// header changes nothing; behind a trusted proxy, `X-Forwarded-For` names the client. One
/// identifier is limited from every address together.
// The limit guards against a hang. In the full parallel run on two cores each curl takes
// seconds, and the first test sends up to fifty: it once took two and a half minutes.
@Suite("Rate limits: a real server process", .serialized, .timeLimit(.minutes(10)))
struct RateLimitTests {
    struct Reply {
        let status: Int
        let headers: String
        let body: String
    }

    /// One request with curl, from `source`.
    func request(_ server: ServerProcess, _ method: String, _ path: String, body: String? = nil, from source: String = "127.0.0.1", headers: [String] = []) async throws -> Reply {
        var arguments = ["-sS", "--max-time", "10", "--interface", source, "-X", method, "-D", "-", "-o", "-"]
        for header in headers { arguments += ["-H", header] }
        if let body { arguments += ["-H", "Content-Type: application/json", "--data", body] }
        let output = try await ExternalCommand.run("/usr/bin/curl", arguments + [server.baseURL.absoluteString + path]).output
        let split = output.components(separatedBy: "\r\n\r\n")
        let head = split.first ?? ""
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        return Reply(status: status, headers: head.lowercased(), body: split.dropFirst().joined(separator: "\r\n\r\n"))
    }

    /// Repeats `send` until it is refused with 429, at most twenty times, and returns the last
    /// reply: a face whose starts are not limited returns its twentieth answer, not a 429.
    func firstRefusal(_ send: () async throws -> Reply) async throws -> Reply {
        var reply = try await send()
        for _ in 1..<20 where reply.status != 429 { reply = try await send() }
        return reply
    }

    @Test func oneAddressIsLimitedAndAnotherIsNot() async throws {
        let directory = try TemporaryDirectory()
        let server = try await ServerProcess.start(configuration: EndToEndTests.configuration + """

            limits: { ceremony_starts_per_minute: 5 }
            """, in: directory)
        defer { server.stop() }
        let challenge = #"{"client_id":"demo"}"#
        for _ in 0..<5 {
            #expect(try await request(server, "POST", "/passkey/challenge", body: challenge).status == 200)
        }
        // The sixth start from the same address, even claiming to be another one. (The window
        // slides: on a loaded machine the count may have decayed, so it is asked until refused.)
        let refused = try await firstRefusal {
            try await request(server, "POST", "/passkey/challenge", body: challenge, headers: ["X-Latchkey-Client-Address: 192.0.2.1"])
        }
        #expect(refused.status == 429, "\(refused.headers)")
        #expect(refused.headers.contains("retry-after: "), "\(refused.headers)")
        #expect(refused.body.contains(#""error":"too_many_requests""#), "\(refused.body)")
        // Every face answers in its own format. The window slides: on a busy machine the
        // count may have decayed between two requests, so each face is asked until it refuses
        // (its own starts count too, so a face that limits does refuse within twenty).
        let kratos = try await firstRefusal { try await request(server, "GET", "/self-service/login/api") }
        #expect(kratos.status == 429 && kratos.body.contains(#""error":{"#), "\(kratos.body)")
        let idaas = try await firstRefusal {
            try await request(server, "POST", "/api/web/v2/authentication/users/authenticate/PASSKEY", body: #"{"applicationId":"demo"}"#)
        }
        #expect(idaas.status == 429 && idaas.body.contains(#""errorCode":"too_many_requests""#), "\(idaas.body)")
        // Another address is unaffected; finishing and other endpoints are not starts.
        #expect(try await request(server, "POST", "/passkey/challenge", body: challenge, from: "127.0.0.2").status == 200)
        #expect(try await request(server, "GET", "/.well-known/openid-configuration").status == 200)
    }

    @Test func oneIdentifierIsLimitedFromEveryAddress() async throws {
        let directory = try TemporaryDirectory()
        let server = try await ServerProcess.start(configuration: EndToEndTests.configuration + """

            limits: { identifier_attempts_per_minute: 3 }
            """, in: directory)
        defer { server.stop() }
        func login(_ username: String, from source: String) async throws -> Reply {
            try await request(server, "POST", "/passkey/challenge", body: #"{"client_id":"demo","username":"\#(username)"}"#, from: source)
        }
        #expect(try await login("ada@example.com", from: "127.0.0.1").status == 200)
        #expect(try await login("ADA@example.com", from: "127.0.0.2").status == 200, "the normalized identifier counts")
        #expect(try await login("ada@example.com", from: "127.0.0.3").status == 200)
        // A fourth attempt from yet another address, and a sign-up probing the same email.
        let refused = try await login("ada@example.com", from: "127.0.0.4")
        #expect(refused.status == 429 && refused.headers.contains("retry-after: "), "\(refused.headers)")
        #expect(refused.body.contains(#""error":"too_many_requests""#) && refused.body.contains("this account"), "\(refused.body)")
        let probe = try await request(
            server, "POST", "/passkey/register", body: #"{"client_id":"demo","user_profile":{"email":"ada@example.com"}}"#, from: "127.0.0.5"
        )
        #expect(probe.status == 429, "\(probe.body)")
        // Another identifier, from the same addresses, is unaffected.
        #expect(try await login("bob@example.com", from: "127.0.0.4").status == 200)
        let signup = try await request(
            server, "POST", "/passkey/register", body: #"{"client_id":"demo","user_profile":{"email":"bob@example.com"}}"#, from: "127.0.0.5"
        )
        #expect(signup.status == 200, "\(signup.body)")
    }

    @Test func failedFinishesFromOneAddressAreLimited() async throws {
        let directory = try TemporaryDirectory()
        let server = try await ServerProcess.start(configuration: EndToEndTests.configuration + """

            limits: { ceremony_failures_per_minute: 3 }
            """, in: directory)
        defer { server.stop() }
        let forged = #"{"grant_type":"urn:okta:params:oauth:grant-type:webauthn","client_id":"demo","auth_session":"bm90LWEtc2Vzc2lvbg","authn_response":{}}"#
        for _ in 0..<3 {
            let failed = try await request(server, "POST", "/oauth/token", body: forged)
            #expect(failed.status == 400 || failed.status == 403, "\(failed.status) \(failed.body)")
        }
        // The fourth finish is refused before it is looked at; the Kratos face too.
        let refused = try await request(server, "POST", "/oauth/token", body: forged)
        #expect(refused.status == 429 && refused.body.contains("failed attempts"), "\(refused.status) \(refused.body)")
        let kratos = try await request(server, "POST", "/self-service/login?flow=unknown", body: "{}")
        #expect(kratos.status == 429, "\(kratos.status) \(kratos.body)")
        // Another address is not affected.
        let challenge = try await request(server, "POST", "/passkey/challenge", body: #"{"client_id":"demo"}"#, from: "127.0.0.2")
        #expect(challenge.status == 200)
        let other = try await request(server, "POST", "/oauth/token", body: forged, from: "127.0.0.2")
        #expect(other.status == 400 || other.status == 403, "failures count per address: \(other.status)")
    }

    @Test func behindATrustedProxyTheForwardedAddressCounts() async throws {
        let directory = try TemporaryDirectory()
        let server = try await ServerProcess.start(configuration: """
            server: { public_url: http://localhost:8080, trusted_proxies: [127.0.0.0/8] }
            relying_party: { id: localhost, name: Latchkey Test, origins: [http://localhost:8080] }
            limits: { ceremony_starts_per_minute: 2 }
            """, in: directory)
        defer { server.stop() }
        let challenge = #"{"client_id":"demo"}"#
        for _ in 0..<2 {
            #expect(try await request(server, "POST", "/passkey/challenge", body: challenge, headers: ["X-Forwarded-For: 203.0.113.7"]).status == 200)
        }
        #expect(try await request(server, "POST", "/passkey/challenge", body: challenge, headers: ["X-Forwarded-For: 203.0.113.7"]).status == 429)
        // A client that prepends its own address cannot escape: the proxy's hop counts.
        #expect(try await request(server, "POST", "/passkey/challenge", body: challenge, headers: ["X-Forwarded-For: 198.51.100.1, 203.0.113.7"]).status == 429)
        #expect(try await request(server, "POST", "/passkey/challenge", body: challenge, headers: ["X-Forwarded-For: 203.0.113.8"]).status == 200)
    }
}
