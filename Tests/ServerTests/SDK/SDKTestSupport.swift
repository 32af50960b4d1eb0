import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LatchkeyClient
import LatchkeySoftwarePasskeys
import Testing

/// The real transport, with every request body kept: what the SDK tests count.
final class RecordingTransport: LatchkeyTransport, @unchecked Sendable {
    private let inner: any LatchkeyTransport

    init(_ inner: any LatchkeyTransport = URLSessionTransport()) { self.inner = inner }

    private let lock = NSLock()
    private var requests: [(path: String, body: String)] = []
    /// Runs before each request is sent, to interleave another client's calls.
    var beforeSending: (@Sendable (URLRequest) async -> Void)?

    func send(_ request: URLRequest) async throws -> (Data, URLResponse) {
        lock.withLock { requests.append((request.url?.path ?? "", String(decoding: request.httpBody ?? Data(), as: UTF8.self))) }
        if let beforeSending { await beforeSending(request) }
        return try await inner.send(request)
    }

    /// The refresh-token grants sent so far.
    var refreshes: Int { lock.withLock { requests.filter { $0.path == "/oauth/token" && $0.body.contains(#""grant_type":"refresh_token""#) }.count } }
    /// Every path requested, in order.
    var paths: [String] { lock.withLock { requests.map(\.path) } }
}

/// The SDK on a server, with the software provider for one person.
struct SDKPerson {
    let latchkey: Latchkey
    let passkeys: SoftwarePasskeyProvider
    let tokens: any TokenStore
    let transport: RecordingTransport

    /// - Parameter refreshLeeway: How early access tokens are refreshed; more than their
    ///   lifetime makes every `accessToken()` refresh, as if an hour had passed.
    init(
        server: some TestServer, email: String, name: String? = nil, tokens: any TokenStore = InMemoryTokenStore(), passkeys: SoftwarePasskeyProvider? = nil,
        refreshLeeway: TimeInterval = 30
    ) throws {
        try self.init(server: server.baseURL, through: server.transport, email: email, name: name, tokens: tokens, passkeys: passkeys, refreshLeeway: refreshLeeway)
    }

    init(
        server: URL, through inner: any LatchkeyTransport = URLSessionTransport(), email: String, name: String? = nil, tokens: any TokenStore = InMemoryTokenStore(),
        passkeys: SoftwarePasskeyProvider? = nil, refreshLeeway: TimeInterval = 30
    ) throws {
        let transport = RecordingTransport(inner)
        let provider = try passkeys ?? SoftwarePasskeyProvider(relyingPartyID: "localhost", origin: "http://localhost:8080", contact: .email(email), name: name)
        self.latchkey = Latchkey(
            configuration: LatchkeyClient.LatchkeyConfiguration(server: server, clientID: "demo", refreshLeeway: refreshLeeway, transport: transport),
            passkeys: provider, tokens: tokens
        )
        self.passkeys = provider
        self.tokens = tokens
        self.transport = transport
    }
}

/// Expects `body` to throw ``LatchkeyAPIError`` with `code`, and returns it.
@discardableResult
func expectSDKError(_ code: LatchkeyAPIError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> some Any) async -> LatchkeyAPIError? {
    do {
        _ = try await body()
        Issue.record("expected \(code), but the call succeeded", sourceLocation: sourceLocation)
        return nil
    } catch let error as LatchkeyAPIError {
        #expect(error.code == code, "expected \(code), got \(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected LatchkeyAPIError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

extension ServerProcess {
    /// The code in the `number`th message (from 1) the development mailer wrote to the log.
    func loggedCode(message number: Int, timeout: TimeInterval = 20) async throws -> String {
        let marker = "DEVELOPMENT MAILER"
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let sections = output.text.components(separatedBy: marker).dropFirst()
            if sections.count >= number {
                let section = String(sections[sections.index(sections.startIndex, offsetBy: number - 1)].prefix(800))
                if let code = section.split(whereSeparator: { !$0.isNumber }).first(where: { $0.count == 8 }) { return String(code) }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestFailure("no message \(number) from the development mailer in: \(output.text.suffix(2000))")
    }
}
