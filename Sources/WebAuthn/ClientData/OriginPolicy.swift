/// The origins a relying party accepts, compared the way browsers serialize them.
///
/// - Web origins (`scheme://host[:port]`) are compared as origins: scheme and host are
///   case-insensitive and a default port (443 for https, 80 for http) may be written or
///   left out. A path, query or fragment makes a received value not an origin at all.
/// - Any other value, such as `android:apk-key-hash:<base64url>` from Android apps, is an
///   opaque origin and is compared as an exact string.
///
/// An iOS or macOS app using associated domains reports `https://<rp id>`, which is an
/// ordinary web origin here.
public struct OriginPolicy: Sendable, Hashable {
    /// The allowed origins as configured.
    public let allowed: [String]
    /// For Android app origins, the package names an app may report in
    /// `androidPackageName`. An app origin names a signing certificate, which several apps
    /// may share; an origin without an entry accepts any package.
    public let androidPackageNames: [String: Set<String>]
    /// Where the allowed origins come from, named in the error for an origin that is not
    /// allowed so that the operator knows what to change.
    public let sourceDescription: String
    private let webOrigins: [WebOrigin: String]
    /// Every configured value as written: opaque origins, and web origins for the fast path.
    private let exactOrigins: Set<String>

    /// Creates a policy from configured origins. A trailing slash on a configured web
    /// origin is tolerated.
    public init(_ allowed: [String], androidPackageNames: [String: Set<String>] = [:], sourceDescription: String = "the relying party configuration") {
        self.allowed = allowed
        self.androidPackageNames = androidPackageNames
        self.sourceDescription = sourceDescription
        var web: [WebOrigin: String] = [:]
        for origin in allowed {
            if let parsed = WebOrigin(parsing: origin, allowTrailingSlash: true) {
                web[parsed] = web[parsed] ?? origin
            }
        }
        self.webOrigins = web
        // A configured web origin with a trailing slash is not what browsers send.
        self.exactOrigins = Set(allowed.filter { !($0.hasSuffix("/") && WebOrigin(parsing: $0, allowTrailingSlash: true) != nil) })
    }

    /// Returns the configured origin that `received` matches, or `nil`.
    public func match(_ received: String) -> String? {
        // Browsers serialize origins canonically, so an exact match is the common case.
        if exactOrigins.contains(received) { return received }
        guard let parsed = WebOrigin(parsing: received, allowTrailingSlash: false) else { return nil }
        return webOrigins[parsed]
    }
}

/// A tuple origin (scheme, host, port) in normalized form.
struct WebOrigin: Hashable, Sendable {
    let scheme: String
    let host: String
    let port: Int

    /// Parses `scheme://host[:port]`; returns `nil` for anything else, including opaque
    /// origins and values with a path, query, fragment or user info.
    init?(parsing text: String, allowTrailingSlash: Bool) {
        var rest = Substring(text)
        if allowTrailingSlash, rest.hasSuffix("/") { rest = rest.dropLast() }
        guard let schemeEnd = rest.firstRange(of: "://") else { return nil }
        let scheme = rest[..<schemeEnd.lowerBound].lowercased()
        guard !scheme.isEmpty, scheme.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }) else { return nil }
        let authority = rest[schemeEnd.upperBound...]
        guard !authority.isEmpty, !authority.contains(where: { "/?#@\\ ".contains($0) }) else { return nil }

        var host = authority
        var port: Int?
        if authority.hasPrefix("[") {
            // IPv6 literal: [addr] or [addr]:port
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[...close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let value = Int(after.dropFirst()) else { return nil }
                port = value
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            guard let value = Int(authority[authority.index(after: colon)...]) else { return nil }
            port = value
        }
        guard !host.isEmpty else { return nil }
        if let port, !(0...65535).contains(port) { return nil }

        let defaultPort: Int? = scheme == "https" ? 443 : (scheme == "http" ? 80 : nil)
        self.scheme = scheme
        self.host = host.lowercased()
        self.port = port ?? defaultPort ?? -1
    }
}
