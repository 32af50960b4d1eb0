public import Foundation

/// Where an entry of a retried outbox stands. Webhook deliveries and back-channel logout
/// notices are both sent at least once by a background sender, retried on the same schedule
/// and given up on alike, so they keep these columns under the same names.
public struct DeliveryAttempts: Sendable, Hashable {
    /// Where it stands.
    public let status: WebhookDeliveryStatus
    /// Attempts made so far.
    public let attempts: Int
    /// When it is due (the next attempt; a claimed one's lease).
    public let nextAttemptAt: Date
    /// The last answer's status, if one came.
    public let lastStatus: Int?
    /// Why the last attempt failed.
    public let lastError: String?
}

/// An outbox entry that a background sender retries; its attempts read as members of the
/// entry, as the senders and the Admin API name them.
public protocol RetriedDelivery: Sendable {
    var delivery: DeliveryAttempts { get }
}

extension RetriedDelivery {
    /// Where it stands.
    public var status: WebhookDeliveryStatus { delivery.status }
    /// Attempts made so far.
    public var attempts: Int { delivery.attempts }
    /// When it is due (the next attempt; a claimed one's lease).
    public var nextAttemptAt: Date { delivery.nextAttemptAt }
    /// The last answer's status, if one came.
    public var lastStatus: Int? { delivery.lastStatus }
    /// Why the last attempt failed.
    public var lastError: String? { delivery.lastError }
}
