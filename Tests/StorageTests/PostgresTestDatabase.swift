import Foundation
import StoragePostgres
import Testing

/// The PostgreSQL server the tests use: `LATCHKEY_TEST_POSTGRES_URL`, which
/// `scripts/test.sh` sets after starting a private cluster. Without it the PostgreSQL tests
/// are skipped, except under CI (`CI=true`), where a missing database is a failure.
enum PostgresTestDatabase {
    static let url = ProcessInfo.processInfo.environment["LATCHKEY_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    static let required = ProcessInfo.processInfo.environment["CI"] == "true"
    /// Whether the PostgreSQL suites run: with a database, or under CI to fail loudly.
    static let runs = url != nil || required

    /// A store over a schema of its own, new and empty, so each case starts from nothing.
    static func freshStorage(poolSize: Int = 3) async throws -> PostgresStorage {
        guard let url else {
            Issue.record("LATCHKEY_TEST_POSTGRES_URL is not set: run the tests with scripts/test.sh, which starts PostgreSQL")
            throw CancellationError()
        }
        var settings = try PostgresSettings(url: url)
        settings.schema = "test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        settings.poolSize = poolSize
        // The contract's concurrency checks wait on each other's locks; with every suite
        // running at once on two cores, 5 s has not always been enough.
        settings.statementTimeout = 20_000
        return try await PostgresStorage(settings)
    }
}
