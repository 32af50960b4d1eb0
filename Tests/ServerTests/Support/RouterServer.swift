import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LatchkeyClient
import LatchkeyServer
import Logging
import NIOCore

/// A server the tests talk to: its address and how requests reach it.
protocol TestServer: Sendable {
    /// The URL requests are made against.
    var baseURL: URL { get }
    /// How a request reaches the server: a socket, or the router in process.
    var transport: any LatchkeyTransport { get }
}

extension ServerProcess: TestServer {
    var transport: any LatchkeyTransport { RawHTTP.socketTransport }
}

extension InProcessServer: TestServer {
    var transport: any LatchkeyTransport { RawHTTP.socketTransport }
}

/// The whole application in process, driven through Hummingbird's router test framework
/// (`app.test(.router)`): every route and middleware and every background service (outboxes,
/// purges), over a real SQLite file, with an injected clock, and no socket. What a test
/// needs of a server short of a process's own life (its exit, its output, its signals, its
/// sockets) it gets here, at a fraction of a process's start.
final class RouterServer: TestServer, @unchecked Sendable {
    /// The configured public URL: every request is addressed to it.
    let baseURL: URL
    let clock: TestClock
    let directory: TemporaryDirectory
    let transport: any LatchkeyTransport
    private let finished: AsyncStream<Void>.Continuation
    private let task: Task<Void, any Error>

    /// Builds the application for the YAML configuration over a SQLite file in `directory`,
    /// and starts its services; `publicURL` overrides the configuration's unless `nil`.
    static func start(
        yaml: String = "", in directory: TemporaryDirectory? = nil, clock: TestClock = TestClock(), publicURL: String? = "http://localhost:8080"
    ) async throws -> RouterServer {
        let directory = try directory ?? TemporaryDirectory()
        let configuration = try directory.configuration(yaml, publicURL: publicURL)
        let application = try await LatchkeyApplication.build(configuration, clock: clock, logger: .quiet("router-server"))
        // The framework's client lives while its closure runs: the closure hands the client
        // out and waits until the test stops the server.
        let (clients, handOut) = AsyncStream.makeStream(of: (any TestClientProtocol).self)
        let (stopped, finished) = AsyncStream.makeStream(of: Void.self)
        let task = Task {
            try await application.test(.router) { client in
                handOut.yield(client)
                handOut.finish()
                for await _ in stopped {}
            }
        }
        for await client in clients {
            return RouterServer(
                baseURL: URL(string: configuration.server.publicURL)!, clock: clock, directory: directory, transport: RouterTransport(client: client),
                finished: finished, task: task
            )
        }
        // The closure never ran: the application failed before it.
        try await task.value
        throw TestFailure("the application stopped before its router could be driven")
    }

    private init(
        baseURL: URL, clock: TestClock, directory: TemporaryDirectory, transport: any LatchkeyTransport, finished: AsyncStream<Void>.Continuation,
        task: Task<Void, any Error>
    ) {
        self.baseURL = baseURL
        self.clock = clock
        self.directory = directory
        self.transport = transport
        self.finished = finished
        self.task = task
    }

    /// Stops the services; the application shuts down behind the test.
    func stop() { finished.finish() }

    deinit { finished.finish() }
}

/// Requests through the router test framework's client. The edge's connection handler is not
/// there, so the client address it writes is written here: a loopback client's (the address
/// `X-Forwarded-For` names needs a process, whose handler reads it).
struct RouterTransport: LatchkeyTransport {
    let client: any TestClientProtocol

    func send(_ request: URLRequest) async throws -> (Data, URLResponse) {
        guard let url = request.url, let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw TestFailure("a request without a URL")
        }
        var uri = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { uri += "?" + query }
        var fields = HTTPFields()
        for (name, value) in request.allHTTPHeaderFields ?? [:] {
            if let field = HTTPField.Name(name) { fields.append(HTTPField(name: field, value: value)) }
        }
        fields[HTTPField.Name("X-Latchkey-Client-Address")!] = "127.0.0.1"
        // URLSession names itself; so does this transport.
        if fields[.userAgent] == nil { fields[.userAgent] = "latchkey-tests (router)" }
        let method = HTTPRequest.Method(request.httpMethod ?? "GET") ?? .get
        let body = request.httpBody.map { ByteBuffer(bytes: $0) }
        let answer = try await client.executeRequest(uri: uri, method: method, headers: fields, body: body)
        var headers: [String: String] = [:]
        for field in answer.headers {
            // Repeated fields (`Set-Cookie`) are joined as URLSession joins them.
            headers[field.name.canonicalName] = headers[field.name.canonicalName].map { $0 + ", " + field.value } ?? field.value
        }
        let response = HTTPURLResponse(url: url, statusCode: Int(answer.status.code), httpVersion: "HTTP/1.1", headerFields: headers)!
        return (Data(answer.body.readableBytesView), response)
    }
}
