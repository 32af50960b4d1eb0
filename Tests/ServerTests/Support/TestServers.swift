import Foundation
import ProcessTestSupport
#if canImport(Glibc)
import Glibc
#endif
import IdentityCore
import LatchkeyServer
import Logging
import Testing

/// A clock tests move by hand, so that expiry is tested without sleeping: standing still at
/// `start`, or running with the real one (for tests that order what they make by time, or
/// compare it with their own), ahead by what the test moved it.
final class TestClock: WallClock, @unchecked Sendable {
    private let lock = NSLock()
    private var offset: TimeInterval
    private let runs: Bool

    init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        offset = start.timeIntervalSince1970
        runs = false
    }

    /// A clock that runs with the real one.
    static func running() -> TestClock { TestClock(runs: true) }

    private init(runs: Bool) {
        offset = 0
        self.runs = runs
    }

    func now() -> Date {
        let moved = lock.withLock { offset }
        return runs ? Date().addingTimeInterval(moved) : Date(timeIntervalSince1970: moved)
    }

    func advance(by interval: TimeInterval) { lock.withLock { offset += interval } }
}

/// A temporary directory removed when the test ends.
final class TemporaryDirectory: @unchecked Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// A server's configuration: `yaml` over a SQLite file here, on any free port, with
    /// `publicURL` in place of the configuration's unless `nil`.
    func configuration(_ yaml: String, publicURL: String?) throws -> LatchkeyConfiguration {
        try ConfigurationLoader.load(
            overrides: .init(configFile: "test.yaml", port: 0, database: "sqlite:" + path("latchkey.sqlite"), publicURL: publicURL),
            environment: [:]
        ) { _ in yaml }
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// The Latchkey server running inside the test process on a free port, with an injected
/// clock and a real SQLite file.
final class InProcessServer: @unchecked Sendable {
    let baseURL: URL
    let clock: TestClock
    let directory: TemporaryDirectory
    private let task: Task<Void, any Error>

    static func start(yaml: String = "", clock: TestClock = TestClock(), publicURL: String? = "http://localhost:8080") async throws -> InProcessServer {
        let directory = try TemporaryDirectory()
        let configuration = try directory.configuration(yaml, publicURL: publicURL)
        let logger = Logger.quiet("test-server")
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let application = try await LatchkeyApplication.build(configuration, clock: clock, logger: logger) { port in
            continuation.yield(port)
            continuation.finish()
        }
        let task = Task { try await application.runService(gracefulShutdownSignals: []) }
        var port = 0
        for await bound in ports { port = bound }
        return InProcessServer(baseURL: URL(string: "http://127.0.0.1:\(port)")!, clock: clock, directory: directory, task: task)
    }

    private init(baseURL: URL, clock: TestClock, directory: TemporaryDirectory, task: Task<Void, any Error>) {
        self.baseURL = baseURL
        self.clock = clock
        self.directory = directory
        self.task = task
    }

    func stop() async {
        task.cancel()
        _ = try? await task.value
    }
}

extension Logger {
    /// A logger that says only what is critical: a test server's log would drown the tests'.
    static func quiet(_ label: String) -> Logger {
        var logger = Logger(label: label)
        logger.logLevel = .critical
        return logger
    }
}

/// The real `latchkey` executable, started as a child process on a free port.
final class ServerProcess: @unchecked Sendable {
    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("latchkey")
    }

    let process: ChildProcess
    let baseURL: URL
    let output: OutputCollector

    /// Starts `latchkey serve` with the YAML `configuration` and a SQLite file, both in
    /// `directory`.
    static func start(configuration: String, in directory: TemporaryDirectory, environment: [String: String] = [:]) async throws -> ServerProcess {
        try configuration.write(toFile: directory.path("latchkey.yaml"), atomically: true, encoding: .utf8)
        return try await start(
            arguments: ["--config", directory.path("latchkey.yaml"), "--database", "sqlite:" + directory.path("latchkey.sqlite")],
            workingDirectory: directory.url, environment: environment
        )
    }

    /// Starts `latchkey serve` and waits for its "listening" line; with `openFileLimit`,
    /// under that limit (through util-linux's `prlimit`, which then runs the server itself).
    static func start(
        arguments: [String], workingDirectory: URL, port: Int = 0, openFileLimit: Int? = nil, environment: [String: String] = [:]
    ) async throws -> ServerProcess {
        let process = ChildProcess()
        process.executableURL = executable
        process.arguments = ["serve", "--port", String(port)] + arguments
        if let openFileLimit {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
            process.arguments = ["--nofile=\(openFileLimit):\(openFileLimit)", executable.path] + (process.arguments ?? [])
        }
        process.currentDirectoryURL = workingDirectory
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("LATCHKEY_") }.merging(environment) { $1 }
        let output = OutputCollector.collecting(process)
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if let port = output.listeningPort() {
                return ServerProcess(process: process, baseURL: URL(string: "http://127.0.0.1:\(port)")!, output: output)
            }
            if !process.isRunning || !Self.isAlive(process.processIdentifier) { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        process.terminate()
        // A server that exited has written why; its last lines may still be in the pipe.
        await output.waitForEnd(timeout: .seconds(2))
        throw TestFailure("latchkey serve did not start: \(output.text)")
    }

    private init(process: ChildProcess, baseURL: URL, output: OutputCollector) {
        self.process = process
        self.baseURL = baseURL
        self.output = output
    }

    /// Waits until the output holds `text`: the server writes its log lines in batches, up
    /// to 50 ms after they are logged.
    func waitForOutput(_ text: String, timeout: TimeInterval = 5) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !output.text.contains(text), Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Stops the server with SIGTERM and waits for it to exit; SIGKILL after 10 seconds.
    ///
    /// Whether it has exited is read from `/proc` as well as from the child's reaper, so that
    /// a server that is already gone is not waited for.
    func stop() {
        let pid = process.processIdentifier
        guard process.isRunning, Self.isAlive(pid) else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Self.isAlive(pid) && Date() < deadline { usleep(20_000) }
        if process.isRunning && Self.isAlive(pid) {
            kill(pid, SIGKILL)
            waitForExit()
        }
    }

    /// Waits, at most `timeout` seconds, until the server has exited (see ``stop()`` for why
    /// not `waitUntilExit()`).
    func waitForExit(timeout: TimeInterval = 10) {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Self.isAlive(process.processIdentifier) && Date() < deadline { usleep(20_000) }
    }

    /// Whether a process exists and has not exited (an exited one not yet reaped is a zombie).
    static func isAlive(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let state = stat.split(separator: ")").last?.split(separator: " ").first
        else { return false }
        return state != "Z" && state != "X"
    }

    deinit { stop() }
}

