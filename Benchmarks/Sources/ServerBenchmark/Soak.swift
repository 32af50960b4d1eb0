import Authenticator
import Foundation
import WebAuthn

// The soak: a real `latchkey serve` under mixed traffic for many minutes, sampling the
// server's memory and the database's size every minute, to show that both level off once
// the retention windows have turned over. Nine requests in ten are a person's: logins
// (with a refresh token), refreshes and userinfo calls. One in ten is abuse: logins
// started again and again for one victim's username (refused by the per-identifier limit),
// assertions that do not verify, unknown and replayed auth_sessions, bodies that are not
// JSON, and sign-up probes of a taken email. The windows are short (two minutes of audit
// events and refresh sessions, one-minute ceremonies) so that they turn over within the run;
// with the defaults the same curves level off after 90 days instead.
//
// Usage: ServerBenchmark soak SERVER_BINARY [--minutes N] [--rate OPERATIONS_PER_SECOND] [--users N]

enum Soak {
    struct Options {
        var binary = ""
        var minutes = 20
        var rate = 300
        var users = 200

        init(_ arguments: [String]) {
            var rest = arguments[...]
            binary = rest.popFirst() ?? ""
            while let flag = rest.popFirst() {
                let value = Int(rest.popFirst() ?? "") ?? 0
                switch flag {
                case "--minutes": minutes = value
                case "--rate": rate = value
                case "--users": users = value
                default: fatalError("unknown option \(flag)")
                }
            }
        }
    }

    static let configuration = """
        passkeys: { ceremony_lifetime: 60s }
        tokens: { refresh_token_lifetime: 2m, refresh_token_absolute_lifetime: 2m }
        audit: { retention: 2m }
        limits: { ceremony_starts_per_minute: 0, ceremony_finishes_per_minute: 0, identifier_attempts_per_minute: 20, ceremony_failures_per_minute: 0 }
        """

    /// Requests by outcome, from every worker.
    final class Tally: @unchecked Sendable {
        private let lock = NSLock()
        private var counts: [String: Int] = [:]

        func add(_ key: String) { lock.withLock { counts[key, default: 0] += 1 } }
        func take() -> [String: Int] { lock.withLock { defer { counts = [:] }; return counts } }
    }

    static func run(_ options: Options) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-soak-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("soak.sqlite").path
        let (server, port) = try startServer(binary: options.binary, directory: directory, database: "sqlite:" + database, configuration: configuration)
        defer { server.terminate() }
        let pid = server.processIdentifier
        let authenticator = SoftwareAuthenticator()
        let users = Users()
        let origin = "http://localhost:8080"
        print("soak: \(options.binary) on port \(port), \(options.minutes) min at about \(options.rate) operations/s, \(options.users) accounts")

        // The accounts, then one refresh token each.
        let setup = try HTTPConnection(port: port)
        var refreshTokens: [String] = []
        for index in 0..<options.users {
            let body = Array(#"{"client_id":"demo","user_profile":{"email":"soak\#(index)@soak.example"}}"#.utf8)
            let start = try JSONDecoder().decode(
                ChallengeAnswer<PublicKeyCredentialCreationOptionsJSON>.self, from: Data(expect(setup.send("POST", "/passkey/register", json: body)).body)
            )
            let (response, credential) = try authenticator.makeCredential(start.authn_params_public_key, origin: origin)
            let tokens = try expect(setup.send("POST", "/oauth/token", json: try tokenRequest(authSession: start.auth_session, response: response))).json()
            refreshTokens.append(tokens["refresh_token"] as? String ?? "")
            users.store(credential, at: index)
        }

        let tally = Tally()
        let stop = Date().addingTimeInterval(Double(options.minutes) * 60)
        let workers = 8
        // Each worker paces itself to its share of the rate.
        let interval = Double(workers) / Double(max(1, options.rate))
        var threads: [Thread] = []
        for worker in 0..<workers {
            let abusive = worker == 0 && workers >= 2
            let assigned = refreshTokens.enumerated().filter { $0.offset % workers == worker }.map(\.element)
            threads.append(Thread {
                var ownRefreshTokens = assigned
                var http = try? HTTPConnection(port: port)
                var step = 0
                while Date() < stop {
                    let began = Date()
                    step += 1
                    do {
                        guard let connection = http else { throw BenchmarkError("no connection") }
                        let status: Int
                        if abusive {
                            // One worker of eight, a little slower than the others, makes
                            // about one operation in ten an abusive one.
                            status = try abuse(connection, step: step, users: options.users)
                        } else {
                            status = try person(
                                connection, step: step, worker: worker, workers: workers, users: users, refreshTokens: &ownRefreshTokens,
                                authenticator: authenticator, origin: origin
                            )
                        }
                        tally.add((abusive ? "abuse " : "person ") + String(status))
                    } catch {
                        tally.add(abusive ? "abuse error" : "person error")
                        http = try? HTTPConnection(port: port)
                    }
                    let pause = (abusive ? interval * 1.25 : interval) - Date().timeIntervalSince(began)
                    if pause > 0 { Thread.sleep(forTimeInterval: pause) }
                }
            })
        }
        threads.forEach { $0.start() }

        print("minute  server RSS MiB  database MiB (file + WAL)  requests: by outcome")
        var samples: [(rss: Double, database: Double)] = []
        for minute in 1...options.minutes {
            Thread.sleep(until: stop.addingTimeInterval(Double(minute - options.minutes) * 60))
            let rss = residentMiB(pid: pid)
            let size = databaseMiB(database)
            samples.append((rss, size))
            let counts = tally.take().sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
            print(String(format: "%6d  %14.1f  %25.1f  %@", minute, rss, size, counts))
        }
        Thread.sleep(forTimeInterval: 2)
        let firstHalf = samples.prefix(samples.count / 2), secondHalf = samples.suffix(samples.count / 2)
        if let peakEarly = firstHalf.map(\.rss).max(), let peakLate = secondHalf.map(\.rss).max(),
            let dbEarly = firstHalf.map(\.database).max(), let dbLate = secondHalf.map(\.database).max()
        {
            print(String(
                format: "peak RSS %.1f MiB in the first half, %.1f MiB in the second; peak database %.1f MiB, then %.1f MiB",
                peakEarly, peakLate, dbEarly, dbLate
            ))
        }
    }

