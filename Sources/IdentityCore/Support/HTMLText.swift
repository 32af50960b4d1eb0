/// Escaping for text and attribute values in HTML: the hosted pages and the HTML part of
/// every mail.
public enum HTMLText {
    /// `text` with the five characters that change meaning in HTML (`& < > " '`) escaped.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
