public import Foundation
import Synchronization

/// The Shared Signals transmitter (OpenID SSF 1.0): receivers manage their streams with an
/// admin API key of scope `ssf:write`, each seeing only the streams its key made, and take
/// events pushed (RFC 8935) or by polling (RFC 8936).
public struct SharedSignalsService: Sendable {
    let storage: any IdentityStorage
    let clock: any WallClock
    let random: any RandomSource
    /// `iss` of every event, and the base of the transmitter's URLs.
    public let issuer: String
    let events: SecurityEventTokens
    /// When each stream last asked for a verification, on this instance.
    private let verifications = VerificationPace()

    /// At most this many subjects added or removed per stream.
    public static let maximumSubjects = 10_000
    /// At most this many streams per key.
    public static let maximumStreamsPerKey = 10
    /// How long a poll that asked to wait waits for an event.
    public static let longPollWait: Duration = .seconds(10)
    /// `min_verification_interval`: a stream asking for verifications more often is refused
    /// (429), so that a receiver's loop cannot fill the audit trail and the outbox.
    public static let minimumVerificationInterval: TimeInterval = 5

    public init(storage: any IdentityStorage, tokens: TokenService, clock: any WallClock, random: any RandomSource, issuer: String) {
        self.storage = storage
        self.clock = clock
        self.random = random
        self.issuer = issuer
        events = SecurityEventTokens(storage: storage, tokens: tokens, issuer: issuer)
    }

    /// What a receiver sends to make or change a stream: the fields it supplies, and any
    /// transmitter-supplied ones it repeats (which must match).
    public struct StreamRequest: Sendable {
        /// `delivery.method`, `delivery.endpoint_url` and `delivery.authorization_header`.
        public var delivery: (method: String, endpoint: String?, authorization: String?)?
        public var eventsRequested: [String]?
        public var description: String?
        /// `subject_format` (an extension): `iss_sub`, `email` or `opaque`.
        public var subjectFormat: String?
        /// Transmitter-supplied members the receiver sent back (`iss`, `aud`,
        /// `events_supported`, `events_delivered`, `min_verification_interval`…), as text.
        public var transmitterSupplied: [String: String]

        public init(
            delivery: (method: String, endpoint: String?, authorization: String?)? = nil, eventsRequested: [String]? = nil, description: String? = nil,
            subjectFormat: String? = nil, transmitterSupplied: [String: String] = [:]
        ) {
            self.delivery = delivery
            self.eventsRequested = eventsRequested
            self.description = description
            self.subjectFormat = subjectFormat
            self.transmitterSupplied = transmitterSupplied
        }
    }

    // MARK: - Streams

    /// Makes a stream for the key's receiver (SSF §8.1.1.1): push when `delivery` says so,
    /// poll otherwise.
    public func create(_ request: StreamRequest, by key: AdminAPIKey) async throws -> SignalStream {
        let owned = try await streams(of: key)
        guard owned.count < Self.maximumStreamsPerKey else {
            throw IdentityError(.conflict, "this key has \(Self.maximumStreamsPerKey) streams already; delete one first")
        }
        try checkTransmitterSupplied(request, of: nil)
        var stream = SignalStream(
            id: random.bytes(16).map { String(format: "%02x", $0) }.joined(), ownerKeyID: key.id, audience: key.id, delivery: .poll, eventsRequested: [],
            description: nil, createdAt: clock.now()
        )
        try apply(request, to: &stream, replacing: true)
        try await storage.saveSignalStream(stream)
        return stream
    }

    /// The key's streams, oldest first.
    public func streams(of key: AdminAPIKey) async throws -> [SignalStream] {
        try await storage.signalStreams().filter { $0.ownerKeyID == key.id }
    }

    /// The key's stream with this ID.
    /// - Throws: `not_found` for any other (another key's included: it is not said to exist).
    public func stream(_ id: String, of key: AdminAPIKey) async throws -> SignalStream {
        guard Self.isStreamID(id), let stream = try await storage.signalStream(id: id), stream.ownerKeyID == key.id else {
            throw IdentityError(.notFound, "no stream \"\(id.prefix(40))\" for this key")
        }
        return stream
    }

    /// Changes a stream (`PATCH`: the fields sent; `PUT`: every receiver-supplied field,
    /// a missing one cleared).
    public func update(_ id: String, _ request: StreamRequest, replacing: Bool, by key: AdminAPIKey) async throws -> SignalStream {
        var stream = try await self.stream(id, of: key)
        try checkTransmitterSupplied(request, of: stream)
        try apply(request, to: &stream, replacing: replacing)
        try await storage.saveSignalStream(stream)
        return stream
    }

    /// Deletes a stream and whatever was waiting in it.
    public func delete(_ id: String, by key: AdminAPIKey) async throws {
        _ = try await stream(id, of: key)
        _ = try await storage.deleteSignalStream(id: id)
    }

    /// Sets the status (SSF §8.1.2): paused holds events, disabled drops them.
    public func setStatus(_ id: String, to status: SignalStream.Status, reason: String?, by key: AdminAPIKey) async throws -> SignalStream {
        var stream = try await self.stream(id, of: key)
        try Self.requireText(reason, "reason", maximum: 500)
        stream.status = status
        stream.statusReason = reason
        try await storage.saveSignalStream(stream)
        return stream
    }

