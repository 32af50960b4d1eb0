import Foundation

/// An email address with an optional display name, as a header names it
/// (`Name <local@domain>`). Anything that could break out of a header or an SMTP command
/// (CR, LF, NUL, angle brackets in the address) is refused when the value is made, so it
/// can never reach the SMTP session.
public struct MailAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address itself (`local@domain`).
    public let address: String
    /// The display name, if any.
    public let name: String?

    /// Creates an address, refusing one that is not a plain `local@domain`.
    public init(_ address: String, name: String? = nil) throws(SMTPError) {
        guard Self.isPlainAddress(address) else {
            throw SMTPError(.invalidMessage, "\"\(address.prefix(80))\" is not an email address")
        }
        if let name, name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw SMTPError(.invalidMessage, "a display name may not hold control characters or line breaks")
        }
        self.address = address
        self.name = name.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Parses `Name <local@domain>`, `"Name" <local@domain>` or a bare address, as the
    /// configuration's `from` and `reply_to` are written.
    public init(parsing text: String) throws(SMTPError) {
        let trimmed = text.trimmingWhitespace
        guard trimmed.hasSuffix(">"), let open = trimmed.lastIndex(of: "<") else {
            try self.init(trimmed)
            return
        }
        let address = String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)])
        var name = String(trimmed[..<open]).trimmingWhitespace
        if name.count >= 2, name.hasPrefix("\""), name.hasSuffix("\"") { name = String(name.dropFirst().dropLast()) }
        try self.init(address, name: name)
    }

    /// The header form: the name quoted (or RFC 2047-encoded when it is not ASCII), then
    /// the address in angle brackets.
    public var headerValue: String {
        guard let name else { return "<\(address)>" }
        if name.unicodeScalars.allSatisfy({ $0.isASCII }) {
            let escaped = name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            return "\"\(escaped)\" <\(address)>"
        }
        return "\(EncodedWord.encode(name)) <\(address)>"
    }

    public var description: String { headerValue }

    /// The domain, for the `Message-ID`.
    var domain: String { address.split(separator: "@").last.map(String.init) ?? "localhost" }

    /// `local@domain` with printable ASCII only (or UTF-8 letters, which SMTPUTF8 servers
    /// take), one `@`, and nothing an SMTP command or a header could be split by.
    private static func isPlainAddress(_ address: String) -> Bool {
        guard address.utf8.count <= 254 else { return false }
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, parts[0].utf8.count <= 64 else { return false }
        return address.unicodeScalars.allSatisfy { scalar in
            if scalar.value < 0x21 || scalar.value == 0x7F { return false }
            return !"<>()[]\\,;:\"".unicodeScalars.contains(scalar)
        }
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    var trimmingWhitespace: String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" { scalars = scalars.dropFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars = scalars.dropLast() }
        return String(scalars)
    }
}
