import Authenticator
import Crypto
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LatchkeyClient
import WebAuthn

// Drives a real `latchkey serve` process over loopback with concurrent clients: sign-ups,
// then complete logins (challenge, sign, token), the same logins through the Kratos face
// (flow, sign, session token) and the IDaaS face (challenge, sign, token), then the hosted pages: a complete browser
// sign-in (page, options, assertion, session cookie) and page loads of /login and /account.
// Reports operations per second, latency percentiles, the server's CPU time, and raw P-256
// verifies per second from this run.
//
// Usage: ServerBenchmark SERVER_BINARY [--concurrency N] [--signups N] [--logins N] [--pages N]

struct Options {
    var binary = ""
    var concurrency = 16
    var signups = 1000
    var logins = 3000
    var pages = 5000

    init(_ arguments: [String]) {
        var rest = arguments.dropFirst()
        binary = rest.popFirst() ?? ""
        while let flag = rest.popFirst() {
            let value = Int(rest.popFirst() ?? "") ?? 0
            switch flag {
            case "--concurrency": concurrency = value
            case "--signups": signups = value
            case "--logins": logins = value
            case "--pages": pages = value
            default: fatalError("unknown option \(flag)")
            }
        }
    }
}

/// CPU seconds (user + system) a process has used, from /proc.
func cpuSeconds(pid: Int32) -> Double {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
    else { return 0 }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    let ticks = (Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)
    return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}

