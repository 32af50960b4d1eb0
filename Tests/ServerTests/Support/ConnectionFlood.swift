import Foundation
import ProcessTestSupport

/// Many idle and slow connections to a server, held by `scripts/connection-flood.py` in a
/// process of its own, so that the test process does not hold 1,200 sockets while other
/// tests run.
struct ConnectionFlood: @unchecked Sendable {
    /// How many connections the server let open.
    let opened: Int
    private let process: ChildProcess

    /// Opens `count` connections to `port` and returns once they are open.
    static func start(port: Int, count: Int) async throws -> ConnectionFlood {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [SMTPSink.repository.appendingPathComponent("scripts/connection-flood.py").path, "--port", String(port), "--count", String(count)]
        let output = OutputCollector.collecting(process, errors: false)
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if let range = output.text.range(of: "READY "), let opened = Int(output.text[range.upperBound...].prefix { $0.isNumber }) {
                return ConnectionFlood(opened: opened, process: process)
            }
            if !ServerProcess.isAlive(process.processIdentifier) { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        SMTPSink.terminate(process)
        throw TestFailure("connection-flood.py did not open its connections: \(output.text)")
    }

    /// Closes every connection.
    func stop() { SMTPSink.terminate(process) }
}
