import Foundation
import LatchkeyClient
import Testing
import WebAuthn

/// Latchkey behind PgBouncer in transaction mode (`?pooler=transaction`), where each
/// transaction may run on another server connection: two instances whose pools (10 each) share
/// two server connections sign people up and in, rotate and replay refresh tokens and race one
/// `auth_session` as they do on PostgreSQL itself. Without `pooler=transaction`, start-up fails
/// and says what to add.
@Suite("PgBouncer in transaction mode", .serialized, .enabled(if: PostgresFixture.runs), .timeLimit(.minutes(10)))
struct PgBouncerTests {
    @Test func twoInstancesBehindPgBouncer() async throws {
        try await PgBouncerFixture.withPooler(in: try await PostgresFixture.freshDatabase()) { pooled in
            let (_, a, b) = try await ScaleOutTests.startPair(database: pooled)
            defer { a.stop(); b.stop() }
            var ada = PasskeyUser(a)
            _ = try await ada.signUp(SignupProfile(email: "ada@example.com"))
            var throughB = PasskeyUser(b)
            // Every login statement, on connections PgBouncer hands out in turn. (One passkey,
            // its counter carried from one instance's sign-in to the other's.)
            for _ in 0..<10 {
                _ = try await ada.signIn()
                throughB.credentials = ada.credentials
                _ = try await throughB.signIn()
                ada.credentials = throughB.credentials
            }

            // 32 concurrent finishes of one auth_session across both: exactly one succeeds.
            let (options, authSession) = try await ada.client.loginChallenge()
            let assertion = try ada.authenticator.getAssertion(options, origin: ada.origin, credential: &ada.credentials[0])
            let onB = LatchkeyAPIClient(baseURL: b.baseURL, clientID: "demo")
            let successes = await ScaleOutTests.successes(finishing: authSession, with: assertion, times: 32, through: [ada.client, onB])
            #expect(successes == 1, "\(successes) of 32 concurrent finishes succeeded")

            // A refresh token rotated on A and replayed on B revokes its family.
            let login = try await ada.signIn()
            let rotated = try await ada.client.refresh(refreshToken: try #require(login.refreshToken))
            await expectAPIError(status: 403) { try await onB.refresh(refreshToken: try #require(login.refreshToken)) }
            await expectAPIError(status: 403) { try await ada.client.refresh(refreshToken: try #require(rotated.refreshToken)) }
        }
    }

    @Test func withoutThePoolerSettingStartUpSaysWhatToAdd() async throws {
        try await PgBouncerFixture.withPooler(in: try await PostgresFixture.freshDatabase()) { pooled in
            let unmarked = pooled.replacingOccurrences(of: "&pooler=transaction", with: "")
            let run = try await ExternalCommand.run(ServerProcess.executable.path, ["migrate", "--database", unmarked], timeout: 60)
            #expect(run.status != 0)
            #expect(run.output.contains("unsupported startup parameter") && run.output.contains("pooler=transaction"), "\(run.output)")
            #expect(!run.output.contains(try #require(URLComponents(string: pooled)?.password)), "the password is never printed")
        }
    }
}

/// PgBouncer for a test: `scripts/pgbouncer.sh` (which installs it when missing) in front of a
/// database, with two server connections, stopped and removed afterwards.
enum PgBouncerFixture {
    static func withPooler<T>(in database: String, _ body: (String) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-pgbouncer-" + UUID().uuidString)
        let script = PostgresFixture.packageRoot.appendingPathComponent("scripts/pgbouncer.sh").path
        let started = try await ExternalCommand.run("/bin/bash", [script, "start", directory.path, database, "2"], timeout: 300)
        defer { try? FileManager.default.removeItem(at: directory) }
        guard started.status == 0, let url = started.output.split(separator: "\n").last.map(String.init), url.hasPrefix("postgres://") else {
            _ = try? await ExternalCommand.run("/bin/bash", [script, "stop", directory.path])
            throw TestFailure("scripts/pgbouncer.sh start failed (\(started.status)): \(started.output)")
        }
        do {
            let value = try await body(url)
            _ = try await ExternalCommand.run("/bin/bash", [script, "stop", directory.path])
            return value
        } catch {
            _ = try? await ExternalCommand.run("/bin/bash", [script, "stop", directory.path])
            throw error
        }
    }
}
