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

    /// Creates client data.
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

    /// A JSON string literal (RFC 8259 §7).
    private func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
