import Foundation
import IdentityCore
import Logging
import ServiceLifecycle

/// Tells clients that their sessions ended (OpenID Connect Back-Channel Logout 1.0 §2.5):
/// claims due notices from the outbox, posts each client a fresh logout token as
/// `logout_token` in a form to its `backchannel_logout_uri`, and records the answer. A 2xx
/// (the specification's 200, or the 204 it asks servers to accept) is delivered; a 4xx
/// means the client refused the token, which sending it again would not change; anything
/// else, or no answer, is tried again on the webhooks' schedule. Addresses are held to
/// `webhooks.allow_private_networks` as webhooks' are, since both post where configuration
/// says.
struct BackchannelLogoutSenderService: Service {
    let store: any BackchannelLogoutStore
    let clients: ClientRegistry
    let tokens: TokenService
    let policy: WebhookAddressPolicy
    let clock: any WallClock
    let logger: Logger
    /// Sessions end on this instance's requests (woken at once through the event feed when
    /// it is given) and on others' (found by polling).
    var wakeUps = AsyncStream<Void> { $0.finish() }
    var pollInterval: Duration = .seconds(1)

    /// How long one attempt may take: §2.8 has the server wait for the answer, and a
    /// client that takes longer is treated as down.
    static let timeout: TimeInterval = 10
    /// Notices claimed at once, posted side by side (§2.5 encourages parallel posts).
    static let batch = 16

    /// The events whose sessions may have ended, which wake the sender at once.
    static let sessionEnds: Set<AuditEvent.Kind> = [
        .signedOut, .signedOutEverywhere, .sessionRevoked, .userDisabled, .userDeleted, .consentRevoked, .credentialDeleted, .credentialDisabled,
        .passwordRemoved, .refreshTokenReused, .authorizationCodeReused, .tokensRevoked,
    ]

    func run() async throws {
        let poster = WebhookPoster(policy: policy, timeout: Self.timeout)
        await OutboxPump.run(
            wakeUps: wakeUps, pollInterval: pollInterval, logger: logger, source: "logout", failure: "could not read the back-channel logout outbox"
        ) {
            let now = clock.now()
            return try await store.claimBackchannelLogouts(dueAt: now, leaseUntil: now.addingTimeInterval(Self.timeout * 2 + 30), limit: Self.batch)
        } send: { await deliver($0, poster) }
    }

    private func deliver(_ notice: BackchannelLogout, _ poster: WebhookPoster) async {
        let outcome: WebhookAttemptOutcome
        if let client = clients.client(id: notice.clientID), let uri = client.backchannelLogoutURI {
            outcome = await attempt(notice, client: client, to: uri, poster)
        } else {
            outcome = .failed(status: nil, error: "the client no longer has a backchannel_logout_uri")
        }
        if case .delivered = outcome {} else {
            logger.warning(
                "could not tell a client that a session ended", metadata: ["client": "\(notice.clientID)", "outcome": "\(outcome)"], source: "logout")
        }
        do {
            try await store.finishBackchannelLogout(position: notice.position, outcome: outcome, at: clock.now())
        } catch {
            logger.warning("could not record a back-channel logout", metadata: ["client": "\(notice.clientID)", "error": "\(error)"], source: "logout")
        }
    }

    /// One attempt, with a token made now: each attempt's `iat` and `exp` are its own.
    private func attempt(_ notice: BackchannelLogout, client: OAuthClient, to uri: URL, _ poster: WebhookPoster) async -> WebhookAttemptOutcome {
        let token: String
        do {
            token = try await tokens.logoutToken(sessionID: notice.sessionID, userID: notice.userID, client: client)
        } catch {
            return retry(notice, status: nil, error: "could not sign the logout token: \(error)")
        }
        // A JWT is base64url and dots: nothing in it needs escaping in a form.
        let body = Array("logout_token=\(token)".utf8)
        let headers = [("Content-Type", "application/x-www-form-urlencoded"), ("User-Agent", "Latchkey-Logout/1")]
        let outcome = await poster.post(uri, headers: headers, body: body)
        return WebhookPoster.attemptOutcome(outcome, now: clock.now(), retry: { retry(notice, status: $0, error: $1) }) { status in
            switch status {
            case 200..<300: .delivered(status: status)
            case 408, 425, 429: retry(notice, status: status, error: "answered \(status)")
            case 400..<500: .failed(status: status, error: "answered \(status): the client refused the logout token")
            default: retry(notice, status: status, error: "answered \(status)")
            }
        }
    }

    private func retry(_ notice: BackchannelLogout, status: Int?, error: String) -> WebhookAttemptOutcome {
        WebhookRetrySchedule.retry(after: notice.attempts, createdAt: notice.createdAt, now: clock.now(), status: status, error: error)
    }
}
