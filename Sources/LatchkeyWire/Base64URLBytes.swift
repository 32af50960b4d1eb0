/// Bytes that travel in JSON as a base64url string.
///
/// Encoding writes unpadded base64url, as browsers' `toJSON()` does. Decoding accepts
/// padded or unpadded text in either the URL-safe or the standard alphabet, because real
/// clients send all of these (see ``Base64URL``).
public struct Base64URLBytes: Hashable, Sendable, Codable, CustomStringConvertible {
    public var bytes: [UInt8]

    public init(_ bytes: some Sequence<UInt8>) { self.bytes = Array(bytes) }

    /// Decodes base64url or base64 text; `nil` when it is neither.
    public init?(base64URL text: String) {
        guard let bytes = Base64URL.decode(text) else { return nil }
        self.bytes = bytes
    }

    /// The unpadded base64url text.
    public var base64URL: String { Base64URL.encode(bytes) }

    public var description: String { base64URL }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let bytes = Base64URL.decode(text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "is not base64url (\(text.count) characters)")
            )
        }
        self.bytes = bytes
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(base64URL)
    }
}
