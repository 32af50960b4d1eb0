public import Foundation

/// A receiver's stream (OpenID Shared Signals Framework 1.0 §8.1.1): what it asked for, how
/// its events reach it, and which subjects it hears about.
public struct SignalStream: Sendable, Hashable {
    /// Push (RFC 8935) to the receiver's URL, or poll (RFC 8936) from the transmitter's.
    public enum Delivery: Sendable, Hashable {
        /// Posted to `endpoint`, with `authorization` as the `Authorization` header.
        case push(endpoint: URL, authorization: String?)
        /// Fetched by the receiver from the stream's poll URL.
        case poll

        /// RFC 8935's URN.
        public static let pushMethod = "urn:ietf:rfc:8935"
        /// RFC 8936's URN.
        public static let pollMethod = "urn:ietf:rfc:8936"
    }

    /// SSF §8.1.2.
    public enum Status: String, Sendable, Hashable, CaseIterable {
        /// Events are sent.
        case enabled
        /// Events are held, and sent once it is enabled again.
        case paused
        /// Nothing is sent, nor held.
        case disabled
    }

    /// How a subject is named in the events (RFC 9493).
    public enum SubjectFormat: String, Sendable, Hashable, CaseIterable {
        /// `{"format": "iss_sub", "iss": <issuer>, "sub": <the user's ID, as in ID tokens>}`.
        case issuerAndSubject = "iss_sub"
        /// `{"format": "email", "email": <address>}`; `iss_sub` for an account without one.
        case email
        /// `{"format": "opaque", "id": <the user's ID>}`.
        case opaque
    }

    /// A subject the receiver added or removed (SSF §8.1.3).
    public enum SubjectChoice: Sendable, Hashable {
        /// Added: its events are named in this format.
        case included(SubjectFormat)
        /// Removed: its events are not sent.
        case excluded
    }

    /// The prefix of every outbox endpoint ID of a stream's events.
    public static let endpointPrefix = "ssf:"

    /// `stream_id`.
    public var id: String
    /// The admin API key that made it: a receiver sees and changes only its own streams.
    public var ownerKeyID: String
    /// `aud`: the receiver, as every event names it; never changes.
    public var audience: String
    public var delivery: Delivery
    /// `events_requested`, as the receiver sent it.
    public var eventsRequested: [String]
    /// `description`.
    public var description: String?
    public var status: Status
    /// The reason given with the status.
    public var statusReason: String?
    /// How subjects are named unless the receiver added one in another format
    /// (`subject_format`, an extension; `iss_sub` by default).
    public var subjectFormat: SubjectFormat
    /// Subjects added or removed, by user ID. Every account is a subject of every stream
    /// until removed (`default_subjects: ALL`).
    public var subjects: [String: SubjectChoice]
    public var createdAt: Date

    public init(
        id: String, ownerKeyID: String, audience: String, delivery: Delivery, eventsRequested: [String], description: String?, status: Status = .enabled,
        statusReason: String? = nil, subjectFormat: SubjectFormat = .issuerAndSubject, subjects: [String: SubjectChoice] = [:], createdAt: Date
    ) {
        self.id = id
        self.ownerKeyID = ownerKeyID
        self.audience = audience
        self.delivery = delivery
        self.eventsRequested = eventsRequested
        self.description = description
        self.status = status
        self.statusReason = statusReason
        self.subjectFormat = subjectFormat
        self.subjects = subjects
        self.createdAt = createdAt
    }

    /// `events_delivered`: the requested events this transmitter sends, in its order.
    public var eventsDelivered: [SignalEventType] {
        SignalEventType.supported.filter { eventsRequested.contains($0.rawValue) }
    }

    /// The outbox subscriptions the stream needs: one endpoint per event it delivers, none
    /// while disabled (nothing is held then). A paused stream keeps them: its events wait.
    public var subscriptions: [String: Set<AuditEvent.Kind>] {
        guard status != .disabled else { return [:] }
        return Dictionary(uniqueKeysWithValues: eventsDelivered.map { ($0.endpoint(stream: id), $0.auditKinds) })
    }

    /// The start of every outbox endpoint ID of `stream`'s events: `ssf:<stream>:`.
    public static func endpointPrefix(of stream: String) -> String { "\(endpointPrefix)\(stream):" }

    /// Whether an outbox endpoint ID is one of this stream's.
    public func owns(endpoint: String) -> Bool { endpoint.hasPrefix(Self.endpointPrefix(of: id)) }
}
