import Foundation
import IdentityCore
import StoragePostgres
import WebAuthn

// The PostgreSQL backend's statements against libpq's pgbench running the same statements,
// in the same run, on the same database: a point read (a passkey with its owner, what every
// login reads first) and an upsert (a rate-limit count, what every ceremony start writes).
// Both sides use the same number of concurrent clients; Latchkey's through its pool of the
// same size. Prints operations per second for each and the ratio.
//
// Usage: PostgresBenchmark postgres://user:password@host:port/database [--seconds N] [--clients N] [--accounts N]

struct Options {
    var url = ""
    var seconds = 10
    var clients = 16
    var accounts = 1000

    init(_ arguments: [String]) {
        var rest = arguments.dropFirst()
        url = rest.popFirst() ?? ""
        while let flag = rest.popFirst() {
            let value = Int(rest.popFirst() ?? "") ?? 0
            switch flag {
            case "--seconds": seconds = value
            case "--clients": clients = value
            case "--accounts": accounts = value
            default: fatalError("unknown option \(flag)")
            }
        }
        guard url.hasPrefix("postgres") else { fatalError("usage: PostgresBenchmark postgres://… [--seconds N] [--clients N] [--accounts N]") }
    }
}

/// The credential ID of seeded account `n`: `n` in hex, zero-padded to 16 bytes, which
/// pgbench's script builds with `decode(lpad(to_hex((:n)::bigint), 32, '0'), 'hex')`.
func credentialID(_ n: Int) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: 16)
    var value = UInt64(n)
    for index in stride(from: 15, through: 8, by: -1) {
        bytes[index] = UInt8(value & 0xFF)
        value >>= 8
    }
    return bytes
}

/// Runs `operation` from `clients` concurrent tasks for `seconds`; returns operations per second.
func measure(clients: Int, seconds: Int, _ operation: @escaping @Sendable (Int) async throws -> Void) async throws -> Double {
    let deadline = Date().addingTimeInterval(Double(seconds))
    let started = Date()
    let total = try await withThrowingTaskGroup(of: Int.self) { group in
        for client in 0..<clients {
            group.addTask {
                var count = 0
                var state = UInt64(client &+ 1) &* 0x9E37_79B9_7F4A_7C15
                while Date() < deadline {
                    state ^= state << 13; state ^= state >> 7; state ^= state << 17
                    try await operation(Int(state % 1_000_000))
                    count += 1
                }
                return count
            }
        }
        return try await group.reduce(0, +)
    }
    return Double(total) / Date().timeIntervalSince(started)
}

/// Runs pgbench with `script`, `transactions` per client; returns its transactions per
/// second. (A count rather than `-T`: pgbench times `-T` with SIGALRM, which a child of this
/// process may inherit blocked.)
func pgbench(url: String, schema: String, script: String, clients: Int, transactions: Int) throws -> Double {
    guard let components = URLComponents(string: url) else { fatalError("bad URL") }
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-pgbench-\(UUID().uuidString).sql")
    // pgbench needs the last command to end with a newline.
    try (script + "\n").write(to: file, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: file) }
    let binary = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql"))?.sorted().last.map { "/usr/lib/postgresql/\($0)/bin/pgbench" } ?? "pgbench"
    let process = Process()
    process.executableURL = URL(fileURLWithPath: binary)
    process.arguments = [
        "-n", "-M", "prepared", "-c", "\(clients)", "-j", "2", "-t", "\(transactions)", "-f", file.path,
        "-h", components.host ?? "127.0.0.1", "-p", "\(components.port ?? 5432)", "-U", components.user ?? "postgres", String(components.path.dropFirst()),
    ]
    var environment = ProcessInfo.processInfo.environment
    environment["PGPASSWORD"] = components.password ?? ""
    environment["PGOPTIONS"] = "-c search_path=\(schema)"
    process.environment = environment
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("tps = ") }),
        let tps = Double(line.dropFirst("tps = ".count).prefix { $0.isNumber || $0 == "." })
    else { fatalError("pgbench failed: \(output)") }
    return tps
}

