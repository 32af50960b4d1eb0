import Foundation
import IdentityCore
import LatchkeyServer
import Testing

/// The `webhooks:` and `admin:` configuration, and the webhooks' pure parts: the retry
/// schedule, the private-address rule, and the signature (against a published vector).
@Suite("Webhooks and admin: configuration and rules")
struct WebhookConfigurationTests {
    private func load(_ yaml: String) throws -> LatchkeyConfiguration {
        var overrides = ConfigurationOverrides()
        overrides.configFile = "latchkey.yaml"
        return try ConfigurationLoader.load(overrides: overrides, environment: [:]) { _ in yaml }
    }

    private func failure(_ yaml: String) -> ConfigurationError? {
        do {
            _ = try load(yaml)
            return nil
        } catch {
            return error as? ConfigurationError
        }
    }

    static let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

    @Test func endpointsAreReadWithTheirSecretsAndEvents() throws {
        let configuration = try load("""
            webhooks:
              endpoints:
                - { url: https://hooks.example.com/latchkey, secret: \(Self.secret), events: [user., passkey.added] }
                - { url: "https://other.example.com/in", secret: [\(Self.secret), \(Self.secret)], events: [recovery.used] }
              allow_private_networks: [10.0.0.0/8, "fd00::/8"]
            admin: { public: true, host: 10.0.0.5, port: 8081 }
            """)
        let endpoints = configuration.webhooks.endpoints
        #expect(endpoints.count == 2 && endpoints[0].id.hasPrefix("ep_") && endpoints[0].id.count == 15 && endpoints[0].id != endpoints[1].id)
        #expect(endpoints[0].types == [.userCreated, .userDeleted, .userDisabled, .userSignedIn, .userSignInFailed, .passkeyAdded])
        #expect(endpoints[0].auditKinds.isSuperset(of: [.signup, .userCreated, .login, .loginFailed, .enrollment]))
        #expect(endpoints[1].secrets.count == 2 && endpoints[1].types == [.recoveryUsed])
        #expect(configuration.webhooks.allowPrivateNetworks.count == 2)
        #expect(configuration.admin.isPublic && configuration.admin.listener?.host == "10.0.0.5" && configuration.admin.listener?.port == 8081)
        #expect(try load("").webhooks.endpoints.isEmpty && !(try load("").admin.isPublic))
    }

    @Test(arguments: [
        ("webhooks: { endpoints: [{ url: ftp://x.example.com, secret: \(secret), events: [user.] }] }", "webhooks.endpoints[0].url"),
        ("webhooks: { endpoints: [{ url: https://x.example.com, secret: not-a-secret, events: [user.] }] }", "webhooks.endpoints[0].secret"),
        ("webhooks: { endpoints: [{ url: https://x.example.com, secret: whsec_c2hvcnQ=, events: [user.] }] }", "webhooks.endpoints[0].secret"),
        ("webhooks: { endpoints: [{ url: https://x.example.com, secret: \(secret), events: [user.exploded] }] }", "webhooks.endpoints[0].events"),
        ("webhooks: { endpoints: [{ url: https://x.example.com, secret: \(secret), events: [] }] }", "webhooks.endpoints[0].events"),
        ("webhooks: { endpoints: [{ url: https://x.example.com, secret: \(secret), events: [user.], retries: 3 }] }", "webhooks.endpoints[0].retries"),
        ("webhooks: { allow_private_networks: [intranet] }", "webhooks.allow_private_networks[0]"),
        ("webhooks: { endpoint: [] }", "webhooks.endpoint"),
        ("admin: { port: 70000 }", "admin.port"),
        ("admin: { open: true }", "admin.open"),
    ])
    func badValuesAreRefusedByName(_ yaml: String, key: String) {
        let error = failure(yaml)
        #expect(error?.key == key, "\(yaml) → \(error.map { "\($0)" } ?? "no error")")
    }

    @Test func twoEndpointsWithOneURLAreRefused() {
        let error = failure("""
            webhooks:
              endpoints:
                - { url: https://x.example.com/in, secret: \(Self.secret), events: [user.] }
                - { url: https://x.example.com/in, secret: \(Self.secret), events: [passkey.added] }
            """)
        #expect(error?.key == "webhooks.endpoints[1].url" && error?.message.contains("twice") == true, "\(String(describing: error))")
    }

    /// 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, then daily, until three days after the event.
    @Test func retriesBackOffAndEndAfterThreeDays() {
        let created = Date(timeIntervalSince1970: 1_800_000_000)
        var now = created
        var delays: [TimeInterval] = []
        var attempts = 1
        while let next = WebhookRetrySchedule.nextAttempt(after: attempts, createdAt: created, now: now) {
            delays.append(next.timeIntervalSince(now))
            now = next
            attempts += 1
        }
        #expect(Array(delays.prefix(6)) == [5, 300, 1800, 7200, 18000, 36000])
        #expect(delays.dropFirst(6).allSatisfy { $0 == 86400 } && delays.count == 8, "\(delays)")
        #expect(now.timeIntervalSince(created) <= WebhookRetrySchedule.window)
    }

    @Test func privateAddressesAreRefusedUnlessAllowed() {
        let policy = WebhookAddressPolicy(allowed: ["10.1.0.0/16"].compactMap(AddressRange.init))
        for address in ["127.0.0.1", "10.2.3.4", "192.168.1.1", "172.16.0.9", "169.254.169.254", "::1", "fe80::1", "fd12::3", "::ffff:127.0.0.1", "0.0.0.0", "100.64.0.1",
            // The mapped loopback however written, NAT64 and 6to4 (which lead wherever the gateways do).
            "::ffff:7f00:1", "0:0:0:0:0:ffff:7f00:0001", "::ffff:a02:304", "64:ff9b::7f00:1", "64:ff9b::5db8:d822", "64:ff9b:1::1", "2002:7f00:1::1", "not-an-address"] {
            #expect(policy.refusal(for: address) != nil, "\(address)")
        }
        for address in ["10.1.2.3", "93.184.216.34", "2606:2800:220:1::1", "::ffff:93.184.216.34"] {
            #expect(policy.refusal(for: address) == nil, "\(address)")
        }
    }

    /// The Standard Webhooks specification's own example: secret, id, timestamp, body and
    /// signature as published.
    @Test func signaturesMatchTheSpecificationsExample() throws {
        let secret = try #require(WebhookSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
        let body = Array(#"{"test": 2432232314}"#.utf8)
        let header = StandardWebhookSignature.header(id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1614265330, body: body, secrets: [secret, secret])
        #expect(header == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE= v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    }
}
