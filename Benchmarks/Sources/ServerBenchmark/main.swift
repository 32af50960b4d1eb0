import Authenticator
import Crypto
import Foundation
import IdentityCore
import StorageSQLite
import WebAuthn

// Drives a real `latchkey serve` process over loopback with concurrent clients: sign-ups,
// then complete logins (challenge, sign, token), the same logins through the Kratos face
// (flow, sign, session token) and the IDaaS face (challenge, sign, token), then the hosted
// pages: a complete browser sign-in (page, options, assertion, session cookie) and page
// loads of /login and /account. Reports operations per second, latency percentiles, the
// server's CPU time per operation, and raw P-256 verifies per second from this run. Last,
// password sign-ins one at a time: wrong password, unknown email and passkey-only account
// must take about as long as each other, so that the time does not tell them apart.
//
// Each client is a thread with one keep-alive connection and blocking I/O (HTTPConnection),
// so the client costs a fraction of what the server does per request.
//
// Usage: ServerBenchmark SERVER_BINARY [--concurrency N] [--signups N] [--logins N] [--pages N] [--seed N] [--passwords N]
//        (add --telemetry URL --sample-ratio R to export OpenTelemetry to the OTLP/HTTP collector at URL)
//        ServerBenchmark seed DATABASE_FILE N     (seeds only, for other load generators)
//        ServerBenchmark soak SERVER_BINARY [--minutes N] [--rate N] [--users N]   (see Soak.swift)
//        ServerBenchmark capacity SERVER_BINARY [--database sqlite|postgres://…] [--db-pid PID] …   (see Capacity.swift)

struct Options {
    var binary = ""
    var concurrency = 32
    var signups = 1000
    var logins = 20000
    var pages = 10000
    var seed = 0
    var passwords = 60
    /// An OTLP/HTTP collector to export telemetry to, at `sampleRatio`: what tracing costs.
    var telemetry: String?
    var sampleRatio = "1"

    init(_ arguments: [String]) {
        var rest = arguments.dropFirst()
        binary = rest.popFirst() ?? ""
        while let flag = rest.popFirst() {
            let text = rest.popFirst() ?? ""
            let value = Int(text) ?? 0
            switch flag {
            case "--telemetry": telemetry = text
            case "--sample-ratio": sampleRatio = text
            case "--concurrency": concurrency = value
            case "--signups": signups = value
            case "--logins": logins = value
            case "--pages": pages = value
            case "--seed": seed = value
            case "--passwords": passwords = value
            default: fatalError("unknown option \(flag)")
            }
        }
    }
}

/// CPU seconds (user + system) a process has used, from /proc; with `includingReaped`, also
/// what its children that have ended used.
func cpuSeconds(pid: Int32, includingReaped: Bool = false) -> Double {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
    else { return 0 }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    var ticks = (Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)
    if includingReaped { ticks += (Double(fields[13]) ?? 0) + (Double(fields[14]) ?? 0) }
    return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}

/// Seeds `count` accounts, each with one passkey, straight into the database: the scale
/// test's registered credentials. The passkeys' keys are one real key, as no one signs in
/// with them.
func seed(database path: String, count: Int) async throws {
    let storage = try SQLiteStorage(path: path)
    defer { try? storage.close() }
    let random = SystemRandom()
    let publicKey = P256.Signing.PrivateKey().publicKey.x963Representation
    let cose: [UInt8] = [0xA5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20] + Array(publicKey.dropFirst().prefix(32)) + [0x22, 0x58, 0x20] + Array(publicKey.suffix(32))
    let now = Date()
    let started = Date()
    for index in 0..<count {
        let user = User(
            id: UserID(rawValue: Base64URL.encode(random.bytes(16))), userHandle: random.bytes(32),
            profile: UserProfile(email: "seed\(index)@seed.example"), createdAt: now, updatedAt: now
        )
        let credential = PasskeyCredential(
            credentialID: random.bytes(32), userID: user.id, publicKey: cose, algorithm: .es256, signCount: 0, isBackupEligible: true,
            isBackedUp: true, isUserVerified: true, transports: ["internal", "hybrid"], aaguid: .zero, attestationFormat: "none",
            isAttestationTrusted: false, relyingPartyID: "localhost", createdAt: now, recordID: UUIDText.random(random.bytes(16)), origin: nil
        )
        try await storage.createUser(user, credential: credential)
        if (index + 1) % 100_000 == 0 {
            print(String(format: "seeded %d of %d accounts (%.0f s)", index + 1, count, Date().timeIntervalSince(started)))
        }
    }
}

