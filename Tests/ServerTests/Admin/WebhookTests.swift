import Foundation
import IdentityCore
@testable import LatchkeyServer
import LatchkeyClient
import Testing
import WebAuthn

/// Webhooks against the real process and a receiver that verifies them with the
/// standardwebhooks package: signed deliveries of each event, once, through a receiver
/// outage and a server restart; nothing for a change that rolled back; no delivery to a
/// private address that is not allowed; an endpoint that answers 410 turned off.
@Suite("Webhooks: a Standard Webhooks receiver", .serialized, .timeLimit(.minutes(10)))
struct WebhookTests {
    /// The Admin API's configuration with one endpoint; `secrets` sign (newest first).
    static func configuration(url: String, secrets: [String], events: String = "[user., passkey.added, session.revoked]", allow: String = "[127.0.0.1/32]") -> String {
        AdminAPIFixture.configuration + """

            webhooks:
              endpoints:
                - url: \(url)
                  secret: [\(secrets.joined(separator: ", "))]
                  events: \(events)
              allow_private_networks: \(allow)
            """
    }

    @Test func eachEventArrivesSignedAndOnce() async throws {
        let old = WebhookReceiver.secret(1)
        // The receiver knows only the older secret: during a rotation both sign.
        let receiver = try await WebhookReceiver.start(secret: old)
        defer { receiver.stop() }
        let admin = try await AdminAPIFixture.start(configuration: Self.configuration(url: receiver.url, secrets: [WebhookReceiver.secret(2), old]))
        defer { admin.stop() }
        var ada = PasskeyUser(admin.server)
        let tokens = try await ada.signUp(SignupProfile(email: "ada@example.com"))
        _ = try await ada.signIn()
        _ = try await ada.enroll(accessToken: tokens.accessToken)
        // A passkey made for a sign-up never finished: its sign-in fails.
        var stranger = PasskeyUser(admin.server)
        let (strangerOptions, _) = try await stranger.client.signupChallenge(profile: SignupProfile(email: "stranger@example.com"))
        stranger.credentials = [try stranger.authenticator.makeCredential(strangerOptions, origin: stranger.origin).credential]
        _ = await expectAPIError(status: 403) { try await stranger.signIn() }
        try await ada.client.signOutEverywhere(accessToken: tokens.accessToken)
        let key = try await admin.key("users:write,webhooks:write").key
        let userID = try #require(((try await admin.call("GET", "/users", key: key).json["users"] as? [[String: Any]])?.first)?["id"] as? String)
        #expect(try await admin.call("POST", "/users/\(userID)/disable", key: key).status == 200)

        let expected = ["user.created", "user.signed_in", "passkey.added", "user.sign_in_failed", "session.revoked", "user.disabled"]
        let received = try await receiver.waitFor(expected.count)
        try await Task.sleep(for: .milliseconds(1500))
        let settled = receiver.deliveries()
        #expect(settled.count == expected.count, "nothing more and nothing twice: \(settled.map(\.type))")
        #expect(Set(received.map(\.type)) == Set(expected), "\(received.map(\.type))")
        #expect(Set(settled.map(\.id)).count == settled.count, "each webhook-id once")
        #expect(receiver.rejected().isEmpty, "every delivery verified: \(receiver.rejected())")
        #expect(settled.filter { $0.type != "user.sign_in_failed" }.allSatisfy { $0.data["user_id"] as? String == userID })
        #expect(settled.first { $0.type == "user.disabled" }?.data["actor"] as? String != nil)

        // The Admin API shows them delivered, with the answer.
        let deliveries = try await admin.call("GET", "/webhooks/deliveries?status=delivered", key: key)
        let listed = deliveries.json["deliveries"] as? [[String: Any]] ?? []
        #expect(listed.count == expected.count && listed.allSatisfy { $0["last_status"] as? Int == 204 && $0["attempts"] as? Int == 1 }, "\(deliveries.text.prefix(600))")
        let endpoints = try await admin.call("GET", "/webhooks/endpoints", key: key).json["endpoints"] as? [[String: Any]] ?? []
        #expect(endpoints.count == 1 && endpoints.first?["url"] as? String == receiver.url && endpoints.first?["disabled"] as? Bool == false)
        // One sent again arrives again, under the same webhook-id.
        let first = try #require(listed.last?["id"] as? String)
        let resent = try await admin.call("POST", "/webhooks/deliveries/\(first)/resend", key: key)
        #expect(resent.status == 200 && resent.json["status"] as? String == "pending", "\(resent.text)")
        let again = try await receiver.waitFor(expected.count + 1)
        #expect(again.last?.id == first)
        expectProblem(try await admin.call("POST", "/webhooks/deliveries/msg_none/resend", key: key), 404, "delivery_not_found")
    }

