/// Base64url encoding (RFC 4648 §5), strict on output and lenient on input.
///
/// Real clients differ: browsers send unpadded base64url, some SDKs pad it, and some send
/// the standard alphabet (`+`, `/`). Decoding accepts all of these, because the bytes are
/// what get verified; anything else (whitespace, stray characters, impossible lengths or
/// non-zero padding bits) is rejected.
public enum Base64URL {
    /// Encodes bytes as unpadded base64url.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var out: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = buffer << 8 | UInt32(byte)
            bits += 8
            while bits >= 6 {
                bits -= 6
                out.append(alphabet[Int((buffer >> UInt32(bits)) & 0x3f)])
            }
        }
        if bits > 0 {
            out.append(alphabet[Int((buffer << UInt32(6 - bits)) & 0x3f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes base64url or standard base64, with or without padding.
    /// - Returns: `nil` when the text is not valid in either alphabet.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var utf8 = Array(text.utf8)[...]
        // Up to two '=' may end the text, and only where they complete a 4-character group.
        var padding = 0
        while utf8.last == UInt8(ascii: "=") {
            utf8 = utf8.dropLast()
            padding += 1
        }
        guard padding <= 2 else { return nil }
        if padding > 0, (utf8.count + padding) % 4 != 0 { return nil }
        guard utf8.count % 4 != 1 else { return nil }

        var out: [UInt8] = []
        out.reserveCapacity(utf8.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for character in utf8 {
            guard let value = sextet(character) else { return nil }
            buffer = buffer << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        // Leftover bits must be zero, or two different texts would decode to the same bytes.
        guard buffer & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return out
    }

    private static func sextet(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return character - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"), UInt8(ascii: "+"): return 62
        case UInt8(ascii: "_"), UInt8(ascii: "/"): return 63
        default: return nil
        }
    }
}