/// Starts the server on a free port with `database` (`sqlite:PATH` or a PostgreSQL URL).
/// One load generator on one address is exactly what the rate limits refuse; a benchmark
/// measures the server, so they are off.
func startServer(
    binary: String, directory: URL, database: String, configuration yaml: String = "limits: { ceremony_starts_per_minute: 0, ceremony_finishes_per_minute: 0, identifier_attempts_per_minute: 0, ceremony_failures_per_minute: 0 }",
    extra: String = ""
) throws -> (Process, Int) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: binary)
    let configuration = directory.appendingPathComponent("bench.yaml").path
    try (yaml + "\n" + extra + "\n").write(toFile: configuration, atomically: true, encoding: .utf8)
    process.arguments = ["serve", "--port", "0", "--config", configuration, "--database", database]
    process.currentDirectoryURL = directory
    var environment = ProcessInfo.processInfo.environment
    environment["LATCHKEY_LOG_LEVEL"] = "info"
    process.environment = environment
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    var output = ""
    let deadline = Date().addingTimeInterval(60)
    while Date() < deadline {
        output += String(decoding: pipe.fileHandleForReading.availableData, as: UTF8.self)
        if let range = output.range(of: "listening on http://127.0.0.1:"), let port = Int(output[range.upperBound...].prefix { $0.isNumber }) {
            // The server logs a line per security event; drain them so that it never blocks
            // on a full pipe.
            let handle = pipe.fileHandleForReading
            Thread.detachNewThread { while !handle.availableData.isEmpty {} }
            return (process, port)
        }
    }
    fatalError("server did not start: \(output)")
}

struct Phase {
    let name: String
    let count: Int
    let seconds: Double
    let latencies: [Double]
    let serverCPU: Double

    var microsecondsPerOperation: Double { serverCPU / Double(count) * 1_000_000 }

    func report() {
        let sorted = latencies.sorted()
        print(String(
            format: "%@ %7d in %6.2f s = %7.1f/s   p50 %6.2f ms  p99 %6.2f ms   server %5.2f cores, %6.0f µs CPU each",
            name.padding(toLength: 15, withPad: " ", startingAt: 0), count, seconds, Double(count) / seconds,
            percentile(sorted, 0.5) * 1000, percentile(sorted, 0.99) * 1000, serverCPU / seconds, microsecondsPerOperation
        ))
    }
}

/// Runs `total` operations over `concurrency` client threads, each with its own connection.
func run(_ name: String, total: Int, concurrency: Int, port: Int, serverPID: Int32, operation: @escaping @Sendable (HTTPConnection, Int) throws -> Void) throws -> Phase {
    let results = Results()
    let threads = (0..<concurrency).map { worker in
        Thread {
            do {
                let connection = try HTTPConnection(port: port)
                var latencies: [Double] = []
                var index = worker
                while index < total {
                    let began = DispatchTime.now().uptimeNanoseconds
                    try operation(connection, index)
                    latencies.append(Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9)
                    index += concurrency
                }
                results.add(latencies)
            } catch {
                results.fail(error)
            }
        }
    }
    let cpuBefore = cpuSeconds(pid: serverPID)
    let start = Date()
    threads.forEach { $0.start() }
    results.wait(for: concurrency)
    let seconds = Date().timeIntervalSince(start)
    if let error = results.error { throw BenchmarkError("\(name): \(error)") }
    return Phase(name: name, count: total, seconds: seconds, latencies: results.latencies, serverCPU: cpuSeconds(pid: serverPID) - cpuBefore)
}

