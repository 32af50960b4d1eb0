import Foundation
import IdentityCore
import IdentityTestSupport
import LatchkeyWire
import Testing

/// Each audit event a stream subscribes to becomes the SETs SSF, CAEP and RISC define: the
/// event types it causes, their payloads, the subject in the stream's format, and nothing
/// for what a type reports only sometimes.
@Suite("Shared Signals: the events an audit event becomes")
struct SharedSignalsEventTests {
    static let everyEvent = SignalEventType.supported.map(\.rawValue)

    /// The claims of a compact JWS, and its header.
    static func decode(_ token: String) throws -> (header: [String: Any], claims: [String: Any]) {
        let parts = token.split(separator: ".").map(String.init)
        let header = try #require(Base64URL.decode(parts[0]).flatMap { try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any] })
        let claims = try #require(Base64URL.decode(parts[1]).flatMap { try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any] })
        return (header, claims)
    }

    /// A service over a fixture with Ada's account and passkey, and a stream of `key`'s.
    static func setUp(format: SignalStream.SubjectFormat = .issuerAndSubject) async throws -> (ServiceFixture, SharedSignalsService, SignalStream, AdminAPIKey, User) {
        let fixture = try await ServiceFixture()
        let ada = StorageFixtures.user("ada")
        try await fixture.storage.createUser(ada, credential: StorageFixtures.credential("one", userID: ada.id))
        let signals = SharedSignalsService(storage: fixture.storage, tokens: fixture.tokens, clock: fixture.clock, random: SystemRandom(), issuer: "https://example.com/")
        let key = AdminAPIKey(id: "ak_receiver", name: "receiver", scopes: [AdminScope(.ssf, writes: true)], keyHash: [1], createdAt: fixture.clock.now())
        var request = SharedSignalsService.StreamRequest(eventsRequested: everyEvent, subjectFormat: format.rawValue)
        request.delivery = (SignalStream.Delivery.pollMethod, nil, nil)
        let stream = try await signals.create(request, by: key)
        return (fixture, signals, stream, key, ada)
    }

    /// What `event` sends on the stream: each SET's event name and claims.
    static func sent(_ event: AuditEvent, _ fixture: ServiceFixture, _ signals: SharedSignalsService, _ stream: SignalStream) async throws -> [String: [String: Any]] {
        let before = Set(try await fixture.storage.pendingSignals(stream: stream.id, limit: 100).map(\.id))
        try await fixture.storage.record(event)
        var sent: [String: [String: Any]] = [:]
        for delivery in try await fixture.storage.pendingSignals(stream: stream.id, limit: 100) where !before.contains(delivery.id) {
            guard let token = try await signals.token(for: delivery, in: stream) else { continue }
            let (header, claims) = try decode(token)
            #expect(header["typ"] as? String == "secevent+jwt" && header["alg"] as? String == "RS256" && header["kid"] is String)
            #expect(claims["jti"] as? String == delivery.id && claims["iss"] as? String == "https://example.com/" && claims["aud"] as? String == "ak_receiver")
            #expect(claims["sub"] == nil && claims["exp"] == nil)
            let events = try #require(claims["events"] as? [String: Any])
            let name = try #require(events.keys.first?.split(separator: "/").last.map(String.init))
            sent[name] = claims
        }
        return sent
    }

    static func payload(_ claims: [String: Any]?) -> [String: Any] {
        ((claims?["events"] as? [String: Any])?.values.first as? [String: Any]) ?? [:]
    }

