public import Foundation

/// Which message a mail is; each has its own template.
public enum MailKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// A code that proves an address is the person's.
    case verificationCode = "verification_code"
    /// A code that lets a person who lost every passkey back in.
    case recoveryCode = "recovery_code"
    /// A passkey was added to the account.
    case passkeyAdded = "passkey_added"
    /// A passkey was removed from the account.
    case passkeyRemoved = "passkey_removed"
    /// The account was recovered (a recovery code was used).
    case accountRecovered = "account_recovered"
    /// The account's password was removed.
    case passwordRemoved = "password_removed"
    /// The account's email address was changed (sent to the old address).
    case emailChanged = "email_changed"
}

/// A message waiting in the outbox, rendered, until the sender hands it to the mail
/// server. Queued in the database so that a request never waits on the mail server and a
/// restart loses nothing.
public struct OutboxMail: Sendable, Hashable {
    /// The message's ID, also the unique part of its `Message-ID` (a retry carries the same).
    public let id: String
    /// Which message.
    public let kind: MailKind
    /// The recipient's address.
    public let recipient: String
    /// The recipient's name, if known.
    public let recipientName: String?
    public let subject: String
    /// The plain-text body.
    public let text: String
    /// The HTML body.
    public let html: String
    /// When it was queued.
    public let createdAt: Date
    /// How many times sending was tried (counting the one a claim starts).
    public var attempts: Int

    public init(id: String, kind: MailKind, recipient: String, recipientName: String?, subject: String, text: String, html: String, createdAt: Date, attempts: Int = 0) {
        self.id = id
        self.kind = kind
        self.recipient = recipient
        self.recipientName = recipientName
        self.subject = subject
        self.text = text
        self.html = html
        self.createdAt = createdAt
        self.attempts = attempts
    }
}

extension OutboxMail {
    /// What marks a sealed part: the rest is the sealed bytes in base64.
    static let sealedPrefix = "sealed:"

    /// The message with its subject and bodies (which carry codes) sealed under `key`, each
    /// bound to the message's ID and part, so that codes do not wait in the outbox in the
    /// clear while the relay is down. The recipient stays readable: the sender needs it.
    public func sealed(under key: KeyEncryption) throws -> OutboxMail {
        func seal(_ part: String, _ name: String) throws -> String {
            Self.sealedPrefix + Data(try key.seal(Array(part.utf8), name: "mail:\(id):\(name)")).base64EncodedString()
        }
        return OutboxMail(
            id: id, kind: kind, recipient: recipient, recipientName: recipientName, subject: try seal(subject, "subject"), text: try seal(text, "text"),
            html: try seal(html, "html"), createdAt: createdAt, attempts: attempts
        )
    }

    /// The message as it is sent: its parts opened under `key` when sealed.
    /// - Throws: ``KeyEncryption/Failure`` when a part is sealed and `key` is not the one.
    public func opened(under key: KeyEncryption?) throws -> OutboxMail {
        func open(_ part: String, _ name: String) throws -> String {
            guard part.hasPrefix(Self.sealedPrefix) else { return part }
            guard let bytes = Data(base64Encoded: String(part.dropFirst(Self.sealedPrefix.count))) else { throw KeyEncryption.Failure.damaged(name: name) }
            return String(decoding: try KeyEncryption.open(Array(bytes), under: key, name: "mail:\(id):\(name)"), as: UTF8.self)
        }
        return OutboxMail(
            id: id, kind: kind, recipient: recipient, recipientName: recipientName, subject: try open(subject, "subject"), text: try open(text, "text"),
            html: try open(html, "html"), createdAt: createdAt, attempts: attempts
        )
    }
}

/// How one attempt to send a message ended.
public enum MailOutcome: Sendable, Hashable {
    /// The mail server took it. Its body (which may carry a code) is erased.
    case sent
    /// A transient failure: try again at this time.
    case retry(at: Date, error: String)
    /// A permanent failure, or too many attempts: it stays in the outbox as failed, its
    /// body erased.
    case abandoned(error: String)
}

/// Where a queued message stands, for operators and tests.
public struct OutboxMailState: Sendable, Hashable {
    /// `pending`, `sent` or `failed`.
    public let status: String
    /// Attempts so far.
    public let attempts: Int
    /// The last failure, if any.
    public let lastError: String?

    public init(status: String, attempts: Int, lastError: String?) {
        self.status = status
        self.attempts = attempts
        self.lastError = lastError
    }
}
