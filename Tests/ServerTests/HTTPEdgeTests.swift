import Foundation
import LatchkeyClient
import Testing

/// The HTTP edge probed as an attacker would, over raw sockets against the server as
/// `latchkey serve` builds it: malformed chunked bodies are a 400, never a 500; a refused
/// body is not drained and its connection closes; silent connections close; `HEAD` mirrors
/// `GET`; a request without `Host` is refused.
@Suite("HTTP edge: bodies, silence, HEAD and Host", .serialized, .timeLimit(.minutes(10)))
struct HTTPEdgeTests {
    static let yaml = """
        server: { idle_timeout: 1s }
        limits: { max_body_bytes: 4096 }
        """

    /// A long idle timeout, so that a connection that closes at once was closed for its body,
    /// not for its silence.
    static let patientYAML = """
        server: { idle_timeout: 60s }
        limits: { max_body_bytes: 4096 }
        """

    private func withServer(_ yaml: String = Self.yaml, _ body: (Int) async throws -> Void) async throws {
        let server = try await InProcessServer.start(yaml: yaml)
        do {
            try await body(server.baseURL.port!)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test(arguments: [
        "zz\r\n{}\r\n0\r\n\r\n",                               // chunk size that is not hex
        "-5\r\n{}\r\n0\r\n\r\n",                               // negative chunk size
        "2\r\n{\"client_id\":\"demo\"}\r\n0\r\n\r\n",          // a chunk longer than it says
    ])
    func malformedChunkedBodiesAreA400(_ chunks: String) async throws {
        try await withServer(Self.patientYAML) { port in
            let socket = try RawSocket(port: port)
            socket.send("POST /passkey/challenge HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks)
            // The answer: 400, never a 500. (Whether the 400 is the face's, naming the body,
            // or the HTTP layer's own depends on when the parser fails; both close.)
            let text = await socket.read(until: "\r\n\r\n", for: 10)
            #expect(RawSocket.status(text) == 400, "\(text)")
            #expect(!text.contains("500") && !text.contains("server_error"))
        }
    }

    @Test func aRefusedBodyIsNotDrainedAndItsConnectionCloses() async throws {
        try await withServer(Self.patientYAML) { port in
            let socket = try RawSocket(port: port)
            // Announces far more than the limit, sends a little, keeps the connection open.
            socket.send("POST /passkey/challenge HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\n\r\n" + String(repeating: "a", count: 8192))
            let started = Date()
            let (text, closed) = await socket.read(for: 10)
            #expect(RawSocket.status(text) == 413, "\(text)")
            #expect(text.lowercased().contains("connection: close"))
            #expect(closed, "the server closes instead of reading the rest")
            #expect(Date().timeIntervalSince(started) < 10, "closed for the body, long before the 60 s idle timeout")

            // The same with a chunked body that never ends.
            let chunked = try RawSocket(port: port)
            chunked.send("POST /passkey/challenge HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
            for _ in 0..<3 { chunked.send("1000\r\n" + String(repeating: "b", count: 4096) + "\r\n") }
            let (reply, ended) = await chunked.read(for: 10)
            #expect(RawSocket.status(reply) == 413, "\(reply)")
            #expect(ended)
        }
    }

    @Test func silentConnectionsClose() async throws {
        try await withServer { port in
            // Connected and silent; a head that stops half-way; a keep-alive connection left idle.
            let silent = try RawSocket(port: port)
            let partial = try RawSocket(port: port)
            partial.send("GET /health HTTP/1.1\r\nHost: local")
            let idle = try RawSocket(port: port)
            idle.send("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
            // The reads wait far longer than the idle timeout, so that a loaded machine (the
            // whole suite runs in parallel) cannot fail this; `closed` says the server hung up,
            // and the bound says it was the 1 s idle timeout rather than a later one.
            let started = Date()
            #expect(await silent.read(for: 30).closed)
            #expect(await partial.read(for: 30).closed)
            let (text, closed) = await idle.read(for: 30)
            #expect(RawSocket.status(text) == 200)
            #expect(closed)
            #expect(Date().timeIntervalSince(started) < 20, "closed by the 1 s idle timeout")
        }
    }

    @Test func headMirrorsGetAndHostIsRequired() async throws {
        // With the IDaaS face, whose envelope a Host-less request to its paths gets.
        try await withServer(Self.yaml + "\nfaces: { idaas: { admin_applications: [{ application_id: backend, name: Backend, shared_secret: a secret of sixteen+ }] } }") { port in
            for path in ["/health", "/.well-known/jwks.json", "/login"] {
                let socket = try RawSocket(port: port)
                socket.send("HEAD \(path) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                let (text, _) = await socket.read(for: 15)
                #expect(RawSocket.status(text) == 200, "HEAD \(path): \(text)")
                let body = text.components(separatedBy: "\r\n\r\n").dropFirst().joined()
                #expect(body.isEmpty, "HEAD \(path) sent a body")
            }
            // Without `Host`: refused in the envelope of the face the path names, and closed.
            for (request, envelope) in [
                ("GET /health", #""error":"invalid_request""#), ("GET /api/web/v1/nothing", #""errorCode":"invalid_request""#),
                ("GET /self-service/login/api", #""id":"#), ("POST /oauth/token", #""error":"invalid_request""#),
            ] {
                let socket = try RawSocket(port: port)
                socket.send("\(request) HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
                // The whole suite at once has kept a two-core machine busy past 15 seconds here.
                let (text, closed) = await socket.read(for: 30)
                #expect(RawSocket.status(text) == 400, "\(request): \(text)")
                #expect(text.contains(envelope), "\(request): \(text)")
                #expect(closed, "\(request)")
            }
        }
    }

    /// Connections beyond a cap are closed at accept, per client address and overall, and
    /// a closed connection frees its place.
    @Test(arguments: [
        "server: { max_connections: 10, max_connections_per_ip: 3 }",
        "server: { max_connections: 3, max_connections_per_ip: 3 }",
    ])
    func connectionsAreCapped(_ yaml: String) async throws {
        let server = try await InProcessServer.start(yaml: yaml)
        defer { Task { await server.stop() } }
        let port = server.baseURL.port!
        var held = try (0..<3).map { _ in try RawSocket(port: port) }
        for socket in held {
            socket.send("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(RawSocket.status(await socket.read(until: "ok\n", for: 10)) == 200)
        }
        let refused = try RawSocket(port: port)
        refused.send("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let (text, closed) = await refused.read(for: 2)
        #expect(text.isEmpty, "\(text)")
        #expect(closed, "the connection over the cap is closed at once")

        // The server learns of the close asynchronously: try for a while (up to 30 s, which a
        // machine busy with the other suites has needed).
        held.removeFirst()
        var status: Int?
        let deadline = Date().addingTimeInterval(30)
        while status == nil, Date() < deadline {
            let admitted = try RawSocket(port: port)
            admitted.send("GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            status = RawSocket.status(await admitted.read(until: "ok\n", for: 2))
            if status == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(status == 200, "a closed connection freed its place")
    }

    /// When the server as a whole is full, a newcomer from another address gets in and one
    /// older connection is closed.
    @Test func aFullServerClosesItsOldestConnectionForANewOne() async throws {
        let server = try await InProcessServer.start(yaml: "server: { max_connections: 3, max_connections_per_ip: 3 }")
        defer { Task { await server.stop() } }
        let port = server.baseURL.port!
        let held = try (0..<3).map { _ in try RawSocket(port: port, from: "127.0.1.1") }
        for socket in held {
            socket.send("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(RawSocket.status(await socket.read(until: "ok\n", for: 10)) == 200)
        }
        let newcomer = try RawSocket(port: port, from: "127.0.1.2")
        newcomer.send("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(RawSocket.status(await newcomer.read(until: "ok\n", for: 10)) == 200)
        // One held connection made room (which one was admitted first depends on the event
        // loops' order); the other two still answer.
        var answering = 0
        for socket in held {
            socket.send("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
            if RawSocket.status(await socket.read(until: "ok\n", for: 3)) == 200 { answering += 1 }
        }
        #expect(answering == 2)
    }

    /// The probe that once blocked every login: 1,200 connections from twenty client
    /// addresses, half silent and half sending a head a byte at a time, against the real
    /// process at the common 1,024 open-file limit. The caps close what is over them at
    /// accept, and a person on another address still signs up and in.
    @Test func twelveHundredIdleAndSlowConnectionsDoNotStopALogin() async throws {
        let directory = try TemporaryDirectory()
        try EndToEndTests.configuration.write(toFile: directory.path("latchkey.yaml"), atomically: true, encoding: .utf8)
        let server = try await ServerProcess.start(
            arguments: ["--config", directory.path("latchkey.yaml"), "--database", "sqlite:" + directory.path("latchkey.sqlite")],
            workingDirectory: directory.url, openFileLimit: 1024
        )
        defer { server.stop() }
        // The slow half keeps trickling while a person signs up and in.
        let flood = try await ConnectionFlood.start(port: server.baseURL.port!, count: 1200)
        defer { flood.stop() }
        #expect(flood.opened > 700, "the flood opened \(flood.opened) connections")
        var ada = PasskeyUser(server)
        _ = try await ada.signUp(SignupProfile(email: "ada@example.com"))
        _ = try await ada.signIn()
        #expect(server.process.isRunning)
    }
}