/// What the client threads report.
final class Results: @unchecked Sendable {
    private let condition = NSCondition()
    private(set) var latencies: [Double] = []
    private(set) var error: (any Error)?
    private var finished = 0

    func add(_ more: [Double]) { condition.withLock { latencies += more; finished += 1; condition.signal() } }
    func fail(_ failure: any Error) { condition.withLock { error = error ?? failure; finished += 1; condition.signal() } }
    func wait(for count: Int) { condition.withLock { while finished < count { condition.wait() } } }
}

/// The client's side of the ceremonies: each user's passkey, used by one thread at a time.
final class Users: @unchecked Sendable {
    private let lock = NSLock()
    private var credentials: [Int: SoftwareCredential] = [:]

    func store(_ credential: SoftwareCredential, at index: Int) { lock.withLock { credentials[index] = credential } }
    func take(_ index: Int) -> SoftwareCredential? { lock.withLock { credentials[index] } }
}

/// Raw P-256 verifications per second on one core, as the baseline.
func rawP256VerifiesPerSecond() throws -> Double {
    let key = P256.Signing.PrivateKey()
    let message = Data((0..<69).map { UInt8($0) })
    let signature = try key.signature(for: message).derRepresentation
    let publicKey = key.publicKey
    let start = Date()
    var count = 0
    while Date().timeIntervalSince(start) < 3 {
        for _ in 0..<100 {
            let parsed = try P256.Signing.ECDSASignature(derRepresentation: signature)
            precondition(publicKey.isValidSignature(parsed, for: SHA256.hash(data: message)))
        }
        count += 100
    }
    return Double(count) / Date().timeIntervalSince(start)
}

func encoded(_ value: some Encodable) throws -> Any {
    try JSONSerialization.jsonObject(with: JSONEncoder().encode(value))
}

/// A challenge answer of the Auth0-shaped API, decoded in one step.
struct ChallengeAnswer<Options: Decodable>: Decodable {
    let authn_params_public_key: Options
    let auth_session: String
}

