import WebAuthn

/// Writes clientDataJSON the way browsers serialize it (WebAuthn L3 §5.8.1.1): `type`,
/// `challenge`, `origin` and `crossOrigin` first, then optional members.
public struct ClientDataBuilder: Sendable {
    /// `webauthn.create` or `webauthn.get`.
    public var type: String
    /// The challenge bytes; written as unpadded base64url.
    public var challenge: [UInt8]
    /// The caller's origin.
    public var origin: String
    /// Whether the call came from a cross-origin iframe; `nil` leaves the member out, as
    /// native platforms do.
    public var crossOrigin: Bool?
    /// The top-level origin of a cross-origin call.
    public var topOrigin: String?
    /// Further string members, in order.
    public var extraMembers: [(String, String)]

    /// `crossOrigin` defaults to `false`, as browsers write it; pass `nil` to leave the
    /// member out.
    public init(type: String, challenge: [UInt8], origin: String, crossOrigin: Bool? = false, topOrigin: String? = nil) {
        self.type = type
        self.challenge = challenge
        self.origin = origin
        self.crossOrigin = crossOrigin
        self.topOrigin = topOrigin
        self.extraMembers = []
    }

    /// The JSON bytes.
    public func build() -> [UInt8] {
        var json = "{\"type\":\(quoted(type)),\"challenge\":\(quoted(Base64URL.encode(challenge))),\"origin\":\(quoted(origin))"
        if let crossOrigin { json += ",\"crossOrigin\":\(crossOrigin)" }
        if let topOrigin { json += ",\"topOrigin\":\(quoted(topOrigin))" }
        for (key, value) in extraMembers { json += ",\(quoted(key)):\(quoted(value))" }
        json += "}"
        return Array(json.utf8)
    }

    private func quoted(_ text: String) -> String { JSONString.quoted(text) }
}
