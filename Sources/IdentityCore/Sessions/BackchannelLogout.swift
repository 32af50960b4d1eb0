public import Foundation

/// One login session's end, to be told to its client (OpenID Connect Back-Channel Logout
/// 1.0): written by the storage in the very transaction that revokes the session, whatever
/// revoked it (a sign-out, "sign out everywhere", an administrator, a removed passkey, a
/// replayed refresh token), and posted by a background sender, at least once.
public struct BackchannelLogout: RetriedDelivery, Hashable {
    /// Its position among notices: a later one has a higher one.
    public let position: Int64
    /// The client to tell.
    public let clientID: String
    /// The login session that ended: the `sid` of its ID tokens.
    public let sessionID: String
    /// Whose session it was: the `sub`.
    public let userID: UserID
    /// Where it stands, with the webhooks' states (pending, delivered, failed).
    public let delivery: DeliveryAttempts
    /// When the session ended.
    public let createdAt: Date
}

extension BackchannelLogout {
    /// A notice with its attempts so far, as a store reads it back.
    public init(
        position: Int64, clientID: String, sessionID: String, userID: UserID, status: WebhookDeliveryStatus, attempts: Int, nextAttemptAt: Date,
        lastStatus: Int?, lastError: String?, createdAt: Date
    ) {
        let delivery = DeliveryAttempts(status: status, attempts: attempts, nextAttemptAt: nextAttemptAt, lastStatus: lastStatus, lastError: lastError)
        self.init(position: position, clientID: clientID, sessionID: sessionID, userID: userID, delivery: delivery, createdAt: createdAt)
    }
}

/// The back-channel logout outbox. A session's end writes a notice only for a client that
/// registered a `backchannel_logout_uri`, so that a deployment without one pays nothing.
public protocol BackchannelLogoutStore: Sendable {
    /// Makes these the clients whose sessions' ends write a notice. Replaces any others.
    func replaceBackchannelLogoutClients(_ clientIDs: Set<String>) async throws
    /// Claims up to `limit` pending notices due at `time`: each one's attempts go up by one
    /// and it is not due again until `leaseUntil`, so that no other sender (on any instance)
    /// takes it meanwhile.
    func claimBackchannelLogouts(dueAt time: Date, leaseUntil: Date, limit: Int) async throws -> [BackchannelLogout]
    /// Records how an attempt ended.
    func finishBackchannelLogout(position: Int64, outcome: WebhookAttemptOutcome, at time: Date) async throws
    /// Notices, newest first, optionally in one status.
    func backchannelLogouts(status: WebhookDeliveryStatus?, limit: Int) async throws -> [BackchannelLogout]
    /// Deletes finished notices written before `time`, at most `limit`.
    func purgeBackchannelLogouts(before time: Date, limit: Int) async throws -> Int
}