/// Starts the server on a free port with a fresh SQLite file.
func startServer(binary: String, directory: URL) throws -> (Process, URL) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: binary)
    process.arguments = ["serve", "--port", "0", "--database", "sqlite:" + directory.appendingPathComponent("bench.sqlite").path]
    process.currentDirectoryURL = directory
    var environment = ProcessInfo.processInfo.environment
    environment["LATCHKEY_LOG_LEVEL"] = "info"
    process.environment = environment
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    var output = ""
    let deadline = Date().addingTimeInterval(30)
    while Date() < deadline {
        output += String(decoding: pipe.fileHandleForReading.availableData, as: UTF8.self)
        if let range = output.range(of: "listening on http://127.0.0.1:") {
            let port = output[range.upperBound...].prefix { $0.isNumber }
            return (process, URL(string: "http://127.0.0.1:\(port)")!)
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

    func report() {
        let sorted = latencies.sorted()
        print(String(
            format: "%@ %6d in %6.2f s = %7.1f/s   p50 %6.1f ms  p99 %6.1f ms   server CPU %5.1f%% of one core, %6.0f µs each",
            name.padding(toLength: 16, withPad: " ", startingAt: 0), count, seconds, Double(count) / seconds, percentile(sorted, 0.5) * 1000, percentile(sorted, 0.99) * 1000,
            serverCPU / seconds * 100, serverCPU / Double(count) * 1_000_000
        ))
    }
}

/// Runs `total` ceremonies over `concurrency` workers.
func run(_ name: String, total: Int, concurrency: Int, serverPID: Int32, ceremony: @escaping @Sendable (Int) async throws -> Void) async throws -> Phase {
    let cpuBefore = cpuSeconds(pid: serverPID)
    let start = Date()
    let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
        for worker in 0..<concurrency {
            group.addTask {
                var mine: [Double] = []
                var index = worker
                while index < total {
                    let began = Date()
                    try await ceremony(index)
                    mine.append(Date().timeIntervalSince(began))
                    index += concurrency
                }
                return mine
            }
        }
        return try await group.reduce(into: [Double]()) { $0 += $1 }
    }
    return Phase(name: name, count: total, seconds: Date().timeIntervalSince(start), latencies: latencies, serverCPU: cpuSeconds(pid: serverPID) - cpuBefore)
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

/// The client's side of the ceremonies; one per worker.
final class Users: @unchecked Sendable {
    private let lock = NSLock()
    private var credentials: [Int: SoftwareCredential] = [:]

    func store(_ credential: SoftwareCredential, at index: Int) { lock.withLock { credentials[index] = credential } }
    func take(_ index: Int) -> SoftwareCredential? { lock.withLock { credentials[index] } }
}

let options = Options(CommandLine.arguments)
guard !options.binary.isEmpty else {
    print("usage: ServerBenchmark SERVER_BINARY [--concurrency N] [--signups N] [--logins N]")
    exit(2)
}
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
let (server, baseURL) = try startServer(binary: options.binary, directory: directory)
defer { server.terminate() }

let configuration = URLSessionConfiguration.default
configuration.httpMaximumConnectionsPerHost = options.concurrency
let session = URLSession(configuration: configuration)
let client = LatchkeyAPIClient(baseURL: baseURL, clientID: "demo", session: session)
let authenticator = SoftwareAuthenticator()
let users = Users()
let scope = "openid profile email offline_access"
let origin = "http://localhost:8080"

print("server \(options.binary) at \(baseURL), \(options.concurrency) concurrent clients, SQLite, \(ProcessInfo.processInfo.activeProcessorCount) cores")
let rawBefore = try rawP256VerifiesPerSecond()

let signups = try await run("sign-up", total: options.signups, concurrency: options.concurrency, serverPID: server.processIdentifier) { index in
    let (creation, authSession) = try await client.signupChallenge(profile: SignupProfile(email: "user\(index)@bench.example"))
    let (response, credential) = try authenticator.makeCredential(creation, origin: origin)
    _ = try await client.finishSignup(authSession: authSession, response: response, scope: scope)
    users.store(credential, at: index)
}
let logins = try await run("login", total: options.logins, concurrency: options.concurrency, serverPID: server.processIdentifier) { index in
    let user = index % options.signups
    guard var credential = users.take(user) else { return }
    let (request, authSession) = try await client.loginChallenge()
    let assertion = try authenticator.getAssertion(request, origin: origin, credential: &credential)
    _ = try await client.finishLogin(authSession: authSession, response: assertion, scope: scope)
    users.store(credential, at: user)
}

// The faces' JSON APIs, as their guides' apps call them.
struct FaceApp: Sendable {
    let baseURL: URL
    let session: URLSession

    func call(_ method: String, _ path: String, body: [String: Any]? = nil, authorization: String? = nil) async throws -> [String: Any] {
        var request = URLRequest(url: URL(string: baseURL.absoluteString + path)!)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.setValue(authorization, forHTTPHeaderField: "Authorization")
        if let body {
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await session.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200, let json = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw URLError(.badServerResponse)
        }
        return json
    }

    /// The flow's `passkey_challenge`, decoded from the JSON string the node holds.
    static func kratosChallenge(_ flow: [String: Any]) throws -> PublicKeyCredentialRequestOptionsJSON {
        let nodes = ((flow["ui"] as? [String: Any])?["nodes"] as? [[String: Any]]) ?? []
        let value = nodes.compactMap { $0["attributes"] as? [String: Any] }.first { $0["name"] as? String == "passkey_challenge" }?["value"] as? String
        let wrapper = try JSONSerialization.jsonObject(with: Data((value ?? "").utf8)) as? [String: Any]
        return try JSONDecoder().decode(PublicKeyCredentialRequestOptionsJSON.self, from: JSONSerialization.data(withJSONObject: wrapper?["publicKey"] ?? [:]))
    }
}
let faces = FaceApp(baseURL: baseURL, session: session)

// The Kratos face, as the Ory guide's apps use it: an API login flow, then the assertion as
// a JSON string in `passkey_login`; the same users and passkeys as the login phase.
let kratosLogins = try await run("Kratos login", total: options.logins, concurrency: options.concurrency, serverPID: server.processIdentifier) { index in
    let user = index % options.signups
    guard var credential = users.take(user) else { return }
    let flow = try await faces.call("GET", "/self-service/login/api")
    let assertion = try authenticator.getAssertion(try FaceApp.kratosChallenge(flow), origin: origin, credential: &credential)
    let flowID = flow["id"] as? String ?? ""
    let reply = try await faces.call("POST", "/self-service/login?flow=" + flowID, body: [
        "method": "passkey", "passkey_login": String(decoding: try JSONEncoder().encode(assertion), as: UTF8.self),
    ])
    guard reply["session_token"] is String else { throw URLError(.userAuthenticationRequired) }
    users.store(credential, at: user)
}

// The IDaaS face, as the IDaaS guide's apps use it: a PASSKEY challenge with a transaction
// token, then the flat `fidoResponse` with that token in `Authorization`.
let idaasLogins = try await run("IDaaS login", total: options.logins, concurrency: options.concurrency, serverPID: server.processIdentifier) { index in
    let user = index % options.signups
    guard var credential = users.take(user) else { return }
    let challenge = try await faces.call("POST", "/api/web/v2/authentication/users/authenticate/PASSKEY", body: ["applicationId": "demo", "rpId": "localhost"])
    let fidoChallenge = challenge["fidoChallenge"] as? [String: Any] ?? [:]
    let request = PublicKeyCredentialRequestOptionsJSON(challenge: Base64URLBytes(base64URL: fidoChallenge["challenge"] as? String ?? "") ?? Base64URLBytes([]), rpId: "localhost")
    let assertion = try authenticator.getAssertion(request, origin: origin, credential: &credential)
    let reply = try await faces.call("POST", "/api/web/v1/authentication/users/authenticate/PASSKEY/complete", body: [
        "applicationId": "demo",
        "fidoResponse": [
            "authenticatorData": assertion.response.authenticatorData.base64URL, "clientDataJSON": assertion.response.clientDataJSON.base64URL,
            "credentialId": assertion.rawId.base64URL, "signature": assertion.response.signature.base64URL,
            "userHandle": assertion.response.userHandle?.base64URL ?? "",
        ],
    ], authorization: challenge["token"] as? String)
    guard reply["authenticationCompleted"] as? Bool == true else { throw URLError(.userAuthenticationRequired) }
    users.store(credential, at: user)
}

// The hosted pages, as a browser uses them: a page sets the CSRF cookie and names the token;
// the calls send both back.
struct HostedBrowser: Sendable {
    let baseURL: URL
    let session: URLSession

    func send(_ method: String, _ path: String, cookie: String, csrf: String = "", body: Data? = nil) async throws -> (Data, HTTPURLResponse) {
        var request = URLRequest(url: baseURL.appendingPathComponent(path))
        request.httpMethod = method
        request.setValue(cookie, forHTTPHeaderField: "Cookie")
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.setValue(csrf, forHTTPHeaderField: "X-CSRF-Token")
        }
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse, (200..<400).contains(http.statusCode) else {
            throw URLError(.badServerResponse)
        }
        return (data, http)
    }

    /// Finishes a ceremony at /ui/session and returns the session cookie.
    func startSession(_ authSession: String, _ response: PublicKeyCredentialResponse, csrf: String) async throws -> String {
        let payload: [String: Any] = ["auth_session": authSession, "response": try JSONSerialization.jsonObject(with: JSONEncoder().encode(response))]
        let (_, reply) = try await send("POST", "/ui/session", cookie: "latchkey_csrf=\(csrf)", csrf: csrf, body: try JSONSerialization.data(withJSONObject: payload))
        let setCookie = reply.value(forHTTPHeaderField: "Set-Cookie") ?? ""
        guard let range = setCookie.range(of: "latchkey_session=") else { throw URLError(.userAuthenticationRequired) }
        return "latchkey_csrf=\(csrf); latchkey_session=" + setCookie[range.upperBound...].prefix { $0 != ";" }
    }
}

