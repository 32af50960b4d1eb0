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