    /// Adds a subject (SSF §8.1.3.2): its events are named in the subject's format. Every
    /// account is a subject already; one not found here is accepted and ignored, as §9.1
    /// allows, so that the answer says nothing about who has an account.
    public func addSubject(_ id: String, _ subject: [String: String], by key: AdminAPIKey) async throws {
        var stream = try await self.stream(id, of: key)
        guard let (userID, format) = try await resolve(subject) else { return }
        try requireRoom(in: stream, for: userID)
        stream.subjects[userID.rawValue] = .included(format)
        try await storage.saveSignalStream(stream)
    }

    /// Removes a subject (SSF §8.1.3.3): its events are no longer sent.
    public func removeSubject(_ id: String, _ subject: [String: String], by key: AdminAPIKey) async throws {
        var stream = try await self.stream(id, of: key)
        guard let (userID, _) = try await resolve(subject) else { return }
        try requireRoom(in: stream, for: userID)
        stream.subjects[userID.rawValue] = .excluded
        try await storage.saveSignalStream(stream)
    }

    /// Queues a verification event (SSF §8.1.4), carrying `state` back.
    public func verify(_ id: String, state: String?, by key: AdminAPIKey, origin: RequestOrigin?) async throws {
        let stream = try await self.stream(id, of: key)
        try Self.requireText(state, "state", maximum: 256)
        guard verifications.admit(stream.id, at: clock.now(), every: Self.minimumVerificationInterval) else {
            throw IdentityError(.tooManyRequests, "verifications of a stream are at most one every \(Int(Self.minimumVerificationInterval)) seconds")
        }
        let event = AuditEvent(
            time: clock.now(), kind: .adminRequest, detail: SecurityEventTokens.verificationDetail(stream: stream.id, state: state), actor: key.actor,
            origin: origin
        )
        try await storage.queueSignal(event, endpoint: SignalEventType.verification.endpoint(stream: stream.id))
    }

    // MARK: - Delivery

