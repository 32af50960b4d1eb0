import Foundation
import ProcessTestSupport

/// Another program (curl, openssl, nginx, python3) run to completion without blocking the
/// test process's cooperative threads: the output is read on a dispatch queue and the exit
/// is awaited through `terminationHandler`, never `waitUntilExit()`, which can wait forever
/// when the process is busy. A command still running after `timeout` is killed.
struct ExternalCommand {
    let status: Int32
    let output: String

    static func run(_ executable: String, _ arguments: [String], workingDirectory: URL? = nil, timeout: Double = 60) async throws -> ExternalCommand {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let workingDirectory { process.currentDirectoryURL = workingDirectory }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        let exited = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { exited.continuation.yield($0.terminationStatus); exited.continuation.finish() }
        try process.run()
        let watchdog = DispatchWorkItem { [process] in if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        let data = await blockingWait { pipe.fileHandleForReading.readDataToEndOfFile() }
        var status: Int32 = -1
        for await code in exited.stream { status = code }
        watchdog.cancel()
        return ExternalCommand(status: status, output: String(decoding: data, as: UTF8.self))
    }
}
