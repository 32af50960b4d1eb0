public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// What fetching a URL produced: a response as the server sent it, redirects not
/// followed, or the reason there was none.
public enum FetchOutcome: Sendable {
    /// The server answered.
    case response(FetchedResponse)
    /// No answer: DNS, connection, TLS or timeout failure.
    case failed(String)
}

/// A response exactly as received.
public struct FetchedResponse: Sendable {
    public let status: Int
    /// The `Content-Type` header, if any.
    public let contentType: String?
    /// The `Location` header of a redirect, if any.
    public let location: String?
    public let body: [UInt8]

    public init(status: Int, contentType: String?, location: String?, body: [UInt8]) {
        self.status = status
        self.contentType = contentType
        self.location = location
        self.body = body
    }
}

/// Fetches documents the way platform verifiers do: a plain GET without credentials,
/// and redirects reported rather than followed.
public protocol DocumentFetching: Sendable {
    /// Fetches a URL.
    func fetch(_ url: URL) async -> FetchOutcome
}

/// Fetches over the network with URLSession.
public final class URLSessionFetcher: NSObject, DocumentFetching, URLSessionTaskDelegate, @unchecked Sendable {
    private let timeout: TimeInterval
    private let maximumBytes: Int
    private let userAgent: String
    // The session keeps a strong reference to its delegate until invalidated.
    private var session: URLSession?

    /// - Parameters:
    ///   - timeout: Seconds to wait for an answer.
    ///   - maximumBytes: Larger bodies are reported as a failure.
    public init(timeout: TimeInterval = 15, maximumBytes: Int = 1 << 20, userAgent: String = "latchkey-doctor") {
        self.timeout = timeout
        self.maximumBytes = maximumBytes
        self.userAgent = userAgent
        super.init()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        configuration.httpCookieAcceptPolicy = .never
        configuration.httpShouldSetCookies = false
        configuration.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }

    deinit { session?.invalidateAndCancel() }

    public func fetch(_ url: URL) async -> FetchOutcome {
        guard let session else { return .failed("the fetcher is closed") }
        var request = URLRequest(url: url)
        request.httpMethod = "GET"
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.setValue(userAgent, forHTTPHeaderField: "User-Agent")
        do {
            let (data, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse else { return .failed("the answer was not HTTP") }
            guard data.count <= maximumBytes else { return .failed("the body is larger than \(maximumBytes) bytes") }
            return .response(
                FetchedResponse(
                    status: http.statusCode,
                    contentType: http.value(forHTTPHeaderField: "Content-Type"),
                    location: http.value(forHTTPHeaderField: "Location"),
                    body: Array(data)
                )
            )
        } catch {
            return .failed(Self.describe(error))
        }
    }

    /// Refuses every redirect, so the 3xx response itself is returned.
    public func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    private static func describe(_ error: any Error) -> String {
        let nsError = error as NSError
        switch nsError.code {
        case NSURLErrorTimedOut: return "timed out"
        case NSURLErrorCannotFindHost, NSURLErrorDNSLookupFailed: return "the host name does not resolve"
        case NSURLErrorCannotConnectToHost: return "the connection was refused"
        case NSURLErrorSecureConnectionFailed, NSURLErrorServerCertificateUntrusted, NSURLErrorServerCertificateHasBadDate,
            NSURLErrorServerCertificateNotYetValid, NSURLErrorServerCertificateHasUnknownRoot:
            return "the TLS connection failed (\(nsError.localizedDescription)); platforms need a valid certificate"
        default: return nsError.localizedDescription
        }
    }
}