let options = Options(CommandLine.arguments)
let schema = "bench_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
var settings = try PostgresSettings(url: options.url)
settings.schema = schema
settings.poolSize = max(1, options.clients / 2)
let storage = try await PostgresStorage(settings)

print("seeding \(options.accounts) accounts into schema \(schema)…")
let now = Date()
let random = SystemRandom()
for n in 0..<options.accounts {
    let user = User(
        id: UserID(rawValue: "user-\(n)"), userHandle: random.bytes(32), profile: UserProfile(email: "bench\(n)@bench.example"), createdAt: now, updatedAt: now
    )
    let credential = PasskeyCredential(
        credentialID: credentialID(n), userID: user.id, publicKey: random.bytes(77), algorithm: .es256, signCount: 0, isBackupEligible: true,
        isBackedUp: true, isUserVerified: true, transports: ["internal", "hybrid"], aaguid: .zero, attestationFormat: "none",
        isAttestationTrusted: false, relyingPartyID: "localhost", createdAt: now, recordID: UUIDText.random(random.bytes(16)), origin: nil
    )
    try await storage.createUser(user, credential: credential)
}

let accounts = options.accounts
let readScript = """
    \\set n random(0, \(accounts - 1))
    SELECT c.*, u.id AS u_id, u.user_handle AS u_user_handle, u.email AS u_email, u.phone_number AS u_phone_number, u.username AS u_username, u.name AS u_name, u.given_name AS u_given_name, u.family_name AS u_family_name, u.nickname AS u_nickname, u.picture AS u_picture, u.created_at AS u_created_at, u.updated_at AS u_updated_at FROM credentials c JOIN users u ON u.id = c.user_id WHERE c.id = decode(lpad(to_hex((:n)::bigint), 32, '0'), 'hex');
    """
let upsertScript = """
    \\set n random(0, \(accounts - 1))
    WITH counted AS (INSERT INTO request_counts (key, window_index, count, window_end) VALUES ('start:' || :n, 29000000, 1, 1740000060) ON CONFLICT (key, window_index) DO UPDATE SET count = request_counts.count + 1 RETURNING count) SELECT counted.count::bigint AS current, COALESCE((SELECT count FROM request_counts WHERE key = 'start:' || :n AND window_index = 29000000 - 1), 0)::bigint AS previous FROM counted;
    """
let window = Date(timeIntervalSince1970: 29_000_000 * 60 + 1)

print("point reads (a passkey with its owner), \(options.clients) clients, \(options.seconds) s each…")
let latchkeyReads = try await measure(clients: options.clients, seconds: options.seconds) { n in
    guard try await storage.credentialWithOwner(id: credentialID(n % accounts)) != nil else { fatalError("seeded credential \(n % accounts) missing") }
}
// pgbench runs about as long, with at least as many statements.
func perClient(_ rate: Double) -> Int { max(1000, Int(rate * Double(options.seconds) * 3 / Double(options.clients))) }
let pgbenchReads = try pgbench(url: options.url, schema: schema, script: readScript, clients: options.clients, transactions: perClient(latchkeyReads))
print("upserts (a rate-limit count)…")
let latchkeyUpserts = try await measure(clients: options.clients, seconds: options.seconds) { n in
    _ = try await storage.countRequest(key: "start:\(n % accounts)", window: 60, at: window)
}
let pgbenchUpserts = try pgbench(url: options.url, schema: schema, script: upsertScript, clients: options.clients, transactions: perClient(latchkeyUpserts))

func row(_ name: String, _ ours: Double, _ theirs: Double) -> String {
    String(format: "| %@ | %.0f | %.0f | %.2f× |", name, ours, theirs, ours / theirs)
}
print("")
print("| statement | Latchkey (postgres-nio) /s | pgbench (libpq, prepared) /s | ratio |")
print("|---|---|---|---|")
print(row("point read: passkey with owner", latchkeyReads, pgbenchReads))
print(row("upsert: rate-limit count", latchkeyUpserts, pgbenchUpserts))
storage.close()