    /// A poll (RFC 8936): acknowledges `acknowledged` (this stream's only), then returns up to
    /// `maximum` pending events as signed SETs by `jti`, waiting up to ``longPollWait`` for one
    /// unless `returnImmediately`. Nothing is returned while the stream is not enabled.
    public func poll(
        _ id: String, acknowledged: [String], errors: [String: String], maximum: Int?, returnImmediately: Bool, by key: AdminAPIKey
    ) async throws -> (sets: [(jti: String, token: String)], moreAvailable: Bool) {
        let stream = try await self.stream(id, of: key)
        guard case .poll = stream.delivery else { throw IdentityError(.invalidRequest, "this stream is pushed to its receiver; it is not polled") }
        let now = clock.now()
        for jti in acknowledged where stream.owns(endpoint: WebhookDelivery.endpoint(ofID: jti)) {
            try await storage.finishWebhookDelivery(id: jti, outcome: .delivered(status: 200), at: now)
        }
        for (jti, error) in errors where stream.owns(endpoint: WebhookDelivery.endpoint(ofID: jti)) {
            try await storage.finishWebhookDelivery(id: jti, outcome: .failed(status: nil, error: "the receiver refused it: \(error)"), at: now)
        }
        let limit = min(max(maximum ?? 100, 0), 100)
        guard limit > 0, stream.status == .enabled else { return ([], false) }
        let deadline = ContinuousClock.now + (returnImmediately ? .zero : Self.longPollWait)
        while true {
            let pending = try await storage.pendingSignals(stream: id, limit: limit + 1)
            var sets: [(jti: String, token: String)] = []
            for delivery in pending.prefix(limit) {
                if let token = try await token(for: delivery, in: stream) {
                    sets.append((delivery.id, token))
                } else {
                    // Nothing to send for it (a name changed, not an email): done with.
                    try await storage.finishWebhookDelivery(id: delivery.id, outcome: .delivered(status: 204), at: now)
                }
            }
            if !sets.isEmpty || ContinuousClock.now >= deadline { return (sets, pending.count > limit) }
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    /// The signed SET a delivery becomes for `stream`, or `nil` when it sends nothing.
    public func token(for delivery: WebhookDelivery, in stream: SignalStream) async throws -> String? {
        guard let (streamID, type) = SignalEventType.parse(endpoint: delivery.endpointID), streamID == stream.id else { return nil }
        return try await events.token(for: delivery, type: type, stream: stream)
    }

    // MARK: - Rules

    static func isStreamID(_ id: String) -> Bool { id.count == 32 && id.allSatisfy(\.isHexDigit) }

    private static func requireText(_ text: String?, _ name: String, maximum: Int) throws {
        guard let text else { return }
        guard text.count <= maximum, !text.contains(where: { $0.isNewline || $0 == "\0" }) else {
            throw IdentityError(.invalidRequest, "\(name) must be one line of at most \(maximum) characters", field: name)
        }
    }

    private func requireRoom(in stream: SignalStream, for userID: UserID) throws {
        guard stream.subjects[userID.rawValue] != nil || stream.subjects.count < Self.maximumSubjects else {
            throw IdentityError(.tooManyRequests, "this stream names \(Self.maximumSubjects) subjects already")
        }
    }

    /// The transmitter-supplied members a receiver repeats must be what the transmitter says.
    private func checkTransmitterSupplied(_ request: StreamRequest, of stream: SignalStream?) throws {
        for (name, value) in request.transmitterSupplied {
            let expected: String? = switch name {
            case "iss": issuer
            case "aud": stream?.audience
            case "stream_id": stream?.id
            default: nil
            }
            // Lists (events_supported, events_delivered) are not compared member by member:
            // they are the transmitter's to say, and a receiver's copy of them changes nothing.
            guard ["events_supported", "events_delivered", "min_verification_interval", "inactivity_timeout"].contains(name) || expected == value else {
                throw IdentityError(.invalidRequest, "\(name) is the transmitter's to set, and is not \"\(value.prefix(80))\"", field: name)
            }
        }
    }

    /// Applies what the receiver supplies; with `replacing`, what it leaves out is cleared.
    private func apply(_ request: StreamRequest, to stream: inout SignalStream, replacing: Bool) throws {
        if let delivery = request.delivery {
            stream.delivery = try Self.delivery(delivery)
        } else if replacing {
            stream.delivery = .poll
        }
        if let requested = request.eventsRequested {
            guard requested.count <= 64, requested.allSatisfy({ $0.count <= 200 }) else {
                throw IdentityError(.invalidRequest, "events_requested must be at most 64 event type URIs", field: "events_requested")
            }
            stream.eventsRequested = requested
        } else if replacing {
            stream.eventsRequested = []
        }
        if request.description != nil || replacing {
            try Self.requireText(request.description, "description", maximum: 500)
            stream.description = request.description
        }
        if let format = request.subjectFormat {
            guard let chosen = SignalStream.SubjectFormat(rawValue: format) else {
                throw IdentityError(.invalidRequest, "subject_format must be iss_sub, email or opaque", field: "subject_format")
            }
            stream.subjectFormat = chosen
        } else if replacing {
            stream.subjectFormat = .issuerAndSubject
        }
    }

    /// A delivery a receiver asked for: poll, or push to an https URL (http to a loopback
    /// address, for a receiver on the same machine).
    private static func delivery(_ delivery: (method: String, endpoint: String?, authorization: String?)) throws -> SignalStream.Delivery {
        switch delivery.method {
        case SignalStream.Delivery.pollMethod:
            return .poll
        case SignalStream.Delivery.pushMethod:
            guard let text = delivery.endpoint, let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty,
                scheme == "https" || (scheme == "http" && ["127.0.0.1", "::1", "localhost", "[::1]"].contains(host)), url.fragment == nil, text.count <= 2000
            else {
                throw IdentityError(.invalidRequest, "delivery.endpoint_url must be an https URL for push delivery", field: "delivery.endpoint_url")
            }
            try requireText(delivery.authorization, "delivery.authorization_header", maximum: 4096)
            return .push(endpoint: url, authorization: delivery.authorization)
        default:
            throw IdentityError(
                .invalidRequest, "delivery.method must be \(SignalStream.Delivery.pushMethod) (push) or \(SignalStream.Delivery.pollMethod) (poll)",
                field: "delivery.method"
            )
        }
    }

    /// The account a subject identifier names, and the format to name it in; `nil` for
    /// one that names no account.
    private func resolve(_ subject: [String: String]) async throws -> (UserID, SignalStream.SubjectFormat)? {
        switch subject["format"] {
        case "iss_sub":
            guard subject["iss"] == issuer, let sub = subject["sub"], !sub.isEmpty else { return nil }
            return try await storage.user(id: UserID(rawValue: sub)).map { ($0.id, .issuerAndSubject) }
        case "opaque":
            guard let id = subject["id"], !id.isEmpty else { return nil }
            return try await storage.user(id: UserID(rawValue: id)).map { ($0.id, .opaque) }
        case "email":
            guard let email = subject["email"], let normalized = try? ProfileValidation.normalizeEmail(email) else { return nil }
            return try await storage.user(identifier: .email(normalized)).map { ($0.id, .email) }
        default:
            throw IdentityError(.invalidRequest, "subject.format must be iss_sub, email or opaque", field: "subject")
        }
    }
}

/// When each stream last asked for a verification.
private final class VerificationPace: Sendable {
    private let last = Mutex<[String: Date]>([:])

    /// Whether a verification of `stream` at `now` comes `interval` after the last one; if so,
    /// it becomes the last one.
    func admit(_ stream: String, at now: Date, every interval: TimeInterval) -> Bool {
        last.withLock { last in
            if let previous = last[stream], now.timeIntervalSince(previous) < interval { return false }
            // Streams that stopped asking are forgotten, so the table stays small.
            if last.count > 10_000 { last = last.filter { now.timeIntervalSince($0.value) < interval } }
            last[stream] = now
            return true
        }
    }
}
