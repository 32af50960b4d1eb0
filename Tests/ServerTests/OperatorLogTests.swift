import Foundation
import LatchkeyClient
import Testing
import WebAuthn

/// What an operator reads: one structured line per security event, JSON when asked, and a
/// request log when asked.
@Suite("Operator logs: a real server process", .serialized, .timeLimit(.minutes(3)))
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
        var ada = PasskeyUser(server: server.baseURL)
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
