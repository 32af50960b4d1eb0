import IdentityCore
import IdentityTestSupport
import StoragePostgres
import StorageSQLite
import Testing

/// The one storage contract, run against every backend.
@Suite struct StorageContractTests {
    @Test(arguments: StorageContract.Check.allCases)
    func inMemory(_ check: StorageContract.Check) async throws {
        try await StorageContract.run(check, on: InMemoryStorage())
    }

    @Test(arguments: StorageContract.Check.allCases)
    func sqliteFile(_ check: StorageContract.Check) async throws {
        try await withTemporaryDirectory { directory in
            let storage = try SQLiteStorage(path: directory.appendingPathComponent("latchkey.sqlite").path)
            try await StorageContract.run(check, on: storage)
            try storage.close()
        }
    }

    @Test(arguments: StorageContract.Check.allCases)
    func sqliteInMemory(_ check: StorageContract.Check) async throws {
        try await StorageContract.run(check, on: SQLiteStorage.inMemory())
    }

    @Test(
        .enabled(if: PostgresTestDatabase.runs, "LATCHKEY_TEST_POSTGRES_URL is not set (scripts/test.sh starts PostgreSQL and sets it)"),
        arguments: StorageContract.Check.allCases
    )
    func postgres(_ check: StorageContract.Check) async throws {
        let storage = try await PostgresTestDatabase.freshStorage()
        defer { storage.close() }
        try await StorageContract.run(check, on: storage)
    }
}
