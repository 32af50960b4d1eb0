import Foundation
import IdentityCore
import Testing

extension StorageContract {
    /// The Shared Signals streams: a stream reads back as saved; its events are deliveries
    /// of the webhooks' outbox under `ssf:<stream>:<event>`, written with the audit event;
    /// webhooks and streams keep out of each other's subscriptions and claims; a poll sees
    /// what is pending; a changed, disabled or deleted stream keeps nothing it no longer
    /// delivers.
    static func signalStreamOutbox(_ storage: any IdentityStorage) async throws {
        let revoked = SignalEventType.sessionRevoked, changed = SignalEventType.credentialChange
        let receiver = try #require(URL(string: "https://receiver.example/events")), idleReceiver = try #require(URL(string: "https://idle.example/events"))
        var pushed = SignalStream(
            id: "a1b2c3", ownerKeyID: "key_receiver", audience: "https://receiver.example",
            delivery: .push(endpoint: receiver, authorization: "Bearer s3cret"),
            eventsRequested: [revoked.rawValue, changed.rawValue, "https://example.com/not-an-event"], description: "the receiver's", statusReason: "made",
            subjectFormat: .email, subjects: ["user-ada": .included(.opaque), "user-bob": .excluded], createdAt: StorageFixtures.time(1)
        )
        var polled = SignalStream(
            id: "d4e5f6", ownerKeyID: "key_other", audience: "https://poller.example", delivery: .poll, eventsRequested: [revoked.rawValue],
            description: nil, subjects: ["user-ada": .included(.issuerAndSubject)], createdAt: StorageFixtures.time(0)
        )
        // Same time as `pushed`, a smaller ID: the tie is broken by ID. Disabled: it subscribes to nothing.
        let idle = SignalStream(
            id: "00ff", ownerKeyID: "key_receiver", audience: "https://idle.example",
            delivery: .push(endpoint: idleReceiver, authorization: nil), eventsRequested: [revoked.rawValue],
            description: nil, status: .disabled, createdAt: StorageFixtures.time(1)
        )
        try await storage.replaceWebhookSubscriptions(["ep_hook": [.signedOut]])
        try await storage.saveSignalStream(pushed)
        try await storage.saveSignalStream(polled)
        try await storage.saveSignalStream(idle)
        #expect(try await storage.signalStream(id: pushed.id) == pushed)
        #expect(try await storage.signalStream(id: polled.id) == polled)
        #expect(try await storage.signalStream(id: idle.id) == idle)
        #expect(try await storage.signalStream(id: "nothing") == nil)
        #expect(try await storage.signalStreams().map(\.id) == [polled.id, idle.id, pushed.id], "oldest first, then by ID")

        // Replacing the webhooks' subscriptions keeps the streams'.
        try await storage.replaceWebhookSubscriptions(["ep_hook": [.signedOut, .credentialDeleted]])
        let (ada, _) = try await signUp("ada", on: storage)
        // Every pending delivery: the webhooks' listing (which leaves the streams' out) and each stream's.
        func everything() async throws -> [WebhookDelivery] {
            let hooks = try await storage.webhookDeliveries(status: nil, before: nil, limit: 100)
            #expect(!hooks.contains { $0.endpointID.hasPrefix(SignalStream.endpointPrefix) }, "the webhooks' listing is theirs alone")
            var streams: [WebhookDelivery] = []
            for stream in [pushed, polled, idle] { streams += try await storage.pendingSignals(stream: stream.id, limit: 100) }
            return hooks + streams
        }
        try await storage.record(AuditEvent(time: StorageFixtures.time(2), kind: .signedOut, userID: ada.id, origin: nil))
        var all = try await everything()
        #expect(all.filter { $0.endpointID == revoked.endpoint(stream: pushed.id) }.count == 1, "\(all.map(\.id))")
        #expect(all.filter { $0.endpointID == revoked.endpoint(stream: polled.id) }.count == 1)
        #expect(all.filter { $0.endpointID == "ep_hook" }.count == 1)
        #expect(!all.contains { idle.owns(endpoint: $0.endpointID) }, "a disabled stream subscribes to nothing")
        #expect(!all.contains { $0.endpointID == changed.endpoint(stream: pushed.id) }, "signing out changes no credential")
        try await storage.record(AuditEvent(time: StorageFixtures.time(3), kind: .credentialDeleted, userID: ada.id, credentialID: "ada-1", origin: nil))
        all = try await everything()
        #expect(all.count == 7, "the sign-out: the webhook and two streams; the deletion: the webhook, both events of one stream, one of the other")
        #expect(all.filter { $0.endpointID == changed.endpoint(stream: pushed.id) }.count == 1)
        #expect(all.filter { $0.endpointID == revoked.endpoint(stream: pushed.id) }.count == 2)
        #expect(all.allSatisfy { $0.status == .pending && $0.id == WebhookDelivery.id(event: $0.event.id, endpoint: $0.endpointID) })

        // The webhooks' sender never takes a stream's delivery.
        let hooks = try await storage.claimWebhookDeliveries(dueAt: StorageFixtures.time(10), leaseUntil: StorageFixtures.time(100), limit: 10)
        #expect(hooks.map(\.endpointID) == ["ep_hook", "ep_hook"])

        // A poll sees what is pending, oldest first, due or not.
        let polledPending = try await storage.pendingSignals(stream: polled.id, limit: 10)
        try #require(polledPending.count == 2)
        #expect(polledPending.map(\.event.event.kind) == [.signedOut, .credentialDeleted])
        #expect(polledPending.allSatisfy { $0.endpointID == revoked.endpoint(stream: polled.id) })
        #expect(try await storage.pendingSignals(stream: polled.id, limit: 1).map(\.id) == [polledPending[0].id])

        // The streams' sender claims the due deliveries of the streams asked for, and leases them.
        let first = try await storage.claimSignalDeliveries(streams: [pushed.id], dueAt: StorageFixtures.time(2), leaseUntil: StorageFixtures.time(100), limit: 10)
        try #require(first.count == 1, "only the sign-out is due at 2")
        #expect(first.map(\.endpointID) == [revoked.endpoint(stream: pushed.id)])
        #expect(first.allSatisfy { $0.attempts == 1 && $0.nextAttemptAt == StorageFixtures.time(100) })
        let rest = try await storage.claimSignalDeliveries(streams: [pushed.id], dueAt: StorageFixtures.time(10), leaseUntil: StorageFixtures.time(100), limit: 10)
        #expect(Set(rest.map(\.endpointID)) == [revoked.endpoint(stream: pushed.id), changed.endpoint(stream: pushed.id)] && rest.count == 2)
        #expect(rest.map(\.position) == rest.map(\.position).sorted() && rest.allSatisfy { $0.event.event.kind == .credentialDeleted })
        #expect(try await storage.claimSignalDeliveries(streams: [pushed.id], dueAt: StorageFixtures.time(20), leaseUntil: StorageFixtures.time(100), limit: 10).isEmpty)
        #expect(try await storage.claimSignalDeliveries(streams: [], dueAt: StorageFixtures.time(20), leaseUntil: StorageFixtures.time(100), limit: 10).isEmpty)
        // The poll stream's are due and unclaimed, the webhook's leased: the webhooks' sender finds nothing.
        #expect(try await storage.claimWebhookDeliveries(dueAt: StorageFixtures.time(50), leaseUntil: StorageFixtures.time(100), limit: 10).isEmpty)
        // Leased, still pending: a poll would see them.
        #expect(try await storage.pendingSignals(stream: pushed.id, limit: 10).map(\.id) == (first + rest).sorted { $0.position < $1.position }.map(\.id))

        // Delivered (acknowledged): no longer pending.
        try await storage.finishWebhookDelivery(id: first[0].id, outcome: .delivered(status: 202), at: StorageFixtures.time(11))
        try await storage.finishWebhookDelivery(id: polledPending[0].id, outcome: .delivered(status: 200), at: StorageFixtures.time(11))
        #expect(try await storage.pendingSignals(stream: pushed.id, limit: 10).map(\.id) == rest.map(\.id))
        #expect(try await storage.pendingSignals(stream: polled.id, limit: 10).map(\.id) == [polledPending[1].id])

        // An event no longer requested: its pending deliveries go, the others stay, and no more are written.
        pushed.eventsRequested = [changed.rawValue]
        try await storage.saveSignalStream(pushed)
        #expect(try await storage.signalStream(id: pushed.id) == pushed)
        #expect(try await storage.pendingSignals(stream: pushed.id, limit: 10).map(\.endpointID) == [changed.endpoint(stream: pushed.id)])
        #expect(try await storage.pendingSignals(stream: polled.id, limit: 10).map(\.id) == [polledPending[1].id], "another stream's stay")
        #expect(try await storage.resendWebhookDelivery(id: first[0].id, at: StorageFixtures.time(12)) == nil, "a stream's delivery is not a webhook's to resend")
        try await storage.record(AuditEvent(time: StorageFixtures.time(12), kind: .signedOut, userID: ada.id, origin: nil))
        #expect(try await storage.pendingSignals(stream: pushed.id, limit: 10).count == 1)
        #expect(try await storage.pendingSignals(stream: polled.id, limit: 10).count == 2)

        // Disabled: what was pending goes, and nothing more is written.
        polled.status = .disabled
        polled.statusReason = "the receiver asked"
        try await storage.saveSignalStream(polled)
        #expect(try await storage.pendingSignals(stream: polled.id, limit: 10).isEmpty)
        try await storage.record(AuditEvent(time: StorageFixtures.time(13), kind: .signedOut, userID: ada.id, origin: nil))
        #expect(try await storage.pendingSignals(stream: polled.id, limit: 10).isEmpty)
        #expect(try await storage.signalStream(id: polled.id)?.status == .disabled)

        // A verification: the event and one delivery, which saving the stream keeps.
        let verification = SignalEventType.verification.endpoint(stream: pushed.id)
        try await storage.queueSignal(AuditEvent(time: StorageFixtures.time(14), kind: .adminRequest, detail: "verify a1b2c3", origin: nil), endpoint: verification)
        #expect(try await storage.events(userID: nil, limit: 1).first?.detail == "verify a1b2c3")
        let verifications = try await storage.pendingSignals(stream: pushed.id, limit: 10).filter { $0.endpointID == verification }
        #expect(verifications.count == 1 && verifications.first?.event.event.detail == "verify a1b2c3")
        #expect(verifications.allSatisfy { $0.id == WebhookDelivery.id(event: $0.event.id, endpoint: verification) && $0.nextAttemptAt == StorageFixtures.time(14) })
        try await storage.saveSignalStream(pushed)
        #expect(try await storage.pendingSignals(stream: pushed.id, limit: 10).filter { $0.endpointID == verification }.count == 1)

        // No webhooks left: the streams' events are still written.
        try await storage.replaceWebhookSubscriptions([:])
        try await storage.record(AuditEvent(time: StorageFixtures.time(15), kind: .credentialDeleted, userID: ada.id, credentialID: "ada-1", origin: nil))
        #expect(try await storage.pendingSignals(stream: pushed.id, limit: 10).filter { $0.endpointID == changed.endpoint(stream: pushed.id) }.count == 2)
        let hooked = try await storage.webhookDeliveries(status: nil, before: nil, limit: 100).filter { $0.endpointID == "ep_hook" }
        #expect(hooked.count == 4, "the sign-outs at 2, 12 and 13 and the deletion at 3; not this one")

        // Deleted: the stream, its subscriptions and its pending deliveries go; once.
        #expect(try await storage.deleteSignalStream(id: pushed.id))
        #expect(try await storage.signalStream(id: pushed.id) == nil)
        #expect(try await storage.pendingSignals(stream: pushed.id, limit: 10).isEmpty)
        #expect(try await storage.claimSignalDeliveries(streams: [pushed.id], dueAt: StorageFixtures.time(1000), leaseUntil: StorageFixtures.time(2000), limit: 10).isEmpty)
        let before = try await everything()
        try await storage.record(AuditEvent(time: StorageFixtures.time(16), kind: .credentialDeleted, userID: ada.id, credentialID: "ada-1", origin: nil))
        #expect(try await everything().count == before.count, "nothing subscribes any more")
        #expect(try await storage.deleteSignalStream(id: pushed.id) == false)
        #expect(try await storage.signalStreams().map(\.id) == [polled.id, idle.id])
    }
}
