import Foundation
import IdentityCore
import Localization
import WebAuthn
import Logging
import ServiceLifecycle

/// The mails that follow what happened to an account, on every face alike: a new account
/// gets its verification code, and a verified address hears of a passkey added or removed
/// and of a removed password. It watches the audit events the storage announces after each
/// commit, so no face has to remember to send them.
///
/// A crash between an event's commit and its message's queueing loses that notice; the
/// verification code can be asked for again, and the audit event stays.
struct AccountMailService: Service {
    let events: AsyncStream<AuditEvent>
    let storage: any UserStore & CredentialStore
    let mailer: Mailer
    let recovery: AccountRecoveryService
    let names: AuthenticatorNames
    let logger: Logger

    /// The events that send mail.
    static let kinds: Set<AuditEvent.Kind> = [.signup, .enrollment, .credentialDeleted, .passwordRemoved]

    /// Connects a feed to a stream this service reads.
    static func stream(from feed: SecurityEventFeed) -> AsyncStream<AuditEvent> {
        let (stream, continuation) = AsyncStream<AuditEvent>.makeStream(bufferingPolicy: .bufferingNewest(10_000))
        feed.watch { event in
            if kinds.contains(event.kind), event.userID != nil { continuation.yield(event) }
        }
        return stream
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            for await event in events {
                do {
                    try await handle(event)
                } catch {
                    logger.warning("could not queue the mail for an event", metadata: ["event": .string(event.kind.rawValue), "error": "\(error)"], source: "mail")
                }
            }
        }
    }

    /// Queues the event's mail in the language of the request that caused it, where the
    /// hosted pages named one.
    func handle(_ event: AuditEvent) async throws {
        try await RequestLanguage.$current.withValue(event.origin?.language.map(Language.init)) {
            try await mail(for: event)
        }
    }

    private func mail(for event: AuditEvent) async throws {
        guard let userID = event.userID, let user = try await storage.user(id: userID) else { return }
        switch event.kind {
        case .signup:
            await recovery.signedUp(user)
        case .enrollment, .credentialDeleted:
            // Notices go to a verified address only: an unverified one may not be the person's.
            guard user.isEmailVerified else { return }
            try await mailer.queue(event.kind == .enrollment ? .passkeyAdded : .passkeyRemoved, to: user, values: ["passkey": await passkeyName(event)])
        case .passwordRemoved:
            guard user.isEmailVerified else { return }
            try await mailer.queue(.passwordRemoved, to: user)
        default:
            return
        }
    }

    /// The passkey's provider name where it is known ("iCloud Keychain"), else "a passkey".
    private func passkeyName(_ event: AuditEvent) async -> String {
        guard let id = event.credentialID, let bytes = Base64URL.decode(id), let credential = (try? await storage.credential(id: bytes)) ?? nil
        else { return "a passkey" }
        return names.displayName(of: credential)
    }
}