    /// A person: a login (with a new refresh token), a refresh, or a userinfo call.
    static func person(
        _ http: HTTPConnection, step: Int, worker: Int, workers: Int, users: Users, refreshTokens: inout [String],
        authenticator: SoftwareAuthenticator, origin: String
    ) throws -> Int {
        let slot = step % max(1, refreshTokens.count)
        switch step % 20 {
        case 0, 1, 2:
            // Refresh: rotate this worker's token for one account.
            guard !refreshTokens.isEmpty else { return 0 }
            let reply = try http.send("POST", "/oauth/token", object: ["grant_type": "refresh_token", "client_id": "demo", "refresh_token": refreshTokens[slot]])
            if reply.status == 200, let next = try reply.json()["refresh_token"] as? String { refreshTokens[slot] = next }
            return reply.status
        case 3:
            return try http.send("GET", "/.well-known/jwks.json").status
        default:
            // A login with one of this worker's accounts, so each counter only increases.
            let user = worker + workers * (step % max(1, refreshTokens.count))
            guard var credential = users.take(user) else { return 0 }
            let reply = try expect(http.send("POST", "/passkey/challenge", json: Array(#"{"client_id":"demo"}"#.utf8)))
            let start = try JSONDecoder().decode(ChallengeAnswer<PublicKeyCredentialRequestOptionsJSON>.self, from: Data(reply.body))
            let assertion = try authenticator.getAssertion(start.authn_params_public_key, origin: origin, credential: &credential)
            let finish = try http.send("POST", "/oauth/token", json: try tokenRequest(authSession: start.auth_session, response: assertion))
            if finish.status == 200 {
                users.store(credential, at: user)
                // The session to refresh from now on: the earlier one ends with its lifetime.
                if let token = try finish.json()["refresh_token"] as? String { refreshTokens[slot] = token }
            }
            return finish.status
        }
    }

    /// Abuse, five kinds in turn; every answer must be a 4xx.
    static func abuse(_ http: HTTPConnection, step: Int, users: Int) throws -> Int {
        switch step % 5 {
        case 0:
            // The victim's username, again and again: the identifier limit answers 429.
            return try http.send("POST", "/passkey/challenge", json: Array(#"{"client_id":"demo","username":"soak0@soak.example"}"#.utf8)).status
        case 1:
            // A real challenge answered with an assertion that does not verify.
            let reply = try expect(http.send("POST", "/passkey/challenge", json: Array(#"{"client_id":"demo"}"#.utf8)))
            let session = try reply.json()["auth_session"] as? String ?? ""
            let forged = #"{"grant_type":"urn:okta:params:oauth:grant-type:webauthn","client_id":"demo","auth_session":"\#(session)","authn_response":{"id":"AAAAAAAAAAAAAAAAAAAAAA","rawId":"AAAAAAAAAAAAAAAAAAAAAA","type":"public-key","response":{"clientDataJSON":"e30","authenticatorData":"AAAA","signature":"MEUCIQ"}}}"#
            return try http.send("POST", "/oauth/token", json: Array(forged.utf8)).status
        case 2:
            // An auth_session that was never issued.
            let made = #"{"grant_type":"urn:okta:params:oauth:grant-type:webauthn","client_id":"demo","auth_session":"\#(Base64URL.encode((0..<48).map { _ in UInt8.random(in: 0...255) }))","authn_response":{}}"#
            return try http.send("POST", "/oauth/token", json: Array(made.utf8)).status
        case 3:
            return try http.send("POST", "/oauth/token", json: Array("{\"grant_type\": ".utf8)).status
        default:
            // Probing whether an email has an account.
            let probe = #"{"client_id":"demo","user_profile":{"email":"soak\#(step % max(1, users))@soak.example"}}"#
            return try http.send("POST", "/passkey/register", json: Array(probe.utf8)).status
        }
    }

    /// The process's resident memory, from /proc.
    static func residentMiB(pid: Int32) -> Double {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
        else { return 0 }
        return kilobytes / 1024
    }

    /// The database file and its write-ahead log.
    static func databaseMiB(_ path: String) -> Double {
        [path, path + "-wal"].reduce(0) { total, file in
            total + Double((try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0) / 1_048_576
        }
    }
}
