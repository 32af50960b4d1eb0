/// Base64url encoding (RFC 4648 §5), strict on output and lenient on input.
///
/// Real clients differ: browsers send unpadded base64url, some SDKs pad it, and some send
/// the standard alphabet (`+`, `/`). Decoding accepts all of these, because the bytes are
/// what get verified; anything else (whitespace, stray characters, impossible lengths or
/// non-zero padding bits) is rejected.
///
/// Both directions work on contiguous bytes three (or four) at a time with lookup tables:
/// every login encodes and decodes a few kilobytes of it (tokens, IDs, signatures), and a
/// generic bit-by-bit loop cost more than the signatures themselves.
public enum Base64URL {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Each character's 6-bit value, for both alphabets; 0xFF for anything else.
    private static let sextets: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, character) in alphabet.enumerated() { table[Int(character)] = UInt8(value) }
        table[Int(UInt8(ascii: "+"))] = 62
        table[Int(UInt8(ascii: "/"))] = 63
        return table
    }()

    /// Encodes bytes as unpadded base64url.
    public static func encode(_ bytes: [UInt8]) -> String {
        bytes.withUnsafeBufferPointer(encode(buffer:))
    }

    /// Encodes bytes as unpadded base64url.
    public static func encode(_ bytes: ArraySlice<UInt8>) -> String {
        bytes.withUnsafeBufferPointer(encode(buffer:))
    }

    /// Encodes bytes as unpadded base64url.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        bytes.withContiguousStorageIfAvailable(encode(buffer:)) ?? Array(bytes).withUnsafeBufferPointer(encode(buffer:))
    }

    private static func encode(buffer bytes: UnsafeBufferPointer<UInt8>) -> String {
        let count = bytes.count
        let length = count / 3 * 4 + (count % 3 == 0 ? 0 : count % 3 + 1)
        guard length > 0 else { return "" }
        return alphabet.withUnsafeBufferPointer { alphabet in
            String(unsafeUninitializedCapacity: length) { out in
                var input = 0
                var output = 0
                while input + 3 <= count {
                    let group = UInt32(bytes[input]) << 16 | UInt32(bytes[input + 1]) << 8 | UInt32(bytes[input + 2])
                    out[output] = alphabet[Int(group >> 18)]
                    out[output + 1] = alphabet[Int(group >> 12 & 0x3F)]
                    out[output + 2] = alphabet[Int(group >> 6 & 0x3F)]
                    out[output + 3] = alphabet[Int(group & 0x3F)]
                    input += 3
                    output += 4
                }
                switch count - input {
                case 1:
                    let group = UInt32(bytes[input]) << 16
                    out[output] = alphabet[Int(group >> 18)]
                    out[output + 1] = alphabet[Int(group >> 12 & 0x3F)]
                case 2:
                    let group = UInt32(bytes[input]) << 16 | UInt32(bytes[input + 1]) << 8
                    out[output] = alphabet[Int(group >> 18)]
                    out[output + 1] = alphabet[Int(group >> 12 & 0x3F)]
                    out[output + 2] = alphabet[Int(group >> 6 & 0x3F)]
                default:
                    break
                }
                return length
            }
        }
    }

    /// Decodes base64url or standard base64, with or without padding.
    /// - Returns: `nil` when the text is not valid in either alphabet.
    public static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8(decode(utf8:))
    }

    /// Decodes base64url or standard base64, with or without padding.
    /// - Returns: `nil` when the text is not valid in either alphabet.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        text.utf8.withContiguousStorageIfAvailable(decode(utf8:)) ?? decode(String(text))
    }

    private static func decode(utf8 text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var count = text.count
        // Up to two '=' may end the text, and only where they complete a 4-character group.
        var padding = 0
        while count > 0, text[count - 1] == UInt8(ascii: "=") {
            count -= 1
            padding += 1
        }
        guard padding <= 2 else { return nil }
        if padding > 0, (count + padding) % 4 != 0 { return nil }
        guard count % 4 != 1 else { return nil }

        let length = count / 4 * 3 + max(0, count % 4 - 1)
        return sextets.withUnsafeBufferPointer { sextets -> [UInt8]? in
            var valid = true
            let bytes = [UInt8](unsafeUninitializedCapacity: length) { out, initialized in
                var input = 0
                var output = 0
                while input + 4 <= count {
                    let a = sextets[Int(text[input])], b = sextets[Int(text[input + 1])]
                    let c = sextets[Int(text[input + 2])], d = sextets[Int(text[input + 3])]
                    // Invalid characters are 0xFF in the table, so any high bit means one.
                    guard (a | b | c | d) & 0xC0 == 0 else {
                        valid = false
                        break
                    }
                    let group = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                    out[output] = UInt8(truncatingIfNeeded: group >> 16)
                    out[output + 1] = UInt8(truncatingIfNeeded: group >> 8)
                    out[output + 2] = UInt8(truncatingIfNeeded: group)
                    input += 4
                    output += 3
                }
                let rest = count - input
                if valid, rest >= 2 {
                    let a = sextets[Int(text[input])], b = sextets[Int(text[input + 1])]
                    let c = rest == 3 ? sextets[Int(text[input + 2])] : 0
                    // Leftover bits must be zero, or two different texts would decode to the same bytes.
                    if (a | b | c) & 0xC0 != 0 || (rest == 2 ? b & 0x0F : c & 0x03) != 0 {
                        valid = false
                    } else {
                        let group = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6
                        out[output] = UInt8(truncatingIfNeeded: group >> 16)
                        if rest == 3 { out[output + 1] = UInt8(truncatingIfNeeded: group >> 8) }
                        output += rest - 1
                    }
                }
                initialized = valid ? output : 0
            }
            return valid ? bytes : nil
        }
    }
}
