/// The rule every storage backend applies to text: text containing U+0000 is refused on
/// writes and matches nothing on reads, so no stored text contains it. SQLite would store
/// it exactly, but a C-string API anywhere on the way would read
/// `"alice@example.com\u{0}x"` as `"alice@example.com"`, naming another user's account, and
/// PostgreSQL's `text` cannot hold U+0000 at all.
public enum StoredText {
    /// Whether any of the texts contains U+0000.
    public static func containsNUL(_ texts: [String?]) -> Bool {
        texts.contains { $0?.utf8.contains(0) ?? false }
    }

    /// The text with U+0000 replaced by U+FFFD, for records that must be kept whatever they
    /// contain (audit events).
    public static func sanitized(_ text: String) -> String {
        guard text.utf8.contains(0) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.map { $0 == "\u{0}" ? "\u{FFFD}" : $0 }))
    }
}