struct UICeremony<Options: Decodable>: Decodable {
    let options: Options
    let auth_session: String
}

let browserConfiguration = URLSessionConfiguration.ephemeral
browserConfiguration.httpShouldSetCookies = false
browserConfiguration.httpMaximumConnectionsPerHost = options.concurrency
let browser = HostedBrowser(baseURL: baseURL, session: URLSession(configuration: browserConfiguration))
let csrf = Base64URL.encode((0..<32).map { _ in UInt8.random(in: 0...255) })
let uiSignup = try await browser.send("POST", "/ui/signup", cookie: "latchkey_csrf=\(csrf)", csrf: csrf, body: Data(#"{"email":"pages@bench.example"}"#.utf8))
let signupCeremony = try JSONDecoder().decode(UICeremony<PublicKeyCredentialCreationOptionsJSON>.self, from: uiSignup.0)
let (pageResponse, _) = try authenticator.makeCredential(signupCeremony.options, origin: origin)
let pageCookie = try await browser.startSession(signupCeremony.auth_session, .registration(pageResponse), csrf: csrf)

let hostedSignIns = try await run("hosted sign-in", total: options.logins, concurrency: options.concurrency, serverPID: server.processIdentifier) { index in
    _ = try await browser.send("GET", "/login", cookie: "latchkey_csrf=\(csrf)")
    let (data, _) = try await browser.send("POST", "/ui/login", cookie: "latchkey_csrf=\(csrf)", csrf: csrf, body: Data("{}".utf8))
    let ceremony = try JSONDecoder().decode(UICeremony<PublicKeyCredentialRequestOptionsJSON>.self, from: data)
    // As in the login phase, concurrent workers use distinct users, so counters only increase.
    let user = index % options.signups
    guard var credential = users.take(user) else { return }
    let assertion = try authenticator.getAssertion(ceremony.options, origin: origin, credential: &credential)
    _ = try await browser.startSession(ceremony.auth_session, .authentication(assertion), csrf: csrf)
    users.store(credential, at: user)
}
let loginPages = try await run("GET /login", total: options.pages, concurrency: options.concurrency, serverPID: server.processIdentifier) { _ in
    _ = try await browser.send("GET", "/login", cookie: "latchkey_csrf=\(csrf)")
}
let accountPages = try await run("GET /account", total: options.pages, concurrency: options.concurrency, serverPID: server.processIdentifier) { _ in
    _ = try await browser.send("GET", "/account", cookie: pageCookie)
}
let rawAfter = try rawP256VerifiesPerSecond()

signups.report()
logins.report()
kratosLogins.report()
idaasLogins.report()
hostedSignIns.report()
loginPages.report()
accountPages.report()
print(String(format: "raw P-256 verify (same run, one core): %.0f/s before, %.0f/s after", rawBefore, rawAfter))
