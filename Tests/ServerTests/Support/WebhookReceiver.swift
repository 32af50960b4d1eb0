import Foundation

/// A webhook receiver for the tests: `scripts/webhook-receiver.py`, which verifies every
/// delivery with the standardwebhooks package (PyPI), independently of Latchkey's signer,
/// and keeps the ones that verify as files.
final class WebhookReceiver: @unchecked Sendable {
    let host: String
    private let receiver: ReceiverProcess
    var port: Int { receiver.port }

    private static let python = PythonTools.setUp("webhook-receiver.sh", unless: "LATCHKEY_WEBHOOK_RECEIVER_PYTHON")

    /// A secret for the tests' endpoints.
    static func secret(_ seed: UInt8) -> String { "whsec_" + Data((0..<24).map { $0 &+ seed }).base64EncodedString() }

    /// Starts a receiver verifying with `secret`, answering verified deliveries `status`.
    static func start(secret: String, host: String = "127.0.0.1", port: Int = 0, directory: URL? = nil, status: Int = 204) async throws -> WebhookReceiver {
        let receiver = try await ReceiverProcess.start(
            python: try python.get(), script: "webhook-receiver.py",
            arguments: ["--secret", secret, "--host", host, "--port", String(port), "--status", String(status)], directory: directory
        )
        return WebhookReceiver(host: host, receiver: receiver)
    }

    private init(host: String, receiver: ReceiverProcess) {
        self.host = host
        self.receiver = receiver
    }

    var url: String { "http://\(host.contains(":") ? "[\(host)]" : host):\(port)/hooks" }

    /// One verified delivery.
    struct Delivery {
        let id: String
        let type: String
        let data: [String: Any]
        /// The `traceparent` it carried, if any.
        let traceparent: String?
    }

    /// The verified deliveries so far, in arrival order.
    func deliveries() -> [Delivery] {
        receiver.records(prefix: "0").compactMap { record in
            guard let id = record["id"] as? String, let payload = record["payload"] as? [String: Any], let type = payload["type"] as? String else { return nil }
            return Delivery(id: id, type: type, data: payload["data"] as? [String: Any] ?? [:], traceparent: record["traceparent"] as? String)
        }
    }

    /// Deliveries that did not verify.
    func rejected() -> [[String: Any]] { receiver.records(prefix: "rejected-") }

    /// Waits until `count` deliveries have arrived.
    @discardableResult
    func waitFor(_ count: Int, timeout: TimeInterval = 30) async throws -> [Delivery] {
        try await ReceiverProcess.waitFor(count, timeout: timeout, deliveries) { "\(deliveries().map(\.type)); rejected: \(rejected())" }
    }

    /// Stops the receiver and waits for it to exit.
    func stop() { receiver.stop() }
}
