import Authenticator
import Foundation
import WebAuthn

// What a deployment can carry, for the capacity guide (docs/deploying.md, "Capacity"): a real
// `latchkey serve` on SQLite or on a PostgreSQL database, driven through the Auth0-shaped API
// by concurrent clients, in three phases: sign-ups (each with a refresh token), logins, and
// refresh-token rotations. Each phase reports operations per second, p50 and p99 latency, and
// the CPU it cost: the server's, and with `--db-pid` PostgreSQL's (the postmaster and every
// process under it), so that operations per busy vCPU can be read off. On PostgreSQL, given
// `psql`, it also reads the write-ahead log written and the commits per login.
//
// Usage: ServerBenchmark capacity SERVER_BINARY [--database sqlite|postgres://…] [--db-pid PID]
//            [--users N] [--logins N] [--refreshes N] [--concurrency N] [--id-token ES256|RS256]
//
// The PostgreSQL database should be empty (a new one per run): the sign-ups' emails are fixed.
// The load generator runs in this process and takes CPU of its own; on a machine it shares
// with the server, the operations per busy vCPU are the figure that carries over.

enum Capacity {
    struct Options {
        var binary = ""
        var database = "sqlite"
        var databasePID: Int32?
        var users = 1000
        var logins = 20000
        var refreshes = 10000
        var concurrency = 32
        var idToken = "ES256"

        init(_ arguments: [String]) throws {
            var rest = arguments[...]
            binary = rest.popFirst() ?? ""
            while let flag = rest.popFirst() {
                guard let text = rest.popFirst() else { throw BenchmarkError("\(flag) needs a value") }
                switch flag {
                case "--database": database = text
                case "--db-pid": databasePID = Int32(text)
                case "--users": users = Int(text) ?? 0
                case "--logins": logins = Int(text) ?? 0
                case "--refreshes": refreshes = Int(text) ?? 0
                case "--concurrency": concurrency = Int(text) ?? 0
                case "--id-token": idToken = text
                default: throw BenchmarkError("unknown option \(flag)")
                }
            }
            guard !binary.isEmpty, users >= concurrency, concurrency > 0, ["ES256", "RS256"].contains(idToken) else {
                throw BenchmarkError(
                    "usage: ServerBenchmark capacity SERVER_BINARY [--database sqlite|postgres://…] [--db-pid PID] [--users N] [--logins N] [--refreshes N] [--concurrency N] [--id-token ES256|RS256] (users at least concurrency)"
                )
            }
        }

        var isPostgres: Bool { database.hasPrefix("postgres://") || database.hasPrefix("postgresql://") }
    }

    /// A phase's figures, with the database's CPU beside the server's.
    struct Measured {
        let phase: Phase
        let databaseCPU: Double?

        func report() {
            let seconds = phase.seconds, count = Double(phase.count)
            let sorted = phase.latencies.sorted()
            let busy = (phase.serverCPU + (databaseCPU ?? 0)) / seconds
            var line = String(
                format: "%@ %6.0f/s  p50 %6.2f ms  p99 %6.2f ms  server %.2f cores (%.0f µs each)",
                phase.name.padding(toLength: 10, withPad: " ", startingAt: 0), count / seconds, percentile(sorted, 0.5) * 1000,
                percentile(sorted, 0.99) * 1000, phase.serverCPU / seconds, phase.serverCPU / count * 1e6
            )
            if let databaseCPU {
                line += String(format: "  database %.2f cores (%.0f µs each)", databaseCPU / seconds, databaseCPU / count * 1e6)
            }
            line += String(format: "  = %.0f per busy vCPU", count / seconds / busy)
            print(line)
        }
    }

    /// Each user's passkey and latest refresh token, used by one client thread at a time.
    final class Accounts: @unchecked Sendable {
        private let lock = NSLock()
        private var credentials: [Int: SoftwareCredential] = [:]
        private var refreshTokens: [Int: String] = [:]

        func store(_ credential: SoftwareCredential, at index: Int) { lock.withLock { credentials[index] = credential } }
        func credential(_ index: Int) -> SoftwareCredential? { lock.withLock { credentials[index] } }
        func store(refreshToken: String, at index: Int) { lock.withLock { refreshTokens[index] = refreshToken } }
        func refreshToken(_ index: Int) -> String? { lock.withLock { refreshTokens[index] } }
    }

