import WebAuthn

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

    /// Whether a lookup by these texts can match a stored row at all.
    public static func canMatch(_ texts: String?...) -> Bool {
        !containsNUL(texts)
    }

    /// Refuses to store text containing U+0000.
    /// - Throws: ``StorageError`` `.invalidArgument`, naming `operation`.
    public static func requireStorable(_ texts: String?..., in operation: String) throws(StorageError) {
        if containsNUL(texts) {
            throw StorageError(.invalidArgument, "\(operation): text containing U+0000 cannot be stored")
        }
    }
}

extension User {
    /// Refuses a user whose texts a backend cannot store exactly.
    public func requireStorable(in operation: String) throws(StorageError) {
        try StoredText.requireStorable(
            id.rawValue, profile.email, profile.phoneNumber, profile.username, profile.name, profile.givenName,
            profile.familyName, profile.nickname, profile.picture, externalID, metadata, in: operation
        )
    }
}

extension PasskeyCredential {
    /// Refuses a passkey whose texts a backend cannot store exactly.
    public func requireStorable() throws(StorageError) {
        try StoredText.requireStorable(
            userID.rawValue, attestationFormat, relyingPartyID, name, recordID, origin, attestationMetadata?.entry,
            attestationMetadata?.description, attestationMetadata?.status, in: "credential"
        )
        if StoredText.containsNUL(transports) { throw StorageError(.invalidArgument, "credential: text containing U+0000 cannot be stored") }
    }
}
