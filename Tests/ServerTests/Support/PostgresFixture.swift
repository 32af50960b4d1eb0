import Foundation
import Logging
import PostgresNIO
import Testing

/// PostgreSQL for the scale-out tests: the cluster `scripts/test.sh` started
/// (`LATCHKEY_TEST_POSTGRES_URL`), with a new database per test, or a private cluster a test
/// starts and stops itself. Without the variable the suites are skipped, except under CI
/// (`CI=true`), where they run and fail.
enum PostgresFixture {
    static let url = ProcessInfo.processInfo.environment["LATCHKEY_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    static let runs = url != nil || ProcessInfo.processInfo.environment["CI"] == "true"
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The URL of a new, empty database on the shared cluster.
    static func freshDatabase() async throws -> String {
        guard let url, var components = URLComponents(string: url) else {
            throw TestFailure("LATCHKEY_TEST_POSTGRES_URL is not set: run the tests with scripts/test.sh, which starts PostgreSQL")
        }
        let name = "scale_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let configuration = PostgresConnection.Configuration(
            host: components.host ?? "127.0.0.1", port: components.port ?? 5432, username: components.user ?? "latchkey",
            password: components.password, database: String(components.path.dropFirst()), tls: .disable
        )
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: Logger(label: "test.postgres"))
        defer { Task { try? await connection.close() } }
        try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: Logger(label: "test.postgres"))
        components.path = "/" + name
        return components.string!
    }

    /// The integer one query answers, in the database at `url`.
    static func integer(_ sql: String, in url: String) async throws -> Int64 {
        guard let components = URLComponents(string: url) else { throw TestFailure("not a database URL: \(url)") }
        let configuration = PostgresConnection.Configuration(
            host: components.host ?? "127.0.0.1", port: components.port ?? 5432, username: components.user ?? "latchkey",
            password: components.password, database: String(components.path.dropFirst()), tls: .disable
        )
        let logger = Logger(label: "test.postgres")
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        defer { Task { try? await connection.close() } }
        for try await value in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).decode(Int64.self) { return value }
        throw TestFailure("no row from \(sql)")
    }

    /// Runs `body` with a private cluster, and stops and removes the cluster before returning,
    /// whatever `body` does. (A `defer` could only schedule the removal in a task of its own,
    /// which the test process may exit before running, leaving PostgreSQL behind.)
    static func withPrivateCluster<T>(_ body: (PrivateCluster) async throws -> T) async throws -> T {
        let cluster = try await PrivateCluster.start()
        do {
            let result = try await body(cluster)
            await cluster.remove()
            return result
        } catch {
            await cluster.remove()
            throw error
        }
    }

    /// A cluster of its own, for a test that stops and restarts PostgreSQL.
    final class PrivateCluster: @unchecked Sendable {
        let directory: URL
        let url: String

        private init(directory: URL, url: String) {
            self.directory = directory
            self.url = url
        }

        static func start() async throws -> PrivateCluster {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-pg-" + UUID().uuidString)
            let run = try await script("start", directory)
            guard run.status == 0, let url = run.output.split(separator: "\n").last.map(String.init), url.hasPrefix("postgres://") else {
                throw TestFailure("scripts/postgres.sh start failed (\(run.status)): \(run.output)")
            }
            return PrivateCluster(directory: directory, url: url)
        }

        func stop() async throws {
            let run = try await Self.script("stop", directory)
            guard run.status == 0 else { throw TestFailure("scripts/postgres.sh stop failed: \(run.output)") }
        }

        func resume() async throws {
            let run = try await Self.script("resume", directory)
            guard run.status == 0 else { throw TestFailure("scripts/postgres.sh resume failed: \(run.output)") }
        }

        /// Stops the cluster and removes its files.
        func remove() async {
            _ = try? await Self.script("stop", directory)
            try? FileManager.default.removeItem(at: directory)
        }

        private static func script(_ command: String, _ directory: URL) async throws -> ExternalCommand {
            try await ExternalCommand.run("/bin/bash", [packageRoot.appendingPathComponent("scripts/postgres.sh").path, command, directory.path], timeout: 300)
        }
    }
}
