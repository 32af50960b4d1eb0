import Foundation

/// RFC 2047 encoded words: how a header carries text that is not ASCII
/// (`=?UTF-8?B?…?=`). Each word is at most 75 characters and never splits a character's
/// bytes between words, as §5 requires.
enum EncodedWord {
    /// `text` as it goes in a header: itself when it is printable ASCII, else encoded words
    /// separated by folding whitespace.
    static func encode(_ text: String) -> String {
        if text.unicodeScalars.allSatisfy({ $0.isASCII && $0.value >= 0x20 && $0.value != 0x7F }) { return text }
        // 45 bytes of base64 are 60 characters, which with `=?UTF-8?B?` and `?=` make 72.
        let limit = 45
        var words: [String] = []
        var chunk: [UInt8] = []
        for character in text {
            let bytes = Array(String(character).utf8)
            if !chunk.isEmpty && chunk.count + bytes.count > limit {
                words.append(word(chunk))
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty { words.append(word(chunk)) }
        return words.joined(separator: "\r\n ")
    }

    private static func word(_ bytes: [UInt8]) -> String { "=?UTF-8?B?\(Data(bytes).base64EncodedString())?=" }
}
