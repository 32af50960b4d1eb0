import Foundation
import IdentityCore
import Logging
import Mail
import ServiceLifecycle
import Tracing

/// Empties the outbox: claims due messages, hands each to the transport, and records the
/// outcome: sent, retried later with exponential backoff (a transient failure), or given up
/// (a permanent one, or too many attempts). Each attempt is logged with its outcome and the
/// message's ID and kind, never its body (which may carry a code).
struct MailSenderService: Service {
    let outbox: any MailOutboxStore
    let transport: any MailTransport
    /// What opens the messages sealed in the outbox.
    let sealing: KeyEncryption?
    let clock: any WallClock
    /// Woken when this instance queues a message; other instances' messages and retries
    /// are found by polling at ``pollInterval``.
    let wakeUps: AsyncStream<Void>
    let logger: Logger
    /// The longest one message may take (the transport's timeout and a margin): a claim lasts
    /// a batch of these, so that a message is never sent by two senders at once.
    let lease: TimeInterval
    var pollInterval: Duration = .seconds(5)

    /// Messages claimed at once: a burst (a wave of sign-ups) costs one claim per ten.
    static let batch = 10

    /// Attempts before a message is given up: with the backoff below, about a day.
    static let maximumAttempts = 12

    /// 30 s, doubling each attempt, at most 4 hours.
    static func backoff(afterAttempt attempt: Int) -> TimeInterval {
        min(4 * 3600, 30 * pow(2, Double(max(0, attempt - 1))))
    }

    func run() async throws {
        // A moment's wait gathers a burst (a wave of sign-ups) into one claim.
        await OutboxPump.run(
            wakeUps: wakeUps, gather: .milliseconds(50), pollInterval: pollInterval, logger: logger, source: "mail", failure: "could not read the mail outbox"
        ) { try await sendDue() }
    }

    /// Sends what is due now. - Returns: How many messages were tried.
    func sendDue() async throws -> Int {
        let now = clock.now()
        // The claim lasts until the whole batch has surely been tried, one message after another.
        let due = try await outbox.claimMail(dueAt: now, leaseUntil: now.addingTimeInterval(lease * Double(Self.batch) + 60), limit: Self.batch)
        for mail in due {
            await send(mail)
        }
        return due.count
    }

    /// One attempt, in a span of its own (the message's kind and attempt, the outcome; never
    /// the address), whose log lines carry its trace ID.
    private func send(_ mail: OutboxMail) async {
        await Spans.traced("mail.deliver", kind: .client) { span in
            span?.updateAttributes { attributes in
                attributes["mail.kind"] = mail.kind.rawValue
                attributes["mail.attempt"] = mail.attempts
            }
            let said = switch await attempt(mail) {
            case .sent: "sent"
            case .retry: "retry"
            case .abandoned: "abandoned"
            }
            span?.attributes["mail.outcome"] = said
            if said != "sent" { span?.setStatus(SpanStatus(code: .error)) }
        }
    }

    private func attempt(_ mail: OutboxMail) async -> MailOutcome {
        var metadata: Logger.Metadata = [
            "mail": .string(mail.id), "kind": .string(mail.kind.rawValue), "attempt": .stringConvertible(mail.attempts),
            "to_domain": .string(String(mail.recipient.split(separator: "@").last ?? "")),
        ]
        let outcome: MailOutcome
        do {
            let opened: OutboxMail
            do {
                opened = try mail.opened(under: sealing)
            } catch {
                throw SMTPError(.invalidMessage, "the message is sealed under another key-encryption key than this instance's: \(error)")
            }
            try await transport.deliver(opened)
            outcome = .sent
            logger.info("mail sent", metadata: metadata, source: "mail")
        } catch {
            let failure = error as? SMTPError ?? SMTPError(.connection, "\(error)")
            metadata["error"] = .string(failure.description)
            if failure.isTransient && mail.attempts < Self.maximumAttempts {
                let retry = clock.now().addingTimeInterval(Self.backoff(afterAttempt: mail.attempts))
                outcome = .retry(at: retry, error: failure.description)
                metadata["retry_in_seconds"] = .stringConvertible(Int(Self.backoff(afterAttempt: mail.attempts)))
                logger.warning("mail not sent; will retry", metadata: metadata, source: "mail")
            } else {
                outcome = .abandoned(error: failure.description)
                logger.error("mail not sent; giving up", metadata: metadata, source: "mail")
            }
        }
        do {
            try await outbox.finishMail(id: mail.id, outcome: outcome, at: clock.now())
        } catch {
            // The lease runs out and the message is tried again: sent twice at worst, never lost.
            logger.error("could not record a mail's outcome", metadata: ["mail": .string(mail.id), "error": "\(error)"], source: "mail")
        }
        return outcome
    }
}
