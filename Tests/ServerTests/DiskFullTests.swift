import Foundation
import ProcessTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LatchkeyClient
import Testing

/// A full disk, for real: the server's SQLite file on a 4 MiB tmpfs, filled up by another
/// file. Sign-ups and logins that cannot write answer 503 `temporarily_unavailable`, never
/// 500; reads keep answering; every acknowledged sign-up can sign in afterwards, and every
/// refused one left nothing (its email signs up once space is back). Mounting needs root.
@Suite(
    "Disk full: a real server process on a small file system", .serialized, .timeLimit(.minutes(10)),
    .enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/bin/mount"), "needs root to mount a tmpfs (CI runs as root)")
)
struct DiskFullTests {
    @Test func writesThatDoNotFitGive503AndNothingHalfWritten() async throws {
        let directory = try TemporaryDirectory()
        let mountPoint = directory.path("small")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let mounted = try await ExternalCommand.run("/bin/mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", mountPoint])
        try #require(mounted.status == 0, "mount: \(mounted.output)")
        defer {
            let umount = ChildProcess()
            umount.executableURL = URL(fileURLWithPath: "/bin/umount")
            umount.arguments = ["-l", mountPoint]
            try? umount.run()
        }

        try EndToEndTests.configuration.write(toFile: directory.path("latchkey.yaml"), atomically: true, encoding: .utf8)
        let server = try await ServerProcess.start(
            arguments: ["--config", directory.path("latchkey.yaml"), "--database", "sqlite:" + mountPoint + "/latchkey.sqlite"],
            workingDirectory: directory.url
        )
        defer { server.stop() }
        // A step outside the refusal loop that fails names itself and shows the server's log,
        // which says which SQLite result the 503 stood for.
        @discardableResult
        func step<T>(_ name: String, _ body: () async throws -> T) async throws -> T {
            do {
                return try await body()
            } catch {
                Issue.record("\(name) failed: \(error)\n--- server log ---\n\(server.output.text.suffix(2000))")
                throw error
            }
        }
        var ada = PasskeyUser(server)
        let tokens = try await step("the first sign-up, before the disk fills") { try await ada.signUp(SignupProfile(email: "ada@example.com")) }

        // Another file takes every free byte.
        let filler = mountPoint + "/filler"
        _ = FileManager.default.createFile(atPath: filler, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: filler))
        let chunk = Data(repeating: 0x5A, count: 4096)
        while (try? handle.write(contentsOf: chunk)) != nil {}
        try? handle.close()

        // Sign-ups and logins until one cannot write (the write-ahead log may still have room
        // for a few): each answer is a success or a 503, never anything else.
        var acknowledged: [PasskeyUser] = []
        var refusedEmails: [String] = []
        var refusals = 0
        for attempt in 0..<200 where refusals < 3 {
            do {
                if attempt % 2 == 0 {
                    var person = PasskeyUser(server)
                    do {
                        try await person.signUp(SignupProfile(email: "person\(attempt)@example.com"))
                        acknowledged.append(person)
                    } catch {
                        refusedEmails.append("person\(attempt)@example.com")
                        throw error
                    }
                } else {
                    try await ada.signIn()
                }
            } catch let error as LatchkeyAPIError {
                #expect(error.status == 503 && error.code.rawValue == "temporarily_unavailable", "\(error) \(server.output.text.suffix(800))")
                refusals += 1
            }
        }
        #expect(refusals > 0, "the disk never filled up")

        // Reads still answer, and the server says it is alive and ready.
        let info = try await step("userinfo on a full disk") { try await ada.client.userInfo(accessToken: tokens.accessToken) }
        #expect(info.email == "ada@example.com")
        let (_, ready) = try await step("/ready on a full disk") { try await URLSession.shared.data(from: server.baseURL.appendingPathComponent("ready")) }
        #expect((ready as? HTTPURLResponse)?.statusCode == 200)

        // Space comes back: every acknowledged account signs in, every refused email signs up
        // (so nothing of it was written), and ada signs in.
        try FileManager.default.removeItem(atPath: filler)
        for var person in acknowledged {
            try await step("an acknowledged account's sign-in after space came back") { try await person.signIn() }
        }
        for email in refusedEmails {
            var person = PasskeyUser(server)
            try await step("a refused email's sign-up after space came back") { try await person.signUp(SignupProfile(email: email)) }
        }
        try await step("ada's sign-in after space came back") { try await ada.signIn() }
    }
}
