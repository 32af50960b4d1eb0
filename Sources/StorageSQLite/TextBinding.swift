/// Text containing U+0000 is refused on writes and matches nothing on reads, so no stored
/// text contains it. SQLite itself would store it exactly (text is bound with its length),
/// but a C-string API anywhere on the way would read `"alice@example.com\u{0}x"` as
/// `"alice@example.com"`, naming another user's account, and PostgreSQL's text cannot hold
/// U+0000 at all: every backend follows the same rule.
enum TextBinding {
    /// Throws unless every text can be stored exactly.
    static func requireStorable(_ texts: String?..., in operation: String) throws {
        for case let text? in texts where text.utf8.contains(0) {
            throw SQLiteStorageError(.invalidArgument, "\(operation): text containing U+0000 cannot be stored")
        }
    }

    /// Whether a lookup by these texts can match a stored row at all.
    static func canMatch(_ texts: String?...) -> Bool {
        !texts.contains { $0?.utf8.contains(0) ?? false }
    }

    /// The text with U+0000 replaced by U+FFFD, for records that must be kept whatever they
    /// contain (audit events).
    static func sanitized(_ text: String) -> String {
        text.utf8.contains(0) ? text.replacingNUL : text
    }
}

extension String {
    fileprivate var replacingNUL: String {
        String(String.UnicodeScalarView(unicodeScalars.map { $0 == "\u{0}" ? "\u{FFFD}" : $0 }))
    }
}
