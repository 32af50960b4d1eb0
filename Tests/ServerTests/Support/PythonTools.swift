import Foundation
import ProcessTestSupport

/// The PyPI tools the tests run, each in a virtualenv a `scripts/*.sh setup` makes (or a
/// path the test command exported).
enum PythonTools {
    /// The path `scripts/<script> setup` prints, or `variable`'s value when it is set.
    static func setUp(_ script: String, unless variable: String) -> Result<String, any Error> {
        if let configured = ProcessInfo.processInfo.environment[variable], !configured.isEmpty { return .success(configured) }
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [SMTPSink.repository.appendingPathComponent("scripts/\(script)").path, "setup"]
        let pipe = Pipe()
        process.standardOutput = pipe
        do {
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let path = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard process.terminationStatus == 0, !path.isEmpty else { return .failure(TestFailure("scripts/\(script) setup failed")) }
            return .success(path)
        } catch {
            return .failure(error)
        }
    }
}
