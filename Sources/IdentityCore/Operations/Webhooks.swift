public import Foundation

/// The events webhooks carry, each reporting audit events of some kinds. A subscription
/// names types or prefixes of them (`user.` is every `user.*`).
public enum WebhookEventType: String, Sendable, Hashable, CaseIterable {
    case userCreated = "user.created"
    case userDeleted = "user.deleted"
    case userDisabled = "user.disabled"
    case userSignedIn = "user.signed_in"
    case userSignInFailed = "user.sign_in_failed"
    case passkeyAdded = "passkey.added"
    case passkeyRemoved = "passkey.removed"
    case passwordRemoved = "password.removed"
    case sessionRevoked = "session.revoked"
    case recoveryUsed = "recovery.used"
    case metadataModelRefused = "metadata.model_refused"

    /// The audit events it reports.
    public var auditKinds: Set<AuditEvent.Kind> {
        switch self {
        case .userCreated: [.signup, .userCreated]
        case .userDeleted: [.userDeleted]
        case .userDisabled: [.userDisabled]
        case .userSignedIn: [.login]
        case .userSignInFailed: [.loginFailed]
        case .passkeyAdded: [.enrollment]
        case .passkeyRemoved: [.credentialDeleted]
        case .passwordRemoved: [.passwordRemoved]
        case .sessionRevoked: [.sessionRevoked, .signedOut, .signedOutEverywhere]
        case .recoveryUsed: [.accountRecovered]
        case .metadataModelRefused: [.authenticatorStatusFlagged]
        }
    }

    /// The type an audit event is reported as, if any.
    public init?(reporting kind: AuditEvent.Kind) {
        guard let type = Self.allCases.first(where: { $0.auditKinds.contains(kind) }) else { return nil }
        self = type
    }

    /// The types a subscription's entries name: exact types, or prefixes ending in `.`.
    /// - Throws: `invalid_request` naming an entry that names no type.
    public static func subscribed(to entries: [String]) throws(IdentityError) -> Set<WebhookEventType> {
        var types = Set<WebhookEventType>()
        for entry in entries {
            let matched = allCases.filter { entry.hasSuffix(".") ? $0.rawValue.hasPrefix(entry) : $0.rawValue == entry }
            guard !matched.isEmpty else {
                throw IdentityError(.invalidRequest, "\"\(entry.prefix(60))\" names no event; events are \(allCases.map(\.rawValue).joined(separator: ", ")), or a prefix such as user.")
            }
            types.formUnion(matched)
        }
        return types
    }
}

/// Where a delivery stands.
public enum WebhookDeliveryStatus: String, Sendable, Hashable, CaseIterable {
    /// Waiting for its next attempt.
    case pending
    /// The endpoint answered 2xx.
    case delivered
    /// Given up: the retries ran out, or the endpoint answered 410 (and is off).
    case failed
}

/// One event for one endpoint: written in the transaction of the change it reports (a
/// trigger on the audit trail), sent by a background sender, at least once.
public struct WebhookDelivery: RetriedDelivery, Hashable {
    /// Its position among deliveries: a later one has a higher one.
    public let position: Int64
    /// `msg_<event>_<endpoint>`: the `webhook-id` every attempt carries.
    public let id: String
    /// The endpoint's ID (`ep_…`, from its URL).
    public let endpointID: String
    /// The audit event it reports.
    public let event: LoggedEvent
    /// Where it stands.
    public let delivery: DeliveryAttempts
    /// When it was written.
    public let createdAt: Date
    /// When the endpoint took it.
    public let deliveredAt: Date?

    /// The `webhook-id` of `event` for `endpointID`.
    public static func id(event: Int64, endpoint: String) -> String { "msg_\(event)_\(endpoint)" }

    /// The endpoint an ID (``id(event:endpoint:)``) names: what follows its second `_`.
    public static func endpoint(ofID id: String) -> String {
        let parts = id.split(separator: "_", maxSplits: 2)
        return parts.count == 3 ? String(parts[2]) : ""
    }

    /// Whether an ID is a Shared Signals stream's delivery rather than a webhook's.
    public static func isSignal(id: String) -> Bool { endpoint(ofID: id).hasPrefix(SignalStream.endpointPrefix) }
}

extension WebhookDelivery {
    /// A delivery with its attempts so far, as a store reads it back.
    public init(
        position: Int64, id: String, endpointID: String, event: LoggedEvent, status: WebhookDeliveryStatus, attempts: Int, nextAttemptAt: Date, lastStatus: Int?,
        lastError: String?, createdAt: Date, deliveredAt: Date?
    ) {
        let delivery = DeliveryAttempts(status: status, attempts: attempts, nextAttemptAt: nextAttemptAt, lastStatus: lastStatus, lastError: lastError)
        self.init(position: position, id: id, endpointID: endpointID, event: event, delivery: delivery, createdAt: createdAt, deliveredAt: deliveredAt)
    }
}

/// How an attempt ended.
public enum WebhookAttemptOutcome: Sendable, Hashable {
    /// The endpoint answered 2xx.
    case delivered(status: Int)
    /// Try again at `retryAt`.
    case retry(status: Int?, error: String, retryAt: Date)
    /// Give up (retries exhausted, or 410).
    case failed(status: Int?, error: String)
}

/// The webhooks' outbox and its state.
public protocol WebhookStore: Sendable {
    /// Makes these the subscriptions (endpoint ID, audit kinds): the events that from now on
    /// write a delivery in their own transaction. Replaces any others.
    func replaceWebhookSubscriptions(_ subscriptions: [String: Set<AuditEvent.Kind>]) async throws
    /// Claims up to `limit` pending deliveries due at `time` of endpoints that are not off:
    /// each one's attempts go up by one and it is not due again until `leaseUntil`, so that
    /// no other sender (on any instance) takes it meanwhile.
    func claimWebhookDeliveries(dueAt time: Date, leaseUntil: Date, limit: Int) async throws -> [WebhookDelivery]
    /// Records how an attempt ended.
    func finishWebhookDelivery(id: String, outcome: WebhookAttemptOutcome, at time: Date) async throws
    /// Turns an endpoint off (it answered 410): its pending deliveries fail, and no more are
    /// written for it.
    func disableWebhookEndpoint(id: String, reason: String, at time: Date) async throws
    /// Turns an endpoint on again. - Returns: `false` when it was not off.
    func enableWebhookEndpoint(id: String) async throws -> Bool
    /// The endpoints that are off, with why.
    func disabledWebhookEndpoints() async throws -> [String: String]
    /// Deliveries, newest first, after `before` (a delivery's position), optionally in one
    /// status.
    func webhookDeliveries(status: WebhookDeliveryStatus?, before: Int64?, limit: Int) async throws -> [WebhookDelivery]
    /// Makes a delivery due now again, with its attempts counted afresh.
    /// - Returns: The delivery; `nil` when there is none.
    func resendWebhookDelivery(id: String, at time: Date) async throws -> WebhookDelivery?
    /// Deletes finished deliveries written before `time`, at most `limit`.
    func purgeWebhookDeliveries(before time: Date, limit: Int) async throws -> Int
}
