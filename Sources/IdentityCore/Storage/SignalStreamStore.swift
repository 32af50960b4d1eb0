public import Foundation

/// The Shared Signals streams and their part of the outbox: each stream's events are
/// deliveries of the webhooks' outbox (`webhook_deliveries`), to endpoint IDs
/// `ssf:<stream>:<event>` (``SignalEventType/endpoint(stream:)``), written by the audit
/// trail's trigger in the change's transaction, so a rolled-back change sends nothing and
/// instances share the work.
public protocol SignalStreamStore: Sendable {
    /// Writes a new or changed stream and, in the same transaction, its outbox subscriptions
    /// (``SignalStream/subscriptions``), replacing its earlier ones; deliveries still pending
    /// to an endpoint it no longer has (an event no longer requested, or the stream disabled)
    /// are deleted. The audit trail's trigger is on while any webhook or stream subscribes.
    func saveSignalStream(_ stream: SignalStream) async throws
    /// Every stream, oldest first.
    func signalStreams() async throws -> [SignalStream]
    /// The stream with this ID.
    func signalStream(id: String) async throws -> SignalStream?
    /// Deletes a stream, its subscriptions and its pending deliveries.
    /// - Returns: Whether it existed.
    func deleteSignalStream(id: String) async throws -> Bool
    /// Records `event` and one delivery of it to `endpoint` in one transaction: a verification
    /// a receiver asked for.
    func queueSignal(_ event: AuditEvent, endpoint: String) async throws
    /// Claims up to `limit` pending deliveries due at `time` to the endpoints of `streams`
    /// (those pushed to), leasing them until `leaseUntil`, as ``WebhookStore/claimWebhookDeliveries(dueAt:leaseUntil:limit:)``
    /// does for webhooks.
    func claimSignalDeliveries(streams: [String], dueAt time: Date, leaseUntil: Date, limit: Int) async throws -> [WebhookDelivery]
    /// Up to `limit` pending deliveries of `stream`, oldest first, whether due or not: what a
    /// poll returns until the receiver acknowledges them.
    func pendingSignals(stream: String, limit: Int) async throws -> [WebhookDelivery]
}

extension SignalStream {
    /// The stream as stored: one JSON document (its subjects included).
    public var storedJSON: String {
        var object: [String: Any] = [
            "id": id, "owner": ownerKeyID, "aud": audience, "events_requested": eventsRequested, "status": status.rawValue,
            "subject_format": subjectFormat.rawValue, "created_at": createdAt.timeIntervalSince1970,
            "subjects": subjects.mapValues { choice -> String in
                switch choice {
                case .included(let format): format.rawValue
                case .excluded: "excluded"
                }
            },
        ]
        switch delivery {
        case .push(let endpoint, let authorization):
            object["delivery"] = ["method": Delivery.pushMethod, "endpoint_url": endpoint.absoluteString, "authorization_header": authorization as Any]
        case .poll:
            object["delivery"] = ["method": Delivery.pollMethod]
        }
        if let description { object["description"] = description }
        if let statusReason { object["reason"] = statusReason }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// Reads a stream as ``storedJSON`` wrote it.
    /// - Throws: ``StorageError`` for a document that is not one.
    public init(storedJSON text: String) throws {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], let id = object["id"] as? String,
            let owner = object["owner"] as? String, let audience = object["aud"] as? String, let delivery = object["delivery"] as? [String: Any],
            let method = delivery["method"] as? String, let status = (object["status"] as? String).flatMap(Status.init(rawValue:)),
            let created = object["created_at"] as? Double
        else { throw StorageError(.unreadableRow, "a stored signal stream cannot be read") }
        let chosen: Delivery
        if method == Delivery.pushMethod, let url = (delivery["endpoint_url"] as? String).flatMap(URL.init(string:)) {
            chosen = .push(endpoint: url, authorization: delivery["authorization_header"] as? String)
        } else {
            chosen = .poll
        }
        let subjects = (object["subjects"] as? [String: String] ?? [:]).compactMapValues { value -> SubjectChoice? in
            value == "excluded" ? .excluded : SubjectFormat(rawValue: value).map(SubjectChoice.included)
        }
        self.init(
            id: id, ownerKeyID: owner, audience: audience, delivery: chosen, eventsRequested: object["events_requested"] as? [String] ?? [],
            description: object["description"] as? String, status: status, statusReason: object["reason"] as? String,
            subjectFormat: (object["subject_format"] as? String).flatMap(SubjectFormat.init(rawValue:)) ?? .issuerAndSubject, subjects: subjects,
            createdAt: Date(timeIntervalSince1970: created)
        )
    }
}
