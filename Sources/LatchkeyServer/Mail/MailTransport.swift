import Foundation
import IdentityCore
import Logging
import Mail

/// Where the outbox's messages go: a relay, or the log.
protocol MailTransport: Sendable {
    /// Hands one message over.
    /// - Throws: ``SMTPError``; its kind tells whether to retry.
    func deliver(_ mail: OutboxMail) async throws
    /// What the start-up log says about it.
    var summary: String { get }
}

/// Sends through the configured relay with ``SMTPClient``.
struct SMTPTransport: MailTransport {
    let client: SMTPClient
    let from: MailAddress
    let replyTo: MailAddress?

    func deliver(_ mail: OutboxMail) async throws {
        let message = try MailMessage(
            from: from, to: try MailAddress(mail.recipient, name: mail.recipientName), replyTo: replyTo, subject: mail.subject, text: mail.text,
            html: mail.html.isEmpty ? nil : mail.html
        )
        try await client.send(message, messageID: mail.id, date: mail.createdAt)
    }

    var summary: String {
        let settings = client.settings
        let security: String
        switch settings.security {
        case .implicitTLS: security = "TLS"
        case .required: security = "STARTTLS required"
        case .opportunistic: security = "STARTTLS when offered"
        }
        return "mail through \(settings.host):\(settings.port) (\(security)) from \(from.headerValue)"
    }
}

/// The development mailer: with no `email.smtp_url`, each message is written to the log,
/// clearly marked, so that a newcomer on localhost can still read a verification or
/// recovery code. Never for production: the log then holds the codes.
struct LogMailTransport: MailTransport {
    let logger: Logger

    func deliver(_ mail: OutboxMail) async throws {
        let banner = "DEVELOPMENT MAILER (no email.smtp_url configured; this message was NOT sent)"
        logger.notice(
            "\(banner)\nTo: \(mail.recipient)\nSubject: \(mail.subject)\n\n\(mail.text)",
            metadata: ["mail": .string(mail.id), "kind": .string(mail.kind.rawValue)], source: "mail"
        )
    }

    var summary: String { "no email.smtp_url: messages go to this log (development mailer), not to anyone's mailbox" }
}