    static func run(_ options: Options) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-capacity-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = options.isPostgres ? options.database : "sqlite:" + directory.appendingPathComponent("capacity.sqlite").path
        let configuration = """
            clients:
              - { client_id: demo, name: Capacity, grant_types: [webauthn, refresh_token], id_token_signed_response_alg: \(options.idToken) }
            limits: { ceremony_starts_per_minute: 0, ceremony_finishes_per_minute: 0, identifier_attempts_per_minute: 0, ceremony_failures_per_minute: 0 }
            """
        let (server, port) = try startServer(binary: options.binary, directory: directory, database: database, configuration: configuration)
        defer { server.terminate() }
        let pid = server.processIdentifier
        let databaseCPU: () -> Double? = { options.databasePID.map(treeCPUSeconds(root:)) }
        print("""
            server \(options.binary) on port \(port), \(options.isPostgres ? "PostgreSQL" : "SQLite"), \(options.concurrency) clients, \
            \(options.users) accounts, ID tokens \(options.idToken), \(ProcessInfo.processInfo.activeProcessorCount) cores
            """)

        let authenticator = SoftwareAuthenticator()
        let accounts = Accounts()
        let origin = "http://localhost:8080"
        func measured(_ name: String, total: Int, _ operation: @escaping @Sendable (HTTPConnection, Int) throws -> Void) throws -> Measured {
            let before = databaseCPU()
            let phase = try ServerBenchmark.run(name, total: total, concurrency: options.concurrency, port: port, serverPID: pid, operation: operation)
            return Measured(phase: phase, databaseCPU: before.flatMap { start in databaseCPU().map { $0 - start } })
        }
        // Users are taken modulo a multiple of the client count, so each belongs to one client.
        let cycle = options.users / options.concurrency * options.concurrency
        let signups = try measured("sign-up", total: options.users) { http, index in
            let (credential, reply) = try passkeySignup(http, email: "capacity\(index)@bench.example", authenticator: authenticator, origin: origin)
            let tokens = try reply.json()
            accounts.store(credential, at: index)
            accounts.store(refreshToken: tokens["refresh_token"] as? String ?? "", at: index)
        }
        let walBefore = options.isPostgres ? walCounters(options.database) : nil
        let logins = try measured("login", total: options.logins) { http, index in
            let user = index % cycle
            guard var credential = accounts.credential(user) else { return }
            try passkeyLogin(http, &credential, authenticator: authenticator, origin: origin)
            accounts.store(credential, at: user)
        }
        let walAfter = options.isPostgres ? walCounters(options.database) : nil
        let refreshes = try measured("refresh", total: options.refreshes) { http, index in
            let user = index % cycle
            guard let token = accounts.refreshToken(user) else { return }
            let tokens = try expect(http.send("POST", "/oauth/token", object: ["grant_type": "refresh_token", "client_id": "demo", "refresh_token": token])).json()
            accounts.store(refreshToken: tokens["refresh_token"] as? String ?? "", at: user)
        }
        for phase in [signups, logins, refreshes] { phase.report() }
        if let walBefore, let walAfter {
            let count = Double(options.logins)
            print(String(
                format: "per login on PostgreSQL: %.0f bytes of WAL, %.2f commits, %.2f WAL flushes",
                Double(walAfter.bytes - walBefore.bytes) / count, Double(walAfter.commits - walBefore.commits) / count,
                Double(walAfter.flushes - walBefore.flushes) / count
            ))
        } else if options.isPostgres {
            print("(psql not found or the database not readable: no WAL figures)")
        }
    }

    /// PostgreSQL's write-ahead-log position, commits and WAL flushes, read with `psql`;
    /// `nil` when it cannot be read.
    static func walCounters(_ url: String) -> (bytes: Int64, commits: Int64, flushes: Int64)? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "psql", url, "-XAtq", "-F", " ", "-c",
            "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint, (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()), (SELECT wal_sync FROM pg_stat_wal)",
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let fields = output.split(whereSeparator: \.isWhitespace).compactMap { Int64($0) }
        guard process.terminationStatus == 0, fields.count == 3 else { return nil }
        return (fields[0], fields[1], fields[2])
    }

    /// CPU seconds of a process and every process under it, from /proc.
    static func treeCPUSeconds(root: Int32) -> Double {
        var parents: [Int32: Int32] = [:]
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 2, let parent = Int32(fields[1]) { parents[pid] = parent }
        }
        func descends(_ pid: Int32) -> Bool {
            var current = pid
            while let parent = parents[current], current != root, parent > 1 { current = parent }
            return current == root
        }
        // Children that ended count through the parent's cutime/cstime.
        return parents.keys.filter(descends).reduce(0) { $0 + cpuSeconds(pid: $1, includingReaped: $1 == root) }
    }
}
