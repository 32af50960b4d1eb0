import Foundation
import Testing

/// A real `latchkey serve` with the Admin API, and keys made with `latchkey admin keys
/// create` on its database, as an operator makes them.
struct AdminAPIFixture {
    /// The Kratos face's apps beside the Auth0-shaped client, and loopback as a trusted
    /// proxy, so that a test can speak from another address with `X-Forwarded-For`.
    static let configuration = KratosFaceTests.configuration.replacingOccurrences(
        of: "server: { public_url: http://localhost:8080 }", with: "server: { public_url: http://localhost:8080, trusted_proxies: [127.0.0.1/32] }"
    )

    let directory: TemporaryDirectory
    let server: ServerProcess
    var http: RawHTTP { RawHTTP(server) }
    var database: String { "sqlite:" + directory.path("latchkey.sqlite") }

    static func start(configuration: String = AdminAPIFixture.configuration) async throws -> AdminAPIFixture {
        let directory = try TemporaryDirectory()
        let server = try await ServerProcess.start(configuration: configuration, in: directory)
        return AdminAPIFixture(directory: directory, server: server)
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

    func stop() { server.stop() }
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
