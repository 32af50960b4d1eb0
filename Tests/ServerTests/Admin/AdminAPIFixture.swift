import Foundation
import Testing

/// The application with the Admin API (in process, or a real `latchkey serve` where a test
/// needs its address handling, its listeners or its log), and keys made with `latchkey admin
/// keys create` on its database, as an operator makes them.
struct AdminAPIFixture {
    /// The Kratos face's apps beside the Auth0-shaped client, and loopback as a trusted
    /// proxy, so that a test can speak from another address with `X-Forwarded-For`.
    static let configuration = KratosFaceTests.configuration.replacingOccurrences(
        of: "server: { public_url: http://localhost:8080 }", with: "server: { public_url: http://localhost:8080, trusted_proxies: [127.0.0.1/32] }"
    )

    let directory: TemporaryDirectory
    let server: any TestServer
    /// The server's process, when it was started as one.
    var process: ServerProcess? { server as? ServerProcess }
    var http: RawHTTP { RawHTTP(server) }
    var database: String { "sqlite:" + directory.path("latchkey.sqlite") }

    /// - Parameter process: Whether to start a real process: for a client address that
    ///   `X-Forwarded-For` names, a listener of its own, or the server's log.
    static func start(configuration: String = AdminAPIFixture.configuration, process: Bool = false) async throws -> AdminAPIFixture {
        let directory = try TemporaryDirectory()
        if process {
            return AdminAPIFixture(directory: directory, server: try await ServerProcess.start(configuration: configuration, in: directory))
        }
        // The trail and the directory are read by time, against the test's own clock.
        return AdminAPIFixture(directory: directory, server: try await RouterServer.start(yaml: configuration, in: directory, clock: .running()))
    }

    /// Runs `latchkey admin …` on the server's database.
    func cli(_ arguments: [String], ids: [String] = []) async throws -> CommandRun {
        // IDs go after `--`, as the command's help says, since one may begin with "-".
        try await CommandRun.run(["admin"] + arguments + ["--database", database] + (ids.isEmpty ? [] : ["--"] + ids), workingDirectory: directory.url)
    }

    /// Makes a key with these scopes: its ID and the key.
    func key(_ scopes: String, name: String = "test") async throws -> (id: String, key: String) {
        let run = try await cli(["keys", "create", "--name", name, "--scopes", scopes])
        #expect(run.status == 0, "\(run.output)")
        let lines = run.output.split(separator: "\n").map(String.init)
        let key = try #require(lines.last)
        #expect(key.hasPrefix("lk_admin_") && !key.contains(" "), "the key alone on the last line: \(run.output)")
        let id = try #require(lines.first?.split(separator: " ").dropFirst(3).first.map(String.init))
        return (id, key)
    }

    /// A call with `key` as the bearer.
    func call(_ method: String, _ path: String, key: String?, json: [String: Any]? = nil, headers: [String: String] = [:]) async throws -> RawHTTP.Reply {
        var headers = headers
        if let key { headers["Authorization"] = "Bearer " + key }
        let body = try json.map { try JSONSerialization.data(withJSONObject: $0) }
        return try await http.send(method, "/admin/v1" + path, body: body, contentType: body == nil ? nil : "application/json", headers: headers)
    }

    func stop() {
        process?.stop()
        (server as? RouterServer)?.stop()
    }
}

extension RawHTTP.Reply {
    /// The problem's stable code, when the body is problem details.
    var problemCode: String? {
        guard header("Content-Type")?.hasPrefix("application/problem+json") == true else { return nil }
        return json["code"] as? String
    }
}

/// Expects a problem with this status and code.
func expectProblem(_ reply: RawHTTP.Reply, _ status: Int, _ code: String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(reply.status == status && reply.problemCode == code, "expected \(status) \(code), got \(reply.status) \(reply.text.prefix(300))", sourceLocation: sourceLocation)
}