    @Test func anOutageAndARestartLoseNothingAndRepeatNothing() async throws {
        let secret = WebhookReceiver.secret(3)
        let port = try freePort()
        let configuration = Self.configuration(url: "http://127.0.0.1:\(port)/hooks", secrets: [secret])
        // A process, for the restart.
        let admin = try await AdminAPIFixture.start(configuration: configuration, process: true)
        let key = try await admin.key("webhooks:read").key
        // Nobody listens, and the server stops right after the events: each delivery's first
        // attempt, if it came at all, failed, and the next is due 5 s after it.
        var ada = PasskeyUser(admin.server)
        _ = try await ada.signUp(SignupProfile(email: "ada@example.com"))
        var bob = PasskeyUser(admin.server)
        _ = try await bob.signUp(SignupProfile(email: "bob@example.com"))
        _ = try await ada.signIn()
        admin.stop()

        let receiver = try await WebhookReceiver.start(secret: secret, port: port)
        defer { receiver.stop() }
        let server = try await ServerProcess.start(configuration: configuration, in: admin.directory)
        defer { server.stop() }
        let received = try await receiver.waitFor(3, timeout: 60)
        try await Task.sleep(for: .seconds(2))
        let settled = receiver.deliveries()
        #expect(settled.count == 3 && Set(settled.map(\.id)).count == 3, "each event once: \(settled.map { "\($0.type) \($0.id)" })")
        #expect(received.map(\.type).sorted() == ["user.created", "user.created", "user.signed_in"])
        let listed = try await RawHTTP(server).send(
            "GET", "/admin/v1/webhooks/deliveries?status=delivered", contentType: nil, headers: ["Authorization": "Bearer " + key]
        ).json["deliveries"] as? [[String: Any]] ?? []
        #expect(listed.count == 3, "\(listed)")
    }

    @Test func aChangeThatRollsBackSendsNothing() async throws {
        let secret = WebhookReceiver.secret(4)
        let receiver = try await WebhookReceiver.start(secret: secret)
        defer { receiver.stop() }
        let admin = try await AdminAPIFixture.start(configuration: Self.configuration(url: receiver.url, secrets: [secret], events: "[user.created]"))
        defer { admin.stop() }
        // Two sign-ups for one address, both started before either finishes: the second's
        // transaction (account, passkey, audit event, delivery) rolls back at the commit.
        let first = PasskeyUser(admin.server)
        let second = PasskeyUser(admin.server)
        let (firstOptions, firstSession) = try await first.client.signupChallenge(profile: SignupProfile(email: "ada@example.com"))
        let (secondOptions, secondSession) = try await second.client.signupChallenge(profile: SignupProfile(email: "ada@example.com"))
        let firstResponse = try first.authenticator.makeCredential(firstOptions, origin: first.origin).response
        _ = try await first.client.finishSignup(authSession: firstSession, response: firstResponse, scope: PasskeyUser.allScopes, audience: first.audience)
        let secondResponse = try second.authenticator.makeCredential(secondOptions, origin: second.origin).response
        let refused = await expectAPIError(status: 400) {
            try await second.client.finishSignup(authSession: secondSession, response: secondResponse, scope: PasskeyUser.allScopes, audience: second.audience)
        }
        #expect(refused?.code == "user_exists" || refused?.reason == "user_exists", "\(String(describing: refused))")
        try await receiver.waitFor(1)
        try await Task.sleep(for: .seconds(2))
        #expect(receiver.deliveries().map(\.type) == ["user.created"], "\(receiver.deliveries().map(\.type))")
        let key = try await admin.key("webhooks:read").key
        #expect((try await admin.call("GET", "/webhooks/deliveries", key: key).json["deliveries"] as? [Any])?.count == 1)
    }

