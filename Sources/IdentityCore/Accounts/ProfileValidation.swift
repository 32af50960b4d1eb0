import Foundation
public import LatchkeyWire

/// Validates and normalizes identifiers and profile fields. Normalized identifiers are
/// what uniqueness is decided on: Unicode NFC, emails and usernames lowercased.
public enum ProfileValidation {
    /// The identifier kinds a deployment may accept at sign-up.
    public enum IdentifierKind: String, Sendable, CaseIterable {
        case email
        case phoneNumber = "phone_number"
        case username
    }

    /// Validates a sign-up profile as received and returns it normalized.
    /// - Parameter allowed: The identifier kinds this deployment accepts; at least one must be present.
    public static func validate(_ input: UserProfile, allowed: Set<IdentifierKind>) throws(IdentityError) -> UserProfile {
        var profile = UserProfile()
        if let email = input.email {
            guard allowed.contains(.email) else { throw unsupported(.email) }
            profile.email = try normalizeEmail(email)
        }
        if let phone = input.phoneNumber {
            guard allowed.contains(.phoneNumber) else { throw unsupported(.phoneNumber) }
            profile.phoneNumber = try normalizePhoneNumber(phone)
        }
        if let username = input.username {
            guard allowed.contains(.username) else { throw unsupported(.username) }
            profile.username = try normalizeUsername(username)
        }
        guard !profile.identifiers.isEmpty else {
            let names = IdentifierKind.allCases.filter(allowed.contains).map(\.rawValue).joined(separator: ", ")
            throw IdentityError(.invalidRequest, about: .profile, "needs an identifier: one of \(names)")
        }
        profile.name = try text(input.name, "name", maximum: 300)
        profile.givenName = try text(input.givenName, "given_name", maximum: 150)
        profile.familyName = try text(input.familyName, "family_name", maximum: 150)
        profile.nickname = try text(input.nickname, "nickname", maximum: 300)
        if let picture = input.picture {
            guard picture.utf8.count <= 2048, let url = URL(string: picture), ["https", "http"].contains(url.scheme?.lowercased() ?? "") else {
                throw IdentityError(.invalidRequest, about: .profileMember("picture"), "must be an http(s) URL of at most 2048 bytes")
            }
            profile.picture = picture
        }
        return profile
    }

