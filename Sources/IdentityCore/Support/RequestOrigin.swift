/// Where the request an audit event comes from: the client's address, its `User-Agent`,
/// and the face it called. Read once per request by the server's first middleware into the
/// request's context; each handler hands it to the core call it makes, which writes it on
/// every ``AuditEvent`` it records.
public struct RequestOrigin: Sendable, Hashable {
    /// The client's address (through trusted proxies, the address they name).
    public let ip: String?
    /// The `User-Agent`, at most 256 bytes.
    public let userAgent: String?
    /// The face: `authentication_api`, `my_account`, `oidc`, `kratos`, `idaas`,
    /// `hosted_pages` or `admin_api`.
    public let face: String?
    /// The language the person reads on the hosted pages (a BCP 47 tag), for the mail an
    /// event sends: kept with the live event only, never stored.
    public var language: String?

    /// Caps `userAgent` at 256 bytes and turns its control characters into spaces.
    public init(ip: String?, userAgent: String?, face: String?) {
        self.ip = ip
        // Control characters (a separator among them) become spaces: it is kept for people.
        // Every request pays for this: the character-by-character pass only when a control
        // byte is there.
        self.userAgent = userAgent.map { text in
            let capped = text.utf8.count <= 256 ? text : String(decoding: text.utf8.prefix(256), as: UTF8.self)
            guard capped.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return capped }
            return String(capped.map { $0.unicodeScalars.allSatisfy { $0.value < 0x20 || $0.value == 0x7F } ? " " : $0 })
        }
        self.face = face
    }

    /// The three as one text, separated by U+001F: how a database function's session
    /// setting carries them (see the PostgreSQL backend).
    public var setting: String {
        [ip ?? "", userAgent ?? "", face ?? ""].joined(separator: "\u{1F}")
    }

    /// An origin read back from its stored parts; `nil` when none is there.
    public static func stored(ip: String?, userAgent: String?, face: String?) -> RequestOrigin? {
        ip == nil && userAgent == nil && face == nil ? nil : RequestOrigin(ip: ip, userAgent: userAgent, face: face)
    }
}
