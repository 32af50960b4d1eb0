import Foundation
import ProcessTestSupport

/// A test receiver written in Python that listens on a port it prints as `READY <port>` and
/// keeps what it receives as numbered JSON files in a directory: what the webhook and the
/// back-channel logout receivers share.
struct ReceiverProcess: @unchecked Sendable {
    let port: Int
    let directory: URL
    let process: ChildProcess

    /// Starts `script` (under `scripts/`) with `python` and `arguments`, plus `--dir`.
    static func start(python: String, script: String, arguments: [String], directory: URL? = nil) async throws -> ReceiverProcess {
        let directory = directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-receiver-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [SMTPSink.repository.appendingPathComponent("scripts/\(script)").path] + arguments + ["--dir", directory.path]
        let output = OutputCollector.collecting(process, errors: false)
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if let range = output.text.range(of: "READY "), let port = Int(output.text[range.upperBound...].prefix { $0.isNumber }) {
                return ReceiverProcess(port: port, directory: directory, process: process)
            }
            if !ServerProcess.isAlive(process.processIdentifier) { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        process.terminate()
        throw TestFailure("\(script) did not start")
    }

    /// The kept records whose file names start with `prefix`, in arrival order.
    func records(prefix: String) -> [[String: Any]] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasPrefix(prefix) && $0.hasSuffix(".json") }.sorted()
        return names.compactMap { name in
            (try? Data(contentsOf: directory.appendingPathComponent(name))).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
        }
    }

    /// Waits until `received` gives at least `count` items.
    /// - Throws: A failure saying what arrived (`describe`), when they do not within `timeout`.
    static func waitFor<Item>(_ count: Int, timeout: TimeInterval, _ received: () -> [Item], describe: () -> String) async throws -> [Item] {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let items = received()
            if items.count >= count { return items }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestFailure("\(count) expected, \(received().count) arrived: \(describe())")
    }

    /// Stops the receiver and waits for it to exit.
    func stop() { SMTPSink.terminate(process) }
}