    @Test func privateAddressesAreRefusedAndAGoneEndpointIsTurnedOff() async throws {
        // 127.0.0.2 is loopback and not allowed (only 127.0.0.1 is): never contacted.
        let refused = try await AdminAPIFixture.start(configuration: Self.configuration(url: "http://127.0.0.2:9/hooks", secrets: [WebhookReceiver.secret(5)]))
        var ada = PasskeyUser(refused.server)
        _ = try await ada.signUp(SignupProfile(email: "ada@example.com"))
        let key = try await refused.key("webhooks:read").key
        var failed: [[String: Any]] = []
        for _ in 0..<300 where failed.isEmpty {
            failed = try await refused.call("GET", "/webhooks/deliveries?status=failed", key: key).json["deliveries"] as? [[String: Any]] ?? []
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect((failed.first?["last_error"] as? String)?.contains("allow_private_networks") == true, "\(failed)")
        refused.stop()

        // An endpoint that answers 410 Gone is turned off and gets nothing more.
        let secret = WebhookReceiver.secret(6)
        let gone = try await WebhookReceiver.start(secret: secret, status: 410)
        defer { gone.stop() }
        let admin = try await AdminAPIFixture.start(configuration: Self.configuration(url: gone.url, secrets: [secret]))
        defer { admin.stop() }
        var bob = PasskeyUser(admin.server)
        _ = try await bob.signUp(SignupProfile(email: "bob@example.com"))
        try await gone.waitFor(1)
        let adminKey = try await admin.key("webhooks:read").key
        var endpoints: [[String: Any]] = []
        for _ in 0..<300 {
            endpoints = try await admin.call("GET", "/webhooks/endpoints", key: adminKey).json["endpoints"] as? [[String: Any]] ?? []
            if endpoints.first?["disabled"] as? Bool == true { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(endpoints.first?["disabled"] as? Bool == true && (endpoints.first?["disabled_reason"] as? String)?.contains("410") == true, "\(endpoints)")
        _ = try await bob.signIn()
        try await Task.sleep(for: .seconds(2))
        #expect(gone.deliveries().count == 1, "nothing after the 410")
        // Turned on again, it gets the next event.
        let writer = try await admin.key("webhooks:write").key
        let id = try #require(endpoints.first?["id"] as? String)
        let enabled = try await admin.call("POST", "/webhooks/endpoints/\(id)/enable", key: writer)
        #expect(enabled.status == 200 && enabled.json["disabled"] as? Bool == false, "\(enabled.text)")
        expectProblem(try await admin.call("POST", "/webhooks/endpoints/ep_nothing/enable", key: writer), 404, "endpoint_not_found")
        _ = try await bob.signIn()
        try await gone.waitFor(2)
    }

    /// An IPv6 literal is delivered to (Foundation's URLSession could not on Linux), and a
    /// name is connected to at the very address its check resolved: a name that only the
    /// check can resolve still reaches the receiver, and one the check refuses reaches nothing.
    @Test func anIPv6LiteralIsReachedAndANameIsReachedAtTheAddressThatWasChecked() async throws {
        let secret = WebhookReceiver.secret(7)
        let six = try await WebhookReceiver.start(secret: secret, host: "::1")
        defer { six.stop() }
        #expect(six.url.hasPrefix("http://[::1]:"))
        let admin = try await AdminAPIFixture.start(configuration: Self.configuration(url: six.url, secrets: [secret], allow: #"["::1/128"]"#))
        defer { admin.stop() }
        var ada = PasskeyUser(admin.server)
        _ = try await ada.signUp(SignupProfile(email: "ada@example.com"))
        #expect(try await !six.waitFor(1).isEmpty)

        let four = try await WebhookReceiver.start(secret: secret)
        defer { four.stop() }
        let body = Array(#"{"type":"user.created","timestamp":"2026-11-28T00:00:00Z","data":{}}"#.utf8)
        let timestamp = Int64(Date().timeIntervalSince1970)
        let headers = [
            ("Content-Type", "application/json"), ("webhook-id", "msg_rebinding"), ("webhook-timestamp", String(timestamp)),
            ("webhook-signature", StandardWebhookSignature.header(id: "msg_rebinding", timestamp: timestamp, body: body, secrets: [try #require(WebhookSecret(secret))])),
        ]
        let url = try #require(URL(string: "http://rebound.invalid:\(four.port)/hooks"))
        let allowed = WebhookPoster(policy: WebhookAddressPolicy(allowed: ["127.0.0.1/32"].compactMap(AddressRange.init)), resolve: { _ in (["127.0.0.1"], nil) })
        #expect(await allowed.post(url, headers: headers, body: body) == .answered(204))
        #expect(try await four.waitFor(1).map(\.id) == ["msg_rebinding"])
        let refused = WebhookPoster(policy: WebhookAddressPolicy(allowed: ["127.0.0.1/32"].compactMap(AddressRange.init)), resolve: { _ in (["127.0.0.1", "127.0.0.2"], nil) })
        guard case .refused? = Optional(await refused.post(url, headers: headers, body: body)) else {
            Issue.record("a name one of whose addresses is refused is not delivered to")
            return
        }
        let unresolved = WebhookPoster(policy: WebhookAddressPolicy(allowed: []), resolve: WebhookPoster.systemAddresses)
        guard case .unreachable? = Optional(await unresolved.post(url, headers: headers, body: body)) else {
            Issue.record("a name the system cannot resolve is unreachable")
            return
        }
        try await Task.sleep(for: .milliseconds(300))
        #expect(four.deliveries().count == 1)
    }
}
