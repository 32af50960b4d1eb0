import Foundation
import Testing

/// The Kratos face as Ory's own generated SDKs see it (`scripts/ory-sdks.py`: ory-kratos-client
/// and ory-client from PyPI, versions pinned): flows, whoami, settings, the session list with
/// its headers, ending one session and the rest, logout, and the refusals, each answer parsed
/// into the SDK's models with no member they do not know.
@Suite("Kratos face: Ory's SDKs against a real server", .serialized, .timeLimit(.minutes(3)))
struct OrySDKTests {
    private static let python = PythonTools.setUp("ory-sdks.sh", unless: "LATCHKEY_ORY_SDK_PYTHON")

    @Test(arguments: ["kratos", "ory"])
    func theSDKParsesEveryAnswer(sdk: String) async throws {
        let python = try Self.python.get()
        let running = try await KratosFaceTests.start()
        defer { running.server.stop() }
        // Passkeys are the platform's part: the sample app signs in three times.
        var app = KratosSampleApp(server: running.url, platform: .iOS)
        var tokens = [try #require(try await app.signUp(email: "sdk.\(sdk)@example.com").json["session_token"] as? String)]
        for _ in 0..<2 { tokens.append(try #require(try await app.signIn().json["session_token"] as? String)) }
        let run = try await ExternalCommand.run(python, [
            SMTPSink.repository.appendingPathComponent("scripts/ory-sdks.py").path, "--base", running.url.absoluteString, "--sdk", sdk,
        ] + tokens.flatMap { ["--token", $0] })
        #expect(run.status == 0 && !run.output.contains("FAIL"), "\(run.output)")
        for line in ["ok to_session (whoami)", "ok list_my_sessions lists", "ok disable_my_other_sessions ends the rest", "ok whoami after logout is a 401"] {
            #expect(run.output.contains(line), "\(line): \(run.output)")
        }
    }
}
