import Foundation
import ProcessTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LatchkeyClient
import Testing

/// A database another process has locked: writes wait out the busy timeout, then answer 503
/// with `Retry-After` in each face's format, nothing is half-written, reads keep working, and
/// the same requests succeed once the lock is gone.
@Suite("Storage faults: a real server process", .serialized, .timeLimit(.minutes(10)))
struct StorageFaultTests {
    @Test func aLockedDatabaseGives503AndWritesNothing() async throws {
        let directory = try TemporaryDirectory()
        let server = try await ServerProcess.start(configuration: EndToEndTests.configuration, in: directory)
        defer { server.stop() }
        var ada = PasskeyUser(server)
        let tokens = try await ada.signUp(SignupProfile(email: "ada@example.com"))

        // Another process takes the write lock and holds it.
        let locker = ChildProcess()
        locker.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        locker.arguments = ["-c", """
            import sqlite3, sys, time
            c = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=10)
            c.execute('BEGIN EXCLUSIVE')
            print('locked', flush=True)
            sys.stdin.read()
            c.execute('ROLLBACK')
            """, directory.path("latchkey.sqlite")]
        let input = Pipe()
        let output = Pipe()
        locker.standardInput = input
        locker.standardOutput = output
        let exited = AsyncStream<Void>.makeStream()
        locker.terminationHandler = { _ in exited.continuation.finish() }
        try locker.run()
        defer { if locker.isRunning { locker.terminate() } }
        // Read off the cooperative threads: the test process's own servers need them.
        let line = await blockingWait { String(decoding: output.fileHandleForReading.availableData, as: UTF8.self) }
        try #require(line.contains("locked"), "the lock was not taken: \(line)")

        // A sign-up cannot write: 503 in the Auth0 envelope, after the busy timeout.
        var bob = PasskeyUser(server)
        let refused = await expectAPIError(status: 503) { try await bob.signUp(SignupProfile(email: "bob@example.com")) }
        #expect(refused?.code.rawValue == "temporarily_unavailable", "\(String(describing: refused)) \(server.output.text.suffix(1500))")

        // My Account: problem details and Retry-After.
        var request = URLRequest(url: server.baseURL.appendingPathComponent("me/v1/sessions"))
        request.httpMethod = "DELETE"
        request.setValue("Bearer \(tokens.accessToken)", forHTTPHeaderField: "Authorization")
        let (body, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 503)
        #expect(http.value(forHTTPHeaderField: "Retry-After") == "5")
        #expect(String(decoding: body, as: UTF8.self).contains("temporarily_unavailable"))

        // Reads still answer.
        let (_, ready) = try await URLSession.shared.data(from: server.baseURL.appendingPathComponent("ready"))
        #expect((ready as? HTTPURLResponse)?.statusCode == 200)

        // The lock goes; the same sign-up now succeeds, so the refused one wrote nothing.
        try input.fileHandleForWriting.close()
        for await _ in exited.stream {}
        try await bob.signUp(SignupProfile(email: "bob@example.com"))
        try await ada.signIn()
    }
}
