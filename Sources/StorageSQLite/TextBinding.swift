import IdentityCore

/// IdentityCore's ``StoredText`` rule, with this backend's error.
enum TextBinding {
    /// Throws unless every text can be stored exactly.
    static func requireStorable(_ texts: String?..., in operation: String) throws {
        if StoredText.containsNUL(texts) {
            throw SQLiteStorageError(.invalidArgument, "\(operation): text containing U+0000 cannot be stored")
        }
    }

    /// Whether a lookup by these texts can match a stored row at all.
    static func canMatch(_ texts: String?...) -> Bool {
        !StoredText.containsNUL(texts)
    }

    /// The text with U+0000 replaced by U+FFFD.
    static func sanitized(_ text: String) -> String {
        StoredText.sanitized(text)
    }
}
