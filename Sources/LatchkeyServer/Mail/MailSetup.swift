import IdentityCore
import Logging
import Mail

/// The mail path as `email:` configures it: the mailer requests queue with, the transport
/// the sender delivers through, and the wake-ups between them.
struct MailSetup: Sendable {
    let mailer: Mailer
    let transport: any MailTransport
    let wakeUps: AsyncStream<Void>

    /// The key-encryption key that seals messages in the outbox, when one is configured.
    let sealing: KeyEncryption?

    init(
        _ email: LatchkeyConfiguration.Email, storage: any MailOutboxStore, serviceName: String, sealing: KeyEncryption?, clock: any WallClock, random: any RandomSource,
        logger: Logger
    ) {
        let (wakeUps, bell) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.wakeUps = wakeUps
        self.sealing = sealing
        mailer = Mailer(outbox: storage, templates: email.templates, serviceName: serviceName, clock: clock, random: random, sealing: sealing, onQueued: { bell.yield() })
        if let smtp = email.smtp {
            transport = SMTPTransport(client: SMTPClient(settings: smtp), from: email.from, replyTo: email.replyTo)
        } else {
            transport = LogMailTransport(logger: logger)
        }
    }
}
