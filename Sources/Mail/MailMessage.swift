public import Foundation

/// One email: sender, recipient, subject, and a plain-text and an HTML body, written out as
/// an RFC 5322 message with a `multipart/alternative` MIME body (RFC 2045/2046).
public struct MailMessage: Sendable {
    /// The sender (`From`).
    public var from: MailAddress
    /// The recipient (`To`).
    public var to: MailAddress
    /// Where replies go (`Reply-To`), if not to the sender.
    public var replyTo: MailAddress?
    /// The subject, any Unicode text without line breaks.
    public var subject: String
    /// The plain-text body.
    public var text: String
    /// The HTML body, if any; without one the message is plain text only.
    public var html: String?

    /// Creates a message, refusing a subject with a line break or a control character
    /// (where a header could be injected).
    public init(from: MailAddress, to: MailAddress, replyTo: MailAddress? = nil, subject: String, text: String, html: String? = nil) throws(SMTPError) {
        if subject.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw SMTPError(.invalidMessage, "a subject may not hold line breaks or control characters")
        }
        self.from = from
        self.to = to
        self.replyTo = replyTo
        self.subject = subject
        self.text = text
        self.html = html
    }

    /// The message as sent after `DATA`: headers and body with CRLF line ends, before dot
    /// stuffing (``SMTPClient`` does that).
    /// - Parameters:
    ///   - date: The `Date` header's time.
    ///   - messageID: The unique part of the `Message-ID` (the sender's domain is added).
    ///   - boundary: The MIME boundary; random, so that no body line can equal it.
    public func rendered(date: Date, messageID: String, boundary: String) -> String {
        var headers = [
            "Date: \(Self.dateFormatter.string(from: date))",
            "From: \(from.headerValue)",
            "To: \(to.headerValue)",
        ]
        if let replyTo { headers.append("Reply-To: \(replyTo.headerValue)") }
        headers += [
            "Subject: \(EncodedWord.encode(subject))",
            "Message-ID: <\(messageID)@\(from.domain)>",
            "MIME-Version: 1.0",
        ]
        guard let html else {
            return (headers + Self.partHeaders("text/plain")).joined(separator: "\r\n") + "\r\n\r\n" + Self.body(text)
        }
        headers.append("Content-Type: multipart/alternative; boundary=\"\(boundary)\"")
        var message = headers.joined(separator: "\r\n") + "\r\n\r\n"
        // Plain text first: RFC 2046 §5.1.4 lists the alternatives in increasing preference.
        for (type, content) in [("text/plain", text), ("text/html", html)] {
            message += "--\(boundary)\r\n" + Self.partHeaders(type).joined(separator: "\r\n") + "\r\n\r\n" + Self.body(content)
        }
        return message + "--\(boundary)--\r\n"
    }

    /// Bodies are base64: any UTF-8 text then travels on a 7-bit server and no line can be
    /// too long (RFC 5321 §4.5.3.1.6 allows 1,000 octets) or start with a dot.
    private static func partHeaders(_ type: String) -> [String] {
        ["Content-Type: \(type); charset=utf-8", "Content-Transfer-Encoding: base64"]
    }

    private static func body(_ content: String) -> String {
        let normalized = content.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\n", with: "\r\n")
        // RFC 2045 §6.8: lines of at most 76 characters, each ended by CRLF.
        return Data(normalized.utf8).base64EncodedString(options: [.lineLength76Characters, .endLineWithCarriageReturn, .endLineWithLineFeed]) + "\r\n"
    }

    /// RFC 5322 §3.3 date-time, in UTC.
    private static var dateFormatter: DateFormatter {
        // Made per message: a shared formatter is not Sendable, and mail is not a hot path.
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        return formatter
    }
}
