import Foundation

/// A web origin written as text, `scheme://host[:port]` and nothing more, as association
/// files and configuration carry it.
public struct WebOriginText: Sendable, Hashable {
    /// `https` or `http`, lowercased.
    public let scheme: String
    /// The host, lowercased.
    public let host: String
    /// The port when one is written.
    public let port: Int?

    /// Parses an http(s) origin; a path other than `/`, a query, a fragment or user info
    /// makes the text not an origin.
    public init?(_ text: String) {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = url.host?.lowercased(), !host.isEmpty, url.path.isEmpty || url.path == "/",
            url.query == nil, url.fragment == nil, url.user == nil, url.password == nil
        else { return nil }
        self.scheme = scheme
        self.host = host
        self.port = url.port
    }

    /// Whether browsers allow WebAuthn on it: https, or http on localhost.
    public var isPotentiallyTrustworthy: Bool {
        scheme == "https" || host == "localhost" || host.hasSuffix(".localhost")
    }
}

/// Rules for related origins (WebAuthn L3 §5.11).
public enum RelatedOrigins {
    /// Browsers must honour at least this many distinct registrable labels in
    /// `/.well-known/webauthn`, and may ignore origins beyond them.
    public static let guaranteedLabelCount = 5

    /// The origins a browser may ignore because their registrable label (such as
    /// `example` for `example.co.uk`) is the sixth or later distinct one in the list.
    public static func originsBeyondLabelLimit(_ origins: [String], suffixes: PublicSuffixList = .bundled) -> [String] {
        var labels: [String] = []
        var ignored: [String] = []
        for origin in origins {
            guard let host = WebOriginText(origin)?.host, let label = suffixes.registrableLabel(of: host) else { continue }
            if labels.contains(label) { continue }
            if labels.count >= guaranteedLabelCount {
                ignored.append(origin)
            } else {
                labels.append(label)
            }
        }
        return ignored
    }
}
