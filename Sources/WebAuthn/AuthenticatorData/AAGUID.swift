/// An Authenticator Attestation Globally Unique Identifier: 16 bytes naming the
/// authenticator model (or all zeros when the authenticator does not say).
public struct AAGUID: Hashable, Sendable, CustomStringConvertible, Codable {
    /// The 16 bytes.
    public let bytes: [UInt8]

    /// The all-zero AAGUID that U2F keys and privacy-preserving providers send.
    public static let zero = AAGUID(unchecked: [UInt8](repeating: 0, count: 16))

    /// Creates an AAGUID from exactly 16 bytes.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 16 else { return nil }
        self.bytes = Array(bytes)
    }

    private init(unchecked bytes: [UInt8]) { self.bytes = bytes }

    /// Parses the canonical UUID text form, in either case.
    public init?(uuidString: String) {
        let hex = uuidString.filter { $0 != "-" }
        guard hex.count == 32, uuidString.count == 36 else { return nil }
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        self.bytes = bytes
    }

    /// Whether every byte is zero.
    public var isZero: Bool { bytes.allSatisfy { $0 == 0 } }

    /// The lowercase UUID text form, for example `ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4`.
    public var uuidString: String {
        let hex = Bytes.hex(bytes)
        let groups = [8, 4, 4, 4, 12]
        var parts: [Substring] = []
        var start = hex.startIndex
        for length in groups {
            let end = hex.index(start, offsetBy: length)
            parts.append(hex[start..<end])
            start = end
        }
        return parts.joined(separator: "-")
    }

    public var description: String { uuidString }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let value = AAGUID(uuidString: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a UUID: \(text)"))
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(uuidString)
    }
}
