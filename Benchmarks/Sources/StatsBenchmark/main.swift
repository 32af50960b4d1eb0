import Foundation
import IdentityCore
import StoragePostgres
import StorageSQLite

// The console's overview against a large audit trail: what one page view reads (30 days of
// rollups, the events since the last rollup, and the accounts active in those days), on
// SQLite and on PostgreSQL, after the trail was rolled up. The trail is seeded in one
// statement by the database's own command line tool (sqlite3, psql), spread over `--days`
// days in the mix the core writes: passkey, password and recovery sign-ins, sign-ups, and
// refusals. Prints the rollup's rate and the page's reads' median and 95th percentile.
//
// Usage: StatsBenchmark [--events N] [--days N] [--accounts N] [--postgres postgres://…]

struct Options {
    var events = 10_000_000
    var days = 120
    var accounts = 200_000
    var postgres: String?

    init(_ arguments: [String]) {
        var rest = arguments.dropFirst()
        while let flag = rest.popFirst() {
            let value = rest.popFirst() ?? ""
            switch flag {
            case "--events": events = Int(value) ?? events
            case "--days": days = Int(value) ?? days
            case "--accounts": accounts = Int(value) ?? accounts
            case "--postgres": postgres = value
            default: fatalError("usage: StatsBenchmark [--events N] [--days N] [--accounts N] [--postgres postgres://…]")
            }
        }
    }
}

/// The seeding statement: `events` rows, the newest a few minutes old, each kind in its share
/// and each passkey sign-in's detail as the core writes it. `rows` is the database's row
/// source of `i` from 0.
func seedSQL(events: Int, days: Int, accounts: Int, rows: String) -> String {
    let now = Date().timeIntervalSince1970 - 600
    let step = Double(days) * 86_400 / Double(events)
    return """
        INSERT INTO audit_events (time, kind, user_id, client_id, detail)
        SELECT \(now) - (\(events) - i) * \(step),
          CASE WHEN i % 20 < 12 THEN 'login' WHEN i % 20 < 14 THEN 'login' WHEN i % 20 = 14 THEN 'account_recovered'
               WHEN i % 20 = 15 THEN 'signup' WHEN i % 20 < 18 THEN 'login_failed' ELSE 'token_refreshed' END,
          'user-' || (i % \(accounts)), 'app',
          CASE WHEN i % 20 < 6 THEN 'passkey fbfc3007-154e-4ecc-8c0b-6e020557d7bd; synced'
               WHEN i % 20 < 10 THEN 'passkey ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4; synced; cross-device'
               WHEN i % 20 < 12 THEN 'passkey 00000000-0000-0000-0000-000000000000; device-bound'
               WHEN i % 20 < 14 THEN 'password' WHEN i % 20 = 14 THEN 'saved code'
               WHEN i % 20 = 16 THEN 'bad_signature: the signature does not verify' WHEN i % 20 = 17 THEN 'unknown credential' ELSE '' END
        FROM \(rows)
        """
}

func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { fatalError("\(executable) failed (\(process.terminationStatus))") }
}

func seconds(_ body: () async throws -> Void) async rethrows -> Double {
    let start = ContinuousClock.now
    try await body()
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

/// Rolls the trail up, then times the overview's reads (`runs` times), with nothing and with
/// `tail` events not rolled up yet.
func measure(_ name: String, store: any StatsStore & AuditLog, options: Options) async throws {
    let stats = StatsService(store: store, clock: SystemClock())
    var counted = 0
    let rollup = try await seconds { counted = try await stats.rollUp() }
    print("\(name): rolled up \(counted) events in \(String(format: "%.1f", rollup)) s (\(Int(Double(counted) / rollup)) events/s)")
    for tail in [0, 2_000] {
        for index in 0..<tail {
            try await store.record(AuditEvent(time: Date(), kind: .login, userID: UserID(rawValue: "user-\(index)"), detail: "password", origin: nil))
        }
        var times: [Double] = []
        var signIns: Int64 = 0
        for _ in 0..<30 {
            times.append(try await seconds {
                let now = Date()
                let (intervals, _) = try await stats.overview(from: now.addingTimeInterval(-29 * 86_400), to: now)
                signIns = intervals.reduce(0) { $0 + $1.signIns }
            })
        }
        times.sort()
        print(String(
            format: "%@: overview reads with %d events since the rollup: median %.1f ms, p95 %.1f ms (%lld sign-ins in 30 days)",
            name, tail, times[times.count / 2] * 1000, times[times.count * 95 / 100] * 1000, signIns
        ))
    }
}

let options = Options(CommandLine.arguments)
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-stats-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

// SQLite: the schema by the storage, the rows by sqlite3.
let path = directory.appendingPathComponent("latchkey.sqlite").path
try SQLiteStorage(path: path).close()
print("SQLite: seeding \(options.events) events over \(options.days) days…")
let sqliteSeed = try await seconds {
    let rows = "(WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < \(options.events - 1)) SELECT i FROM n)"
    try run("/usr/bin/sqlite3", [path, seedSQL(events: options.events, days: options.days, accounts: options.accounts, rows: rows)])
}
print("SQLite: seeded in \(Int(sqliteSeed)) s")
let sqlite = try SQLiteStorage(path: path)
try await measure("SQLite", store: sqlite, options: options)
try sqlite.close()

// PostgreSQL: a schema of its own, the rows by psql.
if let url = options.postgres {
    let schema = "stats_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
    var settings = try PostgresSettings(url: url)
    settings.schema = schema
    let postgres = try await PostgresStorage(settings)
    print("PostgreSQL: seeding \(options.events) events into schema \(schema)…")
    guard let components = URLComponents(string: url) else { fatalError("bad URL") }
    let psql = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql"))?.sorted().last.map { "/usr/lib/postgresql/\($0)/bin/psql" } ?? "/usr/bin/psql"
    let seed = try await seconds {
        try run(psql, [
            "-q", "-v", "ON_ERROR_STOP=1", "-h", components.host ?? "127.0.0.1", "-p", "\(components.port ?? 5432)", "-U", components.user ?? "postgres",
            String(components.path.dropFirst()), "-c",
            "SET search_path = \(schema); " + seedSQL(events: options.events, days: options.days, accounts: options.accounts, rows: "generate_series(0, \(options.events - 1)) AS i")
                + "; ANALYZE audit_events",
        ], environment: ["PGPASSWORD": components.password ?? ""])
    }
    print("PostgreSQL: seeded in \(Int(seed)) s")
    try await measure("PostgreSQL", store: postgres, options: options)
    postgres.close()
}