    /// Reads a login identifier the way it was most likely meant: an email if it has an
    /// `@`, a phone number if it starts with `+`, else a username.
    public static func identifier(forLogin text: String) -> Identifier? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.contains("@"), let email = try? normalizeEmail(trimmed) { return .email(email) }
        if trimmed.hasPrefix("+"), let phone = try? normalizePhoneNumber(trimmed) { return .phoneNumber(phone) }
        if let username = try? normalizeUsername(trimmed) { return .username(username) }
        return nil
    }

    static func normalizeEmail(_ raw: String) throws(IdentityError) -> String {
        let email = (asciiTrimmed(raw, newlines: false) ?? raw.trimmingCharacters(in: .whitespaces).precomposedStringWithCanonicalMapping).lowercased()
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard email.utf8.count <= 254, parts.count == 2, let local = parts.first, let domain = parts.last,
            !local.isEmpty, local.utf8.count <= 64, domain.contains("."), !domain.hasPrefix("."), !domain.hasSuffix("."),
            !domain.contains(".."), hasNoSpaceOrControl(email)
        else {
            throw IdentityError(.invalidRequest, about: .profileMember("email"), "is not a valid email address (at most 254 bytes)")
        }
        return email
    }

    static func normalizePhoneNumber(_ raw: String) throws(IdentityError) -> String {
        let phone = raw.trimmingCharacters(in: .whitespaces)
        let digits = phone.dropFirst()
        guard phone.hasPrefix("+"), (2...15).contains(digits.count), digits.first != "0",
            digits.allSatisfy({ $0.isASCII && $0.isNumber })
        else {
            throw IdentityError(.invalidRequest, about: .profileMember("phone_number"), "must be in E.164 form, for example +14155552671")
        }
        return phone
    }

    static func normalizeUsername(_ raw: String) throws(IdentityError) -> String {
        let username = (asciiTrimmed(raw, newlines: false) ?? raw.trimmingCharacters(in: .whitespaces).precomposedStringWithCanonicalMapping).lowercased()
        let allowedPunctuation: Set<Character> = ["_", ".", "-", "+", "@"]
        guard (1...128).contains(username.count), username.utf8.count <= 512,
            username.allSatisfy({ $0.isLetter || $0.isNumber || allowedPunctuation.contains($0) })
        else {
            throw IdentityError(.invalidRequest, about: .profileMember("username"), "must be 1 to 128 letters, digits or _ . - + @")
        }
        return username
    }

    /// Validates a name-like field: 1 to `maximum` characters, no control characters.
    public static func text(_ raw: String?, _ field: String, maximum: Int) throws(IdentityError) -> String? {
        guard let raw else { return nil }
        let value = asciiTrimmed(raw, newlines: true) ?? raw.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
        guard (1...maximum).contains(value.count), value.utf8.count <= maximum * 4, hasNoControl(value) else {
            throw IdentityError(.invalidRequest, about: .profileMember(field), "must be 1 to \(maximum) characters without control characters")
        }
        return value
    }

    /// The longest name, in characters.
    public static let maximumNameLength = 100

    /// Validates an optional name (a passkey's, a person's): empty or blank is no name;
    /// otherwise 1 to 100 characters without control characters.
    /// - Parameter field: The request member named in the error.
    public static func optionalName(_ raw: String?, field: IdentityError.Field) throws(IdentityError) -> String? {
        guard let trimmed = raw?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else { return nil }
        do {
            return try text(trimmed, "name", maximum: maximumNameLength)
        } catch {
            throw IdentityError(.invalidRequest, about: field, "must be 1 to 100 characters without control characters")
        }
    }

    /// ASCII text (nearly every identifier) trimmed byte by byte, or `nil` for other text.
    /// ASCII is already in NFC, and Foundation's trimming and normalization bridge through
    /// NSString: they cost more than the rest of a sign-up's validation (measured, 12 µs).
    /// Trims what `.whitespaces` (or `.whitespacesAndNewlines`) trims in ASCII: space and
    /// tab (and LF, VT, FF, CR).
    private static func asciiTrimmed(_ raw: String, newlines: Bool) -> String? {
        let utf8 = raw.utf8
        guard utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        func trimmed(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || newlines && (0x0A...0x0D).contains(byte) }
        guard let first = utf8.firstIndex(where: { !trimmed($0) }), let last = utf8.lastIndex(where: { !trimmed($0) }) else { return "" }
        if first == utf8.startIndex && last == utf8.index(before: utf8.endIndex) { return raw }
        return String(raw[first...last])
    }

    /// No whitespace or control character; for ASCII, by bytes (the same set: the printable
    /// characters 0x21 to 0x7E), without Unicode property lookups.
    private static func hasNoSpaceOrControl(_ text: String) -> Bool {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.utf8.allSatisfy { (0x21...0x7E).contains($0) } }
        return text.unicodeScalars.allSatisfy { !$0.properties.isWhitespace && !isControl($0) }
    }

    /// No control character (format characters other than ZWJ count as control); for
    /// ASCII, by bytes: none below 0x20, and no DEL.
    private static func hasNoControl(_ text: String) -> Bool {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.utf8.allSatisfy { $0 >= 0x20 && $0 != 0x7F } }
        return !text.unicodeScalars.contains(where: isControl)
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format && scalar.value != 0x200D
    }

    private static func unsupported(_ kind: IdentifierKind) -> IdentityError {
        IdentityError(.invalidRequest, about: .profileMember(kind.rawValue), "is not accepted by this deployment")
    }
}