    @Test func eachAuditEventBecomesItsEvents() async throws {
        let (fixture, signals, stream, _, ada) = try await Self.setUp()
        let now = fixture.clock.now()
        let passkey = Base64URL.encode(StorageFixtures.credentialID("one"))

        let deleted = try await Self.sent(AuditEvent(time: now, kind: .credentialDeleted, userID: ada.id, credentialID: passkey, origin: nil), fixture, signals, stream)
        #expect(Set(deleted.keys) == ["credential-change", "session-revoked"])
        let change = Self.payload(deleted["credential-change"])
        #expect(change["change_type"] as? String == "delete" && change["credential_type"] as? String == "fido2-platform", "\(change)")
        #expect(change["fido2_aaguid"] as? String == "ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4" && change["initiating_entity"] as? String == "user")
        #expect((change["reason_admin"] as? [String: String])?["en"]?.isEmpty == false && change["event_timestamp"] as? Int == Int(now.timeIntervalSince1970))
        #expect(deleted["credential-change"]?["txn"] as? String == deleted["session-revoked"]?["txn"] as? String)
        #expect((deleted["session-revoked"]?["sub_id"] as? [String: String]) == ["format": "iss_sub", "iss": "https://example.com/", "sub": ada.id.rawValue])

        let password = try await Self.sent(AuditEvent(time: now, kind: .passwordRemoved, userID: ada.id, origin: nil), fixture, signals, stream)
        #expect(Set(password.keys) == ["credential-change", "session-revoked", "assurance-level-change"])
        #expect(Self.payload(password["credential-change"])["credential_type"] as? String == "password")
        let assurance = Self.payload(password["assurance-level-change"])
        #expect(assurance["namespace"] as? String == "NIST-AAL" && assurance["current_level"] as? String == "nist-aal2" && assurance["change_direction"] as? String == "increase")

        var disabled = AuditEvent(time: now, kind: .userDisabled, userID: ada.id, origin: nil)
        disabled.actor = "admin_key:ak_operator"
        #expect(Set(try await Self.sent(disabled, fixture, signals, stream).keys) == ["account-disabled"])
        var revoked = AuditEvent(time: now, kind: .sessionRevoked, userID: ada.id, origin: nil)
        revoked.actor = "admin_key:ak_operator"
        #expect(Self.payload(try await Self.sent(revoked, fixture, signals, stream)["session-revoked"])["initiating_entity"] as? String == "admin")

        let flagged = try await Self.sent(
            AuditEvent(time: now, kind: .authenticatorStatusFlagged, userID: ada.id, credentialID: passkey, detail: "REVOKED", origin: nil), fixture, signals, stream
        )
        #expect(Self.payload(flagged["credential-compromise"])["credential_type"] as? String == "fido2-platform", "\(flagged)")

        // A name changed is no identifier change; an email changed is, named by the old address.
        #expect(try await Self.sent(AuditEvent(time: now, kind: .profileUpdated, userID: ada.id, detail: "name", origin: nil), fixture, signals, stream).isEmpty)
        let changed = try await Self.sent(
            AuditEvent(time: now, kind: .profileUpdated, userID: ada.id, detail: AuditEvent.emailChangeDetail(previous: "old@example.com"), origin: nil),
            fixture, signals, stream
        )
        #expect((changed["identifier-changed"]?["sub_id"] as? [String: String]) == ["format": "email", "email": "old@example.com"])
        #expect(Self.payload(changed["identifier-changed"])["new-value"] as? String == "ada@example.com")
        // Nothing for what no stream event reports.
        #expect(try await Self.sent(AuditEvent(time: now, kind: .login, userID: ada.id, origin: nil), fixture, signals, stream).isEmpty)
    }

    @Test func subjectsAreNamedAsTheReceiverAskedAndRemovedOnesHearNothing() async throws {
        let (fixture, signals, stream, key, ada) = try await Self.setUp(format: .email)
        let now = fixture.clock.now()
        let out = AuditEvent(time: now, kind: .signedOut, userID: ada.id, origin: nil)
        #expect((try await Self.sent(out, fixture, signals, stream)["session-revoked"]?["sub_id"] as? [String: String]) == ["format": "email", "email": "ada@example.com"])
        try await signals.addSubject(stream.id, ["format": "opaque", "id": ada.id.rawValue], by: key)
        var current = try await signals.stream(stream.id, of: key)
        #expect((try await Self.sent(out, fixture, signals, current)["session-revoked"]?["sub_id"] as? [String: String]) == ["format": "opaque", "id": ada.id.rawValue])
        try await signals.removeSubject(stream.id, ["format": "email", "email": "ADA@example.com"], by: key)
        current = try await signals.stream(stream.id, of: key)
        #expect(try await Self.sent(out, fixture, signals, current).isEmpty)
        // An unknown subject is accepted and changes nothing, saying nothing of who has an account.
        try await signals.addSubject(stream.id, ["format": "email", "email": "nobody@example.com"], by: key)
        #expect(try await signals.stream(stream.id, of: key).subjects.count == 1)
        await #expect(throws: IdentityError.self) { try await signals.addSubject(stream.id, ["format": "phone_number", "phone_number": "+1"], by: key) }
    }

    @Test func verificationsComeAtMostOnceAnInterval() async throws {
        let (fixture, signals, stream, key, _) = try await Self.setUp()
        try await signals.verify(stream.id, state: "one", by: key, origin: nil)
        fixture.clock.advance(by: SharedSignalsService.minimumVerificationInterval - 1)
        await #expect { try await signals.verify(stream.id, state: "two", by: key, origin: nil) } throws: { ($0 as? IdentityError)?.code == .tooManyRequests }
        fixture.clock.advance(by: 1)
        try await signals.verify(stream.id, state: "three", by: key, origin: nil)
        let queued = try await fixture.storage.pendingSignals(stream: stream.id, limit: 10)
        var states: [String?] = []
        for delivery in queued {
            let token = try #require(try await signals.token(for: delivery, in: stream))
            states.append(Self.payload(try Self.decode(token).claims)["state"] as? String)
        }
        #expect(states == ["one", "three"], "the refused one queued nothing")
    }
}
