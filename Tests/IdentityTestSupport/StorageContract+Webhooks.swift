import Foundation
import IdentityCore
import Testing
import WebAuthn

extension StorageContract {
    /// The webhooks' outbox: a subscribed event writes a delivery per endpoint in its own
    /// transaction (so a change that rolls back writes none); claims lease; attempts end
    /// delivered, retried or failed; an endpoint turned off gets nothing more.
    static func webhookOutbox(_ storage: any IdentityStorage) async throws {
        try await storage.replaceWebhookSubscriptions(["ep_a": [.signup, .login], "ep_b": [.login]])
        let (ada, _) = try await signUp("ada", on: storage)
        try await storage.record(AuditEvent(time: StorageFixtures.time(2), kind: .login, userID: ada.id, clientID: "client-a", origin: nil))
        try await storage.record(AuditEvent(time: StorageFixtures.time(3), kind: .tokensRevoked, userID: ada.id, origin: nil))
        // A sign-up that fails (a taken identifier) rolls back with its event: no delivery.
        let clash = StorageFixtures.user("clash", email: "ada@example.com", username: "clash")
        _ = try? await storage.completeCeremony(CeremonyCompletion(
            key: StorageFixtures.ceremonyKey("clash"), newAccount: .init(user: clash, credential: StorageFixtures.credential("clash-1", userID: clash.id)),
            events: [AuditEvent(time: StorageFixtures.time(4), kind: .signup, userID: clash.id, origin: nil)]
        ))
        var all = try await storage.webhookDeliveries(status: nil, before: nil, limit: 10)
        #expect(Set(all.map(\.endpointID)) == ["ep_a", "ep_b"] && all.count == 2, "the login for both endpoints, nothing for the refused sign-up or an unsubscribed kind: \(all.map(\.id))")
        #expect(all.allSatisfy { $0.event.event.kind == .login && $0.status == .pending && $0.attempts == 0 && $0.event.event.userID == ada.id })
        #expect(all.allSatisfy { $0.id == WebhookDelivery.id(event: $0.event.id, endpoint: $0.endpointID) })
        // A sign-up through record (not a ceremony) counts too.
        try await storage.record(AuditEvent(time: StorageFixtures.time(5), kind: .signup, userID: ada.id, origin: nil))
        all = try await storage.webhookDeliveries(status: nil, before: nil, limit: 10)
        #expect(all.count == 3 && all[0].endpointID == "ep_a" && all[0].event.event.kind == .signup)
        #expect(all.map(\.position) == all.map(\.position).sorted(by: >))
        #expect(try await storage.webhookDeliveries(status: nil, before: all[0].position, limit: 10).map(\.id) == Array(all.dropFirst()).map(\.id))

        // Claims lease: a second claim before the lease ends finds nothing.
        let claimed = try await storage.claimWebhookDeliveries(dueAt: StorageFixtures.time(10), leaseUntil: StorageFixtures.time(100), limit: 2)
        #expect(claimed.count == 2 && claimed.allSatisfy { $0.attempts == 1 && $0.nextAttemptAt == StorageFixtures.time(100) })
        let rest = try await storage.claimWebhookDeliveries(dueAt: StorageFixtures.time(11), leaseUntil: StorageFixtures.time(100), limit: 10)
        #expect(rest.count == 1 && Set((claimed + rest).map(\.id)).count == 3)
        #expect(try await storage.claimWebhookDeliveries(dueAt: StorageFixtures.time(12), leaseUntil: StorageFixtures.time(100), limit: 10).isEmpty)

        try await storage.finishWebhookDelivery(id: claimed[0].id, outcome: .delivered(status: 204), at: StorageFixtures.time(13))
        try await storage.finishWebhookDelivery(id: claimed[1].id, outcome: .retry(status: 500, error: "answered 500", retryAt: StorageFixtures.time(20)), at: StorageFixtures.time(13))
        try await storage.finishWebhookDelivery(id: rest[0].id, outcome: .failed(status: nil, error: "refused address"), at: StorageFixtures.time(13))
        let delivered = try await storage.webhookDeliveries(status: .delivered, before: nil, limit: 10)
        #expect(delivered.map(\.id) == [claimed[0].id] && delivered.first?.lastStatus == 204 && delivered.first?.deliveredAt == StorageFixtures.time(13))
        let pending = try await storage.webhookDeliveries(status: .pending, before: nil, limit: 10)
        #expect(pending.map(\.id) == [claimed[1].id] && pending.first?.lastStatus == 500 && pending.first?.lastError == "answered 500")
        #expect(try await storage.webhookDeliveries(status: .failed, before: nil, limit: 10).first?.lastError == "refused address")
        #expect(try await storage.claimWebhookDeliveries(dueAt: StorageFixtures.time(19), leaseUntil: StorageFixtures.time(100), limit: 10).isEmpty)
        #expect(try await storage.claimWebhookDeliveries(dueAt: StorageFixtures.time(20), leaseUntil: StorageFixtures.time(100), limit: 10).map(\.attempts) == [2])

        // Sent again: due at once, attempts afresh.
        let again = try #require(try await storage.resendWebhookDelivery(id: rest[0].id, at: StorageFixtures.time(30)))
        #expect(again.status == .pending && again.attempts == 0 && again.nextAttemptAt == StorageFixtures.time(30))
        #expect(try await storage.resendWebhookDelivery(id: "msg_nothing", at: StorageFixtures.time(30)) == nil)

        // An endpoint turned off: its pending deliveries fail, none are claimed or written.
        try await storage.disableWebhookEndpoint(id: again.endpointID, reason: "answered 410 Gone", at: StorageFixtures.time(31))
        #expect(try await storage.disabledWebhookEndpoints() == [again.endpointID: "answered 410 Gone"])
        #expect(try await storage.claimWebhookDeliveries(dueAt: StorageFixtures.time(40), leaseUntil: StorageFixtures.time(100), limit: 10).allSatisfy { $0.endpointID != again.endpointID })
        #expect(try await storage.webhookDeliveries(status: .pending, before: nil, limit: 10).allSatisfy { $0.endpointID != again.endpointID })
        let before = try await storage.webhookDeliveries(status: nil, before: nil, limit: 10).count
        try await storage.record(AuditEvent(time: StorageFixtures.time(41), kind: .login, userID: ada.id, origin: nil))
        let after = try await storage.webhookDeliveries(status: nil, before: nil, limit: 10)
        #expect(after.count == before + 1, "the endpoint still on subscribes to logins")
        #expect(after.first?.endpointID != again.endpointID)

        // On again: new events reach it.
        #expect(try await storage.enableWebhookEndpoint(id: again.endpointID))
        #expect(try await storage.enableWebhookEndpoint(id: again.endpointID) == false)
        #expect(try await storage.disabledWebhookEndpoints().isEmpty)
        try await storage.record(AuditEvent(time: StorageFixtures.time(41.5), kind: .login, userID: ada.id, origin: nil))
        let reopened = try await storage.webhookDeliveries(status: nil, before: nil, limit: 20)
        #expect(reopened.count == after.count + 2, "both endpoints again")

        // No subscriptions: nothing more is written.
        try await storage.replaceWebhookSubscriptions([:])
        try await storage.record(AuditEvent(time: StorageFixtures.time(42), kind: .login, userID: ada.id, origin: nil))
        #expect(try await storage.webhookDeliveries(status: nil, before: nil, limit: 20).count == reopened.count)
        // Finished deliveries are purged; pending ones stay.
        let purged = try await storage.purgeWebhookDeliveries(before: StorageFixtures.time(1000), limit: 100)
        let left = try await storage.webhookDeliveries(status: nil, before: nil, limit: 20)
        #expect(purged == reopened.count - left.count && left.allSatisfy { $0.status == .pending })
    }
}
