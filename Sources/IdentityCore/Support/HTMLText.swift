/// Escaping for text and attribute values in HTML: the hosted pages and the HTML part of
/// every mail.
public enum HTMLText {
    /// `text` with the five characters that change meaning in HTML (`& < > " '`) escaped.
    /// Works on the UTF-8 bytes (the five are ASCII, and never part of a longer character's
    /// encoding), and hands back text without any of them as it is: a page escapes some
    /// fifty strings, and walking each by grapheme cost more than building the rest of it.
    public static func escape(_ text: String) -> String {
        let bytes = text.utf8
        guard bytes.contains(where: isSpecial) else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "&"): out += Array("&amp;".utf8)
            case UInt8(ascii: "<"): out += Array("&lt;".utf8)
            case UInt8(ascii: ">"): out += Array("&gt;".utf8)
            case UInt8(ascii: "\""): out += Array("&quot;".utf8)
            case UInt8(ascii: "'"): out += Array("&#39;".utf8)
            default: out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func isSpecial(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")
    }
}
