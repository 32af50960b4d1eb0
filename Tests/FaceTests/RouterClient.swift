import Foundation
import FaceFrame
import HTTPTypes
import Hummingbird
import IdentityCore
import LatchkeyServer
import Logging
import NIOCore
import NIOEmbedded

/// Sends requests straight to the application's router, in process, as Hummingbird's own
/// `.router` testing does: no socket, no server, a real SQLite file and every middleware.
struct RouterClient {
    struct Reply {
        let status: HTTPResponse.Status
        let headers: HTTPFields
        let body: Data

        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body) as? [String: Any]) ?? [:] }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    let responder: RouterResponder<FaceRequestContext>
    let directory: URL
    let clock: FixedClock

    /// Builds the routes for a YAML configuration over a new database.
    static func start(yaml: String = "") async throws -> RouterClient {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-faces-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let configuration = try ConfigurationLoader.load(
            overrides: .init(configFile: "test.yaml", port: 0, database: "sqlite:" + directory.appendingPathComponent("latchkey.sqlite").path, publicURL: "http://localhost:8080"),
            environment: [:]
        ) { _ in yaml }
        let clock = FixedClock()
        let routes = try await LatchkeyApplication.buildRoutes(configuration, clock: clock)
        return RouterClient(responder: routes.router.buildResponder(), directory: directory, clock: clock)
    }

    func send(
        _ method: HTTPRequest.Method, _ path: String, body: String? = nil, headers: HTTPFields = [:], authority: String? = "localhost:8080"
    ) async throws -> Reply {
        var fields = headers
        if body != nil, fields[.contentType] == nil { fields[.contentType] = "application/json" }
        let request = Request(
            head: HTTPRequest(method: method, scheme: "http", authority: authority, path: path, headerFields: fields),
            body: RequestBody(buffer: ByteBuffer(string: body ?? ""))
        )
        var logger = Logger(label: "face-tests")
        logger.logLevel = .critical
        let context = FaceRequestContext(source: ApplicationRequestContextSource(channel: EmbeddedChannel(), logger: logger))
        let response = try await responder.respond(to: request, context: context)
        let collector = BodyCollector()
        try await response.body.write(collector)
        return Reply(status: response.status, headers: response.headers, body: collector.data)
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

/// Collects a response body.
private final class BodyCollector: ResponseBodyWriter {
    var data = Data()

    func write(_ buffer: ByteBuffer) async throws { data.append(contentsOf: buffer.readableBytesView) }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}

/// A clock tests move by hand.
final class FixedClock: WallClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date(timeIntervalSince1970: 1_800_000_000)

    func now() -> Date { lock.withLock { current } }

    func advance(by interval: TimeInterval) { lock.withLock { current = current.addingTimeInterval(interval) } }
}
