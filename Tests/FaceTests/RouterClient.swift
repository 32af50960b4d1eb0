import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IdentityCore
import LatchkeyServer
import Logging
import NIOCore

/// Sends requests straight to the application's router, in process, through Hummingbird's
/// router test framework (`app.test(.router)`): no socket, no server, a real SQLite file and
/// every middleware. The routes run without the background services (the outboxes, the
/// purges), so the framework's client outlives its closure.
struct RouterClient {
    struct Reply {
        let status: HTTPResponse.Status
        let headers: HTTPFields
        let body: Data

        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body) as? [String: Any]) ?? [:] }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    let client: any TestClientProtocol
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
        var logger = Logger(label: "face-tests")
        logger.logLevel = .critical
        let client = try await Application(router: routes.router, logger: logger).test(.router) { $0 }
        return RouterClient(client: client, directory: directory, clock: clock)
    }

    func send(_ method: HTTPRequest.Method, _ path: String, body: String? = nil, headers: HTTPFields = [:]) async throws -> Reply {
        var fields = headers
        if body != nil, fields[.contentType] == nil { fields[.contentType] = "application/json" }
        let response = try await client.executeRequest(uri: path, method: method, headers: fields, body: body.map { ByteBuffer(string: $0) })
        return Reply(status: response.status, headers: response.headers, body: Data(response.body.readableBytesView))
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

/// A clock tests move by hand.
final class FixedClock: WallClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date(timeIntervalSince1970: 1_800_000_000)

    func now() -> Date { lock.withLock { current } }

    func advance(by interval: TimeInterval) { lock.withLock { current = current.addingTimeInterval(interval) } }
}
