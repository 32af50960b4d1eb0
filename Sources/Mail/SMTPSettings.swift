import Foundation

/// Where and how to hand mail over: the `email.smtp_url` configuration and what goes with it.
public struct SMTPSettings: Sendable {
    /// How the connection is protected.
    public enum Security: String, Sendable {
        /// TLS from the first byte (`smtps://`, port 465, RFC 8314).
        case implicitTLS = "implicit"
        /// Plain text upgraded with STARTTLS (RFC 3207); a server that does not offer it is
        /// refused, so credentials and codes never cross the network in the clear.
        case required
        /// STARTTLS when the server offers it, plain text when not: for a relay on the same
        /// machine or a private network, never the default off loopback.
        case opportunistic
    }

    /// The server's host name or address.
    public var host: String
    public var port: Int
    /// The user name for AUTH, if the server wants one.
    public var username: String?
    /// The password for AUTH.
    public var password: String?
    /// How the connection is protected.
    public var security: Security
    /// How long one message may take, connection included.
    public var timeout: Duration
    /// PEM files of certificate authorities trusted beside the system's (a private relay's).
    public var additionalTrustRoots: [String]
    /// The name this side gives in `EHLO`.
    public var clientName: String

    public init(
        host: String, port: Int, username: String? = nil, password: String? = nil, security: Security, timeout: Duration = .seconds(30),
        additionalTrustRoots: [String] = [], clientName: String = "localhost"
    ) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.security = security
        self.timeout = timeout
        self.additionalTrustRoots = additionalTrustRoots
        self.clientName = clientName
    }

    /// Reads `smtp://user:password@host:587` or `smtps://user:password@host:465`.
    /// - Parameters:
    ///   - password: A password given elsewhere (`LATCHKEY_SMTP_PASSWORD`), which wins over
    ///     the URL's.
    ///   - starttls: `required` or `opportunistic` for `smtp://`; by default required,
    ///     except on a loopback host, where nothing crosses a network.
    public init(url text: String, password: String? = nil, starttls: Security? = nil, timeout: Duration = .seconds(30)) throws(SMTPError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(), let host = components.host, !host.isEmpty else {
            throw SMTPError(.invalidMessage, "smtp_url must look like smtp://user:password@host:587 or smtps://user:password@host:465")
        }
        let security: Security
        switch scheme {
        case "smtps":
            guard starttls == nil else { throw SMTPError(.invalidMessage, "starttls applies to smtp:// URLs; smtps:// is TLS from the start") }
            security = .implicitTLS
        case "smtp":
            let loopback = ["localhost", "127.0.0.1", "::1", "[::1]"].contains(host.lowercased())
            security = starttls ?? (loopback ? .opportunistic : .required)
            guard security != .implicitTLS else { throw SMTPError(.invalidMessage, "starttls must be required or opportunistic") }
        default:
            throw SMTPError(.invalidMessage, "smtp_url's scheme must be smtp or smtps, not \(scheme.prefix(20))")
        }
        guard components.path.isEmpty || components.path == "/" else {
            throw SMTPError(.invalidMessage, "smtp_url has no path; write smtp://user:password@host:port")
        }
        let port = components.port ?? (security == .implicitTLS ? 465 : 587)
        guard (1...65535).contains(port) else { throw SMTPError(.invalidMessage, "smtp_url's port must be between 1 and 65535") }
        self.init(
            host: host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host, port: port,
            username: components.user?.removingPercentEncoding, password: password ?? components.password?.removingPercentEncoding,
            security: security, timeout: timeout
        )
        if username != nil && self.password == nil {
            throw SMTPError(.invalidMessage, "smtp_url names a user but no password: add it to the URL or set LATCHKEY_SMTP_PASSWORD")
        }
    }
}
