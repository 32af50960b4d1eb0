import Foundation
import LatchkeyClient
import Testing

/// Schemathesis (PyPI) against the running server's `/admin/v1/openapi.json`: generated
/// requests, valid and invalid, for every operation, and links from a created user to the
/// operations on it. It fails on any 5xx, any status, content type, header or body the
/// document does not allow, any invalid request accepted, any call that works without the
/// key, and any method the document does not list answered other than 405.
///
/// One check is left out: `positive_data_acceptance` (a request the schema allows must be
/// accepted). The document cannot state what the server decides from its data: whether a
/// page token is one it gave, or whether an address is one sign-up accepts. Those refusals
/// are tested in AdminAPITests.
@Suite("Admin API: Schemathesis against the OpenAPI document", .serialized, .timeLimit(.minutes(10)))
struct AdminAPIConformanceTests {
    static let schemathesis = PythonTools.setUp("schemathesis.sh", unless: "LATCHKEY_SCHEMATHESIS")

    @Test func schemathesisFindsNothingTheDocumentDoesNotAllow() async throws {
        let command = try Self.schemathesis.get()
        // An endpoint at a loopback address that is not allowed: deliveries are written and
        // fail at once, so that their list has something to check.
        let admin = try await AdminAPIFixture.start(
            configuration: WebhookTests.configuration(url: "http://127.0.0.2:9/hooks", secrets: [WebhookReceiver.secret(8)], events: "[user., passkey.added]"),
            process: true
        )
        defer { admin.stop() }
        // Data to find: a person with a passkey and a session, and a key with every scope.
        var ada = PasskeyUser(admin.server)
        _ = try await ada.signUp(SignupProfile(email: "ada@example.com"))
        let key = try await admin.key("users:write,credentials:write,sessions:write,events:read,webhooks:write,clients:read").key
        let run = try await ExternalCommand.run(
            command,
            [
                "run", admin.server.baseURL.absoluteString + "/admin/v1/openapi.json", "--header", "Authorization: Bearer \(key)",
                "--checks", "all", "--exclude-checks", "positive_data_acceptance", "--max-examples", "40", "--seed", "20261127",
                "--no-color", "--request-timeout", "20",
            ],
            workingDirectory: admin.directory.url, timeout: 240
        )
        #expect(run.status == 0, "schemathesis found failures:\n\(run.output.suffix(6000))")
        let count = AdminAPITests.operations.count
        #expect(run.output.contains("Selected: \(count)/\(count)") && run.output.contains("Tested: \(count)"), "every operation was tested:\n\(run.output.suffix(2000))")
        let log = try #require(admin.process).output.text
        #expect(!log.contains("unexpected failure"), "no unexpected failure logged")
    }
}
