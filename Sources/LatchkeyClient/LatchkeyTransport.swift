public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// How requests reach the server. ``URLSessionTransport`` is the default; an app wraps it to
/// log, pin certificates or count requests, and tests wrap it to watch the exchange.
public protocol LatchkeyTransport: Sendable {
    /// Sends one request and returns the body and the HTTP response; throws only when no
    /// response arrived.
    func send(_ request: URLRequest) async throws -> (Data, URLResponse)
}

/// Requests through a `URLSession`.
public struct URLSessionTransport: LatchkeyTransport {
    /// The session requests run on.
    public let session: URLSession

    public init(session: URLSession = .shared) { self.session = session }

    public func send(_ request: URLRequest) async throws -> (Data, URLResponse) {
        try await session.data(for: request)
    }
}
