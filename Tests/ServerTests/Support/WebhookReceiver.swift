import Foundation

/// A webhook receiver for the tests: `scripts/webhook-receiver.py`, which verifies every
/// delivery with the standardwebhooks package (PyPI), independently of Latchkey's signer,
/// and keeps the ones that verify as files.
final class WebhookReceiver: @unchecked Sendable {
    let host: String
    let port: Int
    let directory: URL
    private let process: Process

    private static let python = PythonTools.setUp("webhook-receiver.sh", unless: "LATCHKEY_WEBHOOK_RECEIVER_PYTHON")

    /// A secret for the tests' endpoints.
    static func secret(_ seed: UInt8) -> String { "whsec_" + Data((0..<24).map { $0 &+ seed }).base64EncodedString() }

    /// Starts a receiver verifying with `secret`, answering verified deliveries `status`.
    static func start(secret: String, host: String = "127.0.0.1", port: Int = 0, directory: URL? = nil, status: Int = 204) async throws -> WebhookReceiver {
        let python = try python.get()
        let directory = directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-webhooks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [
            SMTPSink.repository.appendingPathComponent("scripts/webhook-receiver.py").path, "--secret", secret, "--host", host, "--port", String(port),
            "--dir", directory.path,
            "--status", String(status),
        ]
        let output = OutputCollector.collecting(process, errors: false)
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if let range = output.text.range(of: "READY "), let port = Int(output.text[range.upperBound...].prefix { $0.isNumber }) {
                return WebhookReceiver(host: host, port: port, directory: directory, process: process)
            }
            if !ServerProcess.isAlive(process.processIdentifier) { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        process.terminate()
        throw TestFailure("the webhook receiver did not start")
    }

    private init(host: String, port: Int, directory: URL, process: Process) {
        self.host = host
        self.port = port
        self.directory = directory
        self.process = process
    }

    var url: String { "http://\(host.contains(":") ? "[\(host)]" : host):\(port)/hooks" }

    /// One verified delivery.
    struct Delivery {
        let id: String
        let type: String
        let data: [String: Any]
    }

    /// The verified deliveries so far, in arrival order.
    func deliveries() -> [Delivery] {
        records(prefix: "0").compactMap { record in
            guard let id = record["id"] as? String, let payload = record["payload"] as? [String: Any], let type = payload["type"] as? String else { return nil }
            return Delivery(id: id, type: type, data: payload["data"] as? [String: Any] ?? [:])
        }
    }

    /// Deliveries that did not verify.
    func rejected() -> [[String: Any]] { records(prefix: "rejected-") }

    private func records(prefix: String) -> [[String: Any]] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasPrefix(prefix) && $0.hasSuffix(".json") }.sorted()
        return names.compactMap { name in
            (try? Data(contentsOf: directory.appendingPathComponent(name))).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
        }
    }

    /// Waits until `count` deliveries have arrived.
    @discardableResult
    func waitFor(_ count: Int, timeout: TimeInterval = 30) async throws -> [Delivery] {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let received = deliveries()
            if received.count >= count { return received }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestFailure("\(count) webhooks expected, \(deliveries().count) arrived: \(deliveries().map(\.type)); rejected: \(rejected())")
    }

    /// Stops the receiver and waits for it to exit.
    func stop() { SMTPSink.terminate(process) }
}
