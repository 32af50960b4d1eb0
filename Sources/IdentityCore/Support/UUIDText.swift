import WebAuthn

/// UUIDs and hex as faces write identifiers: lower-case, from bytes Latchkey already has.
public enum UUIDText {
    /// 16 bytes in the 8-4-4-4-12 form.
    public static func format(_ bytes: [UInt8]) -> String {
        let hex = self.hex(bytes)
        return [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4), hex.dropFirst(20)].joined(separator: "-")
    }

    /// A version 4 UUID from 16 random bytes.
    public static func random(_ bytes: [UInt8]) -> String {
        var bytes = bytes
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return format(bytes)
    }

    /// Whether a string has a lower-case UUID's shape.
    public static func isUUID(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        return parts.map(\.count) == [8, 4, 4, 4, 12] && text.utf8.allSatisfy { $0 == UInt8(ascii: "-") || ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }

    /// Lower-case hex.
    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}

extension UUIDText {
    /// The bytes an even number of hex digits (either case) write, at most 2048 digits, or
    /// `nil` for anything else.
    public static func bytes(hex text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard !digits.isEmpty, digits.count % 2 == 0, digits.count <= 2048 else { return nil }
        func nibble(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
            default: return nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    /// The 16 bytes of a UUID in the 8-4-4-4-12 form (either case), or `nil`.
    public static func bytes(_ text: String) -> [UInt8]? {
        let lowered = text.lowercased()
        guard isUUID(lowered) else { return nil }
        let digits = Array(lowered.utf8).filter { $0 != UInt8(ascii: "-") }
        func value(_ digit: UInt8) -> UInt8 { digit <= 57 ? digit - 48 : digit - 87 }
        return stride(from: 0, to: 32, by: 2).map { value(digits[$0]) << 4 | value(digits[$0 + 1]) }
    }
}

extension UserID {
    /// The account's UUID, the same in every face that names users by UUID: the user ID's
    /// 16 random bytes, or for IDs of another shape a UUID derived from them.
    public var uuid: String {
        if let bytes = Base64URL.decode(rawValue), bytes.count == 16 { return UUIDText.format(bytes) }
        return UUIDText.format(Array(TokenService.hash("identity:" + rawValue).prefix(16)))
    }

    /// The user ID a UUID names (the inverse of ``uuid`` for Latchkey's own IDs), or `nil`
    /// when the text is not a UUID.
    public init?(uuid text: String) {
        guard let bytes = UUIDText.bytes(text) else { return nil }
        self.init(rawValue: Base64URL.encode(bytes))
    }
}