/// Collects a child process's output.
final class OutputCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private var ended = false

    /// A collector of what `process` writes to standard output (and, with `errors`, to
    /// standard error), set up before it runs.
    static func collecting(_ process: ChildProcess, errors: Bool = true) -> OutputCollector {
        let output = OutputCollector()
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = errors ? pipe : FileHandle.nullDevice
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            // At end of file the handler keeps firing with no data; stop it then.
            if data.isEmpty {
                handle.readabilityHandler = nil
                output.end()
            } else {
                output.append(data)
            }
        }
        return output
    }

    func append(_ chunk: Data) { lock.withLock { data.append(chunk) } }

    /// Called when the process's output reached its end.
    func end() { lock.withLock { ended = true } }

    /// Waits until the output has ended, or `timeout` has passed.
    func waitForEnd(timeout: Duration) async {
        let deadline = ContinuousClock.now + timeout
        while !lock.withLock({ ended }), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }

    func listeningPort() -> Int? {
        guard let range = text.range(of: "Latchkey listening on http://127.0.0.1:") else { return nil }
        return Int(text[range.upperBound...].prefix { $0.isNumber })
    }
}

/// Runs a `latchkey` subcommand to completion.
struct CommandRun {
    let status: Int32
    let output: String

    /// Runs the command; one still running after `timeout` seconds is killed, so that a
    /// command that never ends fails its test instead of hanging the suite. The wait happens
    /// on a thread of its own (``blockingWait(_:)``).
    static func run(_ arguments: [String], workingDirectory: URL, environment: [String: String] = [:], timeout: Double = 120) async throws -> CommandRun {
        try await blockingWait { Result { try runBlocking(arguments, workingDirectory: workingDirectory, environment: environment, timeout: timeout) } }.get()
    }

    private static func runBlocking(_ arguments: [String], workingDirectory: URL, environment: [String: String], timeout: Double) throws -> CommandRun {
        let process = ChildProcess()
        process.executableURL = ServerProcess.executable
        process.arguments = arguments
        process.currentDirectoryURL = workingDirectory
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("LATCHKEY_") }.merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let watchdog = DispatchWorkItem { [process] in if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
        return CommandRun(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
    }
}

/// A TCP port that was free a moment ago, for servers whose URL must be known before they
/// start (the hosted pages' origin is part of their configuration).
func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw TestFailure("socket() failed") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard bound else { throw TestFailure("could not bind a free port") }
    return Int(UInt16(bigEndian: address.sin_port))
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