/// The webauthn grant's body, written directly: the client's share of each ceremony stays
/// small next to the server's.
func tokenRequest(authSession: String, response: some Encodable) throws -> [UInt8] {
    Array(#"{"grant_type":"urn:okta:params:oauth:grant-type:webauthn","client_id":"demo","scope":"\#(scope)","auth_session":"\#(authSession)","authn_response":"#.utf8)
        + Array(try JSONEncoder().encode(response)) + [UInt8(ascii: "}")]
}

/// One passkey sign-up at the Auth0-shaped API (options, attestation, token request): the new
/// passkey, and the token response.
func passkeySignup(_ http: HTTPConnection, email: String, authenticator: SoftwareAuthenticator, origin: String) throws -> (SoftwareCredential, HTTPConnection.Response) {
    let body = Array(#"{"client_id":"demo","user_profile":{"email":"\#(email)"}}"#.utf8)
    let start = try JSONDecoder().decode(ChallengeAnswer<PublicKeyCredentialCreationOptionsJSON>.self, from: Data(expect(http.send("POST", "/passkey/register", json: body)).body))
    let (response, credential) = try authenticator.makeCredential(start.authn_params_public_key, origin: origin)
    return (credential, try expect(http.send("POST", "/oauth/token", json: try tokenRequest(authSession: start.auth_session, response: response))))
}

/// One passkey login at the Auth0-shaped API (challenge, assertion, token request), as the
/// loadgen and the Auth0 guide's apps run it.
func passkeyLogin(_ http: HTTPConnection, _ credential: inout SoftwareCredential, authenticator: SoftwareAuthenticator, origin: String) throws {
    let reply = try expect(http.send("POST", "/passkey/challenge", json: Array(#"{"client_id":"demo"}"#.utf8)))
    let start = try JSONDecoder().decode(ChallengeAnswer<PublicKeyCredentialRequestOptionsJSON>.self, from: Data(reply.body))
    let assertion = try authenticator.getAssertion(start.authn_params_public_key, origin: origin, credential: &credential)
    _ = try expect(http.send("POST", "/oauth/token", json: try tokenRequest(authSession: start.auth_session, response: assertion)))
}

func decoded<T: Decodable>(_ type: T.Type, _ value: Any?) throws -> T {
    try JSONDecoder().decode(T.self, from: JSONSerialization.data(withJSONObject: value ?? [:]))
}

func expect(_ response: HTTPConnection.Response, _ status: Int = 200) throws -> HTTPConnection.Response {
    guard response.status == status else {
        throw BenchmarkError("HTTP \(response.status): \(String(decoding: response.body.prefix(300), as: UTF8.self))")
    }
    return response
}

// MARK: - The run

let scope = "openid profile email offline_access"

if CommandLine.arguments.dropFirst().first == "soak" {
    let soak = Soak.Options(Array(CommandLine.arguments.dropFirst(2)))
    guard !soak.binary.isEmpty else {
        print("usage: ServerBenchmark soak SERVER_BINARY [--minutes N] [--rate OPERATIONS_PER_SECOND] [--users N]")
        exit(2)
    }
    try Soak.run(soak)
    exit(0)
}

if CommandLine.arguments.dropFirst().first == "capacity" {
    do {
        try Capacity.run(try Capacity.Options(Array(CommandLine.arguments.dropFirst(2))))
    } catch {
        print(error)
        exit(2)
    }
    exit(0)
}

if CommandLine.arguments.dropFirst().first == "seed" {
    let arguments = Array(CommandLine.arguments.dropFirst(2))
    guard arguments.count == 2, let count = Int(arguments[1]) else {
        print("usage: ServerBenchmark seed DATABASE_FILE N")
        exit(2)
    }
    try await seed(database: arguments[0], count: count)
    exit(0)
}

let options = Options(CommandLine.arguments)
guard !options.binary.isEmpty else {
    print("usage: ServerBenchmark SERVER_BINARY [--concurrency N] [--signups N] [--logins N] [--pages N] [--seed N] [--passwords N]")
    exit(2)
}
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
let database = directory.appendingPathComponent("bench.sqlite").path
if options.seed > 0 {
    print("seeding \(options.seed) accounts with a passkey each…")
    try await seed(database: database, count: options.seed)
}
let (server, port) = try startServer(
    binary: options.binary, directory: directory, database: "sqlite:" + database,
    extra: options.telemetry.map { "telemetry: { otlp_endpoint: \($0), sample_ratio: \(options.sampleRatio) }" } ?? ""
)
defer { server.terminate() }
let pid = server.processIdentifier

let authenticator = SoftwareAuthenticator()
let users = Users()
let origin = "http://localhost:8080"

print("server \(options.binary) on port \(port), \(options.concurrency) clients, SQLite\(options.seed > 0 ? " with \(options.seed) seeded accounts" : ""), \(ProcessInfo.processInfo.activeProcessorCount) cores, telemetry \(options.telemetry.map { "to \($0) at ratio \(options.sampleRatio)" } ?? "off")")
let rawBefore = try rawP256VerifiesPerSecond()

let signups = try run("sign-up", total: options.signups, concurrency: options.concurrency, port: port, serverPID: pid) { http, index in
    let (credential, _) = try passkeySignup(http, email: "user\(index)@bench.example", authenticator: authenticator, origin: origin)
    users.store(credential, at: index)
}

/// The user an operation signs in. Workers take indexes modulo the number of workers, and
/// users are taken modulo a multiple of it, so each user belongs to one worker and its
/// passkey's counter only increases.
@Sendable func userIndex(_ index: Int) -> Int {
    index % max(options.concurrency, options.signups / options.concurrency * options.concurrency)
}

/// One login at the Auth0-shaped API.
@Sendable func login(_ http: HTTPConnection, _ index: Int) throws {
    let user = userIndex(index)
    guard var credential = users.take(user) else { return }
    try passkeyLogin(http, &credential, authenticator: authenticator, origin: origin)
    users.store(credential, at: user)
}
let logins = try run("login", total: options.logins, concurrency: options.concurrency, port: port, serverPID: pid, operation: login)

// The Kratos face, as the Ory guide's apps use it: an API login flow, then the assertion as
// a JSON string in `passkey_login`.
let kratosLogins = try run("Kratos login", total: options.logins / 4, concurrency: options.concurrency, port: port, serverPID: pid) { http, index in
    let user = userIndex(index)
    guard var credential = users.take(user) else { return }
    let flow = try expect(http.send("GET", "/self-service/login/api")).json()
    let nodes = ((flow["ui"] as? [String: Any])?["nodes"] as? [[String: Any]]) ?? []
    let value = nodes.compactMap { $0["attributes"] as? [String: Any] }.first { $0["name"] as? String == "passkey_challenge" }?["value"] as? String
    let wrapper = try JSONSerialization.jsonObject(with: Data((value ?? "").utf8)) as? [String: Any]
    let assertion = try authenticator.getAssertion(try decoded(PublicKeyCredentialRequestOptionsJSON.self, wrapper?["publicKey"]), origin: origin, credential: &credential)
    let reply = try expect(http.send("POST", "/self-service/login?flow=\(flow["id"] as? String ?? "")", object: [
        "method": "passkey", "passkey_login": String(decoding: try JSONEncoder().encode(assertion), as: UTF8.self),
    ])).json()
    guard reply["session_token"] is String else { throw BenchmarkError("no session_token") }
    users.store(credential, at: user)
}

// The IDaaS face, as the IDaaS guide's apps use it: a PASSKEY challenge with a transaction
// token, then the flat `fidoResponse` with that token in `Authorization`.
let idaasLogins = try run("IDaaS login", total: options.logins / 4, concurrency: options.concurrency, port: port, serverPID: pid) { http, index in
    let user = userIndex(index)
    guard var credential = users.take(user) else { return }
    let challenge = try expect(http.send("POST", "/api/web/v2/authentication/users/authenticate/PASSKEY", object: ["applicationId": "demo", "rpId": "localhost"])).json()
    let fidoChallenge = challenge["fidoChallenge"] as? [String: Any] ?? [:]
    let request = PublicKeyCredentialRequestOptionsJSON(challenge: Base64URLBytes(base64URL: fidoChallenge["challenge"] as? String ?? "") ?? Base64URLBytes([]), rpId: "localhost")
    let assertion = try authenticator.getAssertion(request, origin: origin, credential: &credential)
    let reply = try expect(http.send(
        "POST", "/api/web/v1/authentication/users/authenticate/PASSKEY/complete", headers: [("Authorization", challenge["token"] as? String ?? "")],
        object: [
            "applicationId": "demo",
            "fidoResponse": [
                "authenticatorData": assertion.response.authenticatorData.base64URL, "clientDataJSON": assertion.response.clientDataJSON.base64URL,
                "credentialId": assertion.rawId.base64URL, "signature": assertion.response.signature.base64URL,
                "userHandle": assertion.response.userHandle?.base64URL ?? "",
            ],
        ]
    )).json()
    guard reply["authenticationCompleted"] as? Bool == true else { throw BenchmarkError("not authenticated") }
    users.store(credential, at: user)
}

// The hosted pages, as a browser uses them: a page sets the CSRF cookie and names the token;
// the calls send both back.
let csrf = Base64URL.encode((0..<32).map { _ in UInt8.random(in: 0...255) })
let csrfHeaders = [("Cookie", "latchkey_csrf=\(csrf)"), ("X-CSRF-Token", csrf)]

/// Finishes a ceremony at /ui/session and returns the session cookie.
@Sendable func hostedSession(_ http: HTTPConnection, _ authSession: String, _ response: PublicKeyCredentialResponse) throws -> String {
    let reply = try expect(http.send("POST", "/ui/session", headers: csrfHeaders, object: ["auth_session": authSession, "response": try encoded(response)]))
    guard let setCookie = reply.header("Set-Cookie"), let range = setCookie.range(of: "latchkey_session=") else { throw BenchmarkError("no session cookie") }
    return "latchkey_csrf=\(csrf); latchkey_session=" + setCookie[range.upperBound...].prefix { $0 != ";" }
}

let setup = try HTTPConnection(port: port)
let uiSignup = try expect(setup.send("POST", "/ui/signup", headers: csrfHeaders, object: ["email": "pages@bench.example"])).json()
let (pageResponse, _) = try authenticator.makeCredential(try decoded(PublicKeyCredentialCreationOptionsJSON.self, uiSignup["options"]), origin: origin)
let pageCookie = try hostedSession(setup, uiSignup["auth_session"] as? String ?? "", .registration(pageResponse))

let hostedSignIns = try run("hosted sign-in", total: options.logins / 4, concurrency: options.concurrency, port: port, serverPID: pid) { http, index in
    _ = try expect(http.send("GET", "/login", headers: [("Cookie", "latchkey_csrf=\(csrf)")]))
    let ceremony = try expect(http.send("POST", "/ui/login", headers: csrfHeaders, object: [:])).json()
    let user = userIndex(index)
    guard var credential = users.take(user) else { return }
    let assertion = try authenticator.getAssertion(try decoded(PublicKeyCredentialRequestOptionsJSON.self, ceremony["options"]), origin: origin, credential: &credential)
    _ = try hostedSession(http, ceremony["auth_session"] as? String ?? "", .authentication(assertion))
    users.store(credential, at: user)
}
let loginPages = try run("GET /login", total: options.pages, concurrency: options.concurrency, port: port, serverPID: pid) { http, _ in
    _ = try expect(http.send("GET", "/login", headers: [("Cookie", "latchkey_csrf=\(csrf)")]))
}
let accountPages = try run("GET /account", total: options.pages, concurrency: options.concurrency, port: port, serverPID: pid) { http, _ in
    _ = try expect(http.send("GET", "/account", headers: [("Cookie", pageCookie)]))
}
let rawAfter = try rawP256VerifiesPerSecond()

// Password sign-ins, one at a time so that the latencies compare cases, not queueing.
_ = try expect(setup.send("POST", "/dbconnections/signup", object: ["client_id": "demo", "email": "password@bench.example", "password": "the right passphrase"]))
@Sendable func passwordSignIn(_ username: String, _ password: String, status: Int) -> @Sendable (HTTPConnection, Int) throws -> Void {
    { http, _ in
        _ = try expect(http.send("POST", "/oauth/token", object: ["grant_type": "password", "client_id": "demo", "username": username, "password": password]), status)
    }
}
let passwordPhases = [
    try run("pwd right", total: options.passwords, concurrency: 1, port: port, serverPID: pid, operation: passwordSignIn("password@bench.example", "the right passphrase", status: 200)),
    try run("pwd wrong", total: options.passwords, concurrency: 1, port: port, serverPID: pid, operation: passwordSignIn("password@bench.example", "a wrong passphrase", status: 403)),
    try run("pwd unknown", total: options.passwords, concurrency: 1, port: port, serverPID: pid, operation: passwordSignIn("nobody@bench.example", "a wrong passphrase", status: 403)),
    try run("pwd no password", total: options.passwords, concurrency: 1, port: port, serverPID: pid, operation: passwordSignIn("user0@bench.example", "a wrong passphrase", status: 403)),
]

for phase in [signups, logins, kratosLogins, idaasLogins, hostedSignIns, loginPages, accountPages] + passwordPhases { phase.report() }
let wrongMedian = percentile(passwordPhases[1].latencies.sorted(), 0.5)
print(String(
    format: "password sign-in p50: unknown email %.2f×, passkey-only account %.2f× the wrong-password time (same answer; within 20%% expected)",
    percentile(passwordPhases[2].latencies.sorted(), 0.5) / wrongMedian, percentile(passwordPhases[3].latencies.sorted(), 0.5) / wrongMedian
))
let rawVerify = (rawBefore + rawAfter) / 2
print(String(format: "raw P-256 verify (same run, one core): %.0f/s before, %.0f/s after, %.0f µs each", rawBefore, rawAfter, 1_000_000 / rawVerify))
print(String(format: "server CPU per login = %.1f raw P-256 verifies", logins.microsecondsPerOperation / (1_000_000 / rawVerify)))
