import Crypto
public import Foundation

/// An endpoint of the `webhooks:` configuration.
public struct WebhookEndpoint: Sendable, Hashable {
    /// `ep_` and the first 12 hex digits of the URL's SHA-256: stable while the URL is.
    public let id: String
    /// Where deliveries are posted.
    public let url: URL
    /// The signing secrets, newest first: each signs, so that a receiver holding either
    /// verifies during a rotation.
    public let secrets: [WebhookSecret]
    /// The event types it wants.
    public let types: Set<WebhookEventType>

    /// Derives ``id`` from `url`.
    public init(url: URL, secrets: [WebhookSecret], types: Set<WebhookEventType>) {
        self.id = "ep_" + SHA256.hash(data: Data(url.absoluteString.utf8)).prefix(6).map { String(format: "%02x", $0) }.joined()
        self.url = url
        self.secrets = secrets
        self.types = types
    }

    /// The audit kinds its types report.
    public var auditKinds: Set<AuditEvent.Kind> { types.reduce(into: []) { $0.formUnion($1.auditKinds) } }
}

/// A Standard Webhooks secret: `whsec_` and base64.
public struct WebhookSecret: Sendable, Hashable {
    let key: [UInt8]

    /// Reads `whsec_…`; `nil` for anything else, or a key under 16 bytes.
    public init?(_ text: String) {
        guard text.hasPrefix("whsec_"), let data = Data(base64Encoded: String(text.dropFirst(6))), data.count >= 16, data.count <= 128 else { return nil }
        key = Array(data)
    }
}

/// Standard Webhooks 1.0 signatures: `v1,` and the base64 HMAC-SHA256 of
/// `id.timestamp.body`, one per secret, space-separated.
public enum StandardWebhookSignature {
    /// The `webhook-signature` header's value.
    public static func header(id: String, timestamp: Int64, body: [UInt8], secrets: [WebhookSecret]) -> String {
        let signed = Array("\(id).\(timestamp).".utf8) + body
        return secrets.map { secret in
            "v1," + Data(HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: secret.key))).base64EncodedString()
        }.joined(separator: " ")
    }
}

/// When a failed delivery is tried again: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, then daily,
/// until three days after the event.
public enum WebhookRetrySchedule {
    static let delays: [TimeInterval] = [5, 300, 1800, 7200, 18000, 36000]
    /// How long after the event attempts go on.
    public static let window: TimeInterval = 3 * 86400

    /// The next attempt after `attempts` have failed, or `nil` to give up.
    public static func nextAttempt(after attempts: Int, createdAt: Date, now: Date) -> Date? {
        let delay = attempts >= 1 && attempts <= delays.count ? delays[attempts - 1] : 86400
        let next = now.addingTimeInterval(delay)
        return next.timeIntervalSince(createdAt) <= window ? next : nil
    }

    /// Another attempt after a failed one, or giving up when the retries ran out.
    public static func retry(after attempts: Int, createdAt: Date, now: Date, status: Int?, error: String) -> WebhookAttemptOutcome {
        guard let next = nextAttempt(after: attempts, createdAt: createdAt, now: now) else {
            return .failed(status: status, error: error + "; retries ran out")
        }
        return .retry(status: status, error: error, retryAt: next)
    }
}

/// The addresses a webhook may not be delivered to unless `webhooks.allow_private_networks`
/// names them: loopback, link-local, private, shared (CGNAT), unspecified and multicast, so
/// that a configured URL cannot reach the server's own network (SSRF). IPv4 ranges hold the
/// IPv4-mapped forms of their addresses however written (`::ffff:7f00:1`); and the prefixes
/// that carry an IPv4 address inside IPv6 to a translator (NAT64 `64:ff9b::/96` and
/// `64:ff9b:1::/48`, 6to4 `2002::/16`) are refused whole, since where they lead depends on
/// the network's gateways.
public struct WebhookAddressPolicy: Sendable {
    static let refused = [
        "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12", "192.168.0.0/16", "224.0.0.0/4",
        "240.0.0.0/4", "::/128", "::1/128", "fc00::/7", "fe80::/10", "ff00::/8", "64:ff9b::/96", "64:ff9b:1::/48", "2002::/16",
    ].compactMap(AddressRange.init)

    let allowed: [AddressRange]

    /// `allowed` names refused ranges that may be delivered to anyway
    /// (`webhooks.allow_private_networks`).
    public init(allowed: [AddressRange]) { self.allowed = allowed }

    /// Why `address` may not be delivered to, or `nil` when it may.
    public func refusal(for address: String) -> String? {
        guard AddressRange.isAddress(address) else { return "\(address) is not an address" }
        guard Self.refused.contains(where: { $0.contains(address) }) else { return nil }
        guard !allowed.contains(where: { $0.contains(address) }) else { return nil }
        return "\(address) is a loopback, link-local, private or translated address; name it in webhooks.allow_private_networks to deliver there"
    }
}
