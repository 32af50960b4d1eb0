import Foundation
import LatchkeyWire
import Localization

/// Queues the messages Latchkey sends: renders a template and puts the result in the
/// outbox, which a background sender empties. A request never waits on a mail server.
public struct Mailer: Sendable {
    private let outbox: any MailOutboxStore
    private let templates: MailTemplates
    private let clock: any WallClock
    private let random: any RandomSource
    /// What the messages call the service (`{{service}}`).
    public let serviceName: String
    /// Called after a message is queued, so that the sender need not wait for its next poll.
    private let queued: @Sendable () -> Void
    /// The key-encryption key, when one is configured: messages wait in the outbox sealed.
    private let sealing: KeyEncryption?

    /// `sealing` seals each message's subject and bodies before it is queued; the sender
    /// opens them with the same key.
    public init(
        outbox: any MailOutboxStore, templates: MailTemplates = MailTemplates(), serviceName: String, clock: any WallClock, random: any RandomSource,
        sealing: KeyEncryption? = nil, onQueued: @escaping @Sendable () -> Void = {}
    ) {
        self.sealing = sealing
        self.queued = onQueued
        self.outbox = outbox
        self.templates = templates
        self.serviceName = serviceName
        self.clock = clock
        self.random = random
    }

    /// Queues a message of `kind` to `user`'s email address (a no-op without one).
    /// - Parameter address: Where to send it, when not the user's current address (a new
    ///   address being verified).
    /// - Returns: The message's ID, or `nil` when there was no address.
    @discardableResult
    public func queue(_ kind: MailKind, to user: User, address: String? = nil, values: [String: String] = [:]) async throws -> String? {
        guard let mail = compose(kind, to: user, address: address, values: values) else { return nil }
        try await outbox.enqueueMail(mail)
        queued()
        return mail.id
    }

    /// A message of `kind` to `user`, rendered and ready for the outbox, for a caller that
    /// writes it together with something else (a code and the mail carrying it); the caller
    /// then calls ``didQueue()``. `nil` without an address.
    public func compose(_ kind: MailKind, to user: User, address: String? = nil, values: [String: String] = [:]) -> OutboxMail? {
        guard let recipient = address ?? user.profile.email else { return nil }
        let now = clock.now()
        // An address the account has not proven may be anyone's: the account's own words (its
        // name, which whoever signed up chose) never reach it; it is greeted by itself.
        let proven = user.isEmailVerified && recipient == user.profile.email
        var filled = values
        filled["service"] = filled["service"] ?? serviceName
        filled["name"] = filled["name"] ?? (proven ? user.displayName : recipient)
        // The language of the request that causes the message: the person's, on the hosted pages.
        let language = RequestLanguage.current ?? templates.defaultLanguage
        filled["time"] = filled["time"] ?? (language == .english ? Self.timeText(now) : templates.catalog.strings(language).dateTime(now))
        let rendered = templates.render(kind, values: filled, language: language)
        let mail = OutboxMail(
            id: UUIDText.hex(random.bytes(16)), kind: kind, recipient: recipient, recipientName: proven ? user.profile.name : nil, subject: rendered.subject,
            text: rendered.text, html: rendered.html, createdAt: now
        )
        // AES-GCM with a key this instance holds does not fail; were it to, the message goes
        // out as it would without a key rather than not at all.
        return sealing.flatMap { try? mail.sealed(under: $0) } ?? mail
    }

    /// Tells the sender that a message was queued, so that it need not wait for its next poll.
    public func didQueue() { queued() }

    /// "2026-11-26 19:04 UTC": a time every reader understands without a locale. (ISO 8601
    /// formatting is Foundation's own code; a `DateFormatter` would cost each sign-up's mail
    /// an ICU formatter.)
    static func timeText(_ date: Date) -> String {
        let iso = date.formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC") ?? .current))
        return iso.prefix(10) + " " + iso.dropFirst(11).prefix(5) + " UTC"
    }
}
