import Foundation
import LatchkeyClient
import LatchkeyDoctor
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Plain HTTP requests, for the tests that must send exactly the bytes they mean
/// (malformed JSON, wrong content types, oversized bodies).
struct RawHTTP {
    let baseURL: URL
    /// A socket by default; the router in process for a ``RouterServer``.
    var transport: any LatchkeyTransport = RawHTTP.socketTransport

    init(baseURL: URL) { self.baseURL = baseURL }

    /// Requests to `server`, the way it is reached.
    init(_ server: some TestServer) {
        baseURL = server.baseURL
        transport = server.transport
    }

    struct Reply {
        let status: Int
        let headers: [String: String]
        let body: Data

        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body) as? [String: Any]) ?? [:] }
        var text: String { String(decoding: body, as: UTF8.self) }
        func header(_ name: String) -> String? { headers.first { $0.key.lowercased() == name.lowercased() }?.value }
    }

    func send(_ method: String, _ path: String, body: Data? = nil, contentType: String? = "application/json", headers: [String: String] = [:]) async throws -> Reply {
        var request = URLRequest(url: URL(string: baseURL.absoluteString + path)!)
        request.httpMethod = method
        request.httpBody = body
        if let contentType { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await transport.send(request)
        let http = response as! HTTPURLResponse
        var fields: [String: String] = [:]
        for (key, value) in http.allHeaderFields { fields["\(key)"] = "\(value)" }
        return Reply(status: http.statusCode, headers: fields, body: data)
    }

    /// A session that returns redirects instead of following them, so tests see the
    /// `Location` a browser would be sent to.
    /// Cookies are the tests' business too: none are stored or sent unless a test sets them.
    static let socketTransport = URLSessionTransport(session: session)

    private static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        // The doctor's fetcher is a delegate that refuses every redirect.
        return URLSession(configuration: configuration, delegate: URLSessionFetcher(), delegateQueue: nil)
    }()

    func json(_ method: String, _ path: String, _ object: [String: Any], headers: [String: String] = [:]) async throws -> Reply {
        try await send(method, path, body: try JSONSerialization.data(withJSONObject: object), headers: headers)
    }
}
