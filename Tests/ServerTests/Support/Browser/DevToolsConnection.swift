import Foundation
import WebAuthnCorpus

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A Chrome DevTools Protocol client over Chromium's `--remote-debugging-pipe` pair: commands
/// go out as NUL-terminated JSON, and responses and events come back the same way.
///
/// A dedicated reader thread does the blocking `read`s (so the cooperative pool is never
/// blocked), decodes each message and hands it, in order, to this actor. Responses complete the
/// matching `send`; events are appended to a log that `waitForEvent` consumes. When the pipe
/// closes, every pending command and waiter fails instead of hanging.
actor DevToolsConnection {
    /// One event received from the browser.
    struct Event: Sendable {
        let method: String
        let params: JSONValue
        /// The flattened session the event belongs to; nil for browser-level events.
        let sessionID: String?
    }

    private struct PendingCommand {
        let method: String
        let sessionID: String?
        let continuation: CheckedContinuation<JSONValue, any Error>
        let timer: Task<Void, Never>
    }

    private struct EventWaiter {
        let method: String
        let sessionID: String?
        let predicate: @Sendable (JSONValue) -> Bool
        let continuation: CheckedContinuation<JSONValue, any Error>
        let timer: Task<Void, Never>
    }

    private struct LoggedEvent {
        let event: Event
        var consumed = false
    }

    /// What the reader thread hands over, in arrival order.
    fileprivate enum Incoming: Sendable {
        case message(JSONValue)
        case malformed(String)
        case ended(String)
    }

    /// The id used by `post`, which nobody waits on; `nextID` never gets near it.
    private static let unawaitedID = Int(Int32.max)

    private let writer: PipeWriter
    private var nextID = 1
    private var pending: [Int: PendingCommand] = [:]
    private var log: [LoggedEvent] = []
    private var waiters: [Int: EventWaiter] = [:]
    private var nextWaiterToken = 0
    private var malformedMessages: [String] = []
    private var closedReason: String?
    /// Sessions whose page crashed or detached, with why: their commands would never be answered.
    private var deadSessions: [String: String] = [:]

    private init(writeFD: Int32) {
        writer = PipeWriter(fd: writeFD)
    }

    /// Starts talking CDP over `readFD` (the browser's fd 4) and `writeFD` (its fd 3); the
    /// connection owns both descriptors from now on.
    static func open(readFD: Int32, writeFD: Int32) -> DevToolsConnection {
        let connection = DevToolsConnection(writeFD: writeFD)
        let (stream, continuation) = AsyncStream.makeStream(of: Incoming.self)
        startReaderThread(fd: readFD, delivering: continuation)
        // One task drains the stream so messages reach the actor in the order they were read;
        // spawning a task per message would not preserve that order.
        Task { [weak connection] in
            for await incoming in stream {
                await connection?.receive(incoming)
            }
        }
        return connection
    }

    /// Whether the pipe has closed (the browser exited or `closeWriter` was called).
    var isClosed: Bool { closedReason != nil || writer.isClosed }

    // MARK: Commands

    /// Sends a CDP command and returns its `result`.
    ///
    /// Throws `TestFailure` with the protocol's error message if the browser answers with an
    /// `error`, if no answer arrives within `timeout`, or if the pipe closes first.
    func send(
        _ method: String,
        _ params: [String: JSONValue] = [:],
        sessionID: String? = nil,
        timeout: Duration = .seconds(30)
    ) async throws -> JSONValue {
        try Task.checkCancellation()
        if let reason = closedReason ?? (writer.isClosed ? "the DevTools connection was closed" : nil) {
            throw TestFailure("CDP \(method) not sent: \(reason)")
        }
        if let sessionID, let reason = deadSessions[sessionID] {
            throw TestFailure("CDP \(method) not sent: \(reason)")
        }
        let id = nextID
        nextID += 1
        let message = Self.encode(id: id, method: method, params: params, sessionID: sessionID)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let timer = Task { [weak self] in
                    guard (try? await Task.sleep(for: timeout)) != nil else { return }
                    await self?.finishCommand(id, .failure(TestFailure("CDP \(method) got no response within \(timeout)")))
                }
                pending[id] = PendingCommand(method: method, sessionID: sessionID, continuation: continuation, timer: timer)
                do {
                    try writer.write(message)
                } catch {
                    finishCommand(id, .failure(TestFailure("CDP \(method) not sent: \(error)")))
                }
            }
        } onCancel: {
            Task { await self.finishCommand(id, .failure(CancellationError())) }
        }
    }

    /// Writes a command without waiting for (or being able to see) its response. Synchronous so
    /// that `ChromiumProcess.close()` can ask the browser to quit from `deinit`.
    nonisolated func post(_ method: String, _ params: [String: JSONValue] = [:]) {
        try? writer.write(Self.encode(id: Self.unawaitedID, method: method, params: params, sessionID: nil))
    }

    /// Closes our end of the command pipe; later `send`s throw at once.
    nonisolated func closeWriter() {
        writer.close()
    }

    private func finishCommand(_ id: Int, _ result: Result<JSONValue, any Error>) {
        guard let command = pending.removeValue(forKey: id) else { return }
        command.timer.cancel()
        command.continuation.resume(with: result)
    }

    // MARK: Events

    /// Returns the params of the oldest logged, not yet consumed event named `method` on
    /// `sessionID` that satisfies `predicate`, waiting up to `timeout` for one to arrive.
    /// The event is consumed, so a second call waits for the next one.
    ///
    /// `sessionID` must match exactly: pass a tab's session for page events, nil for
    /// browser-level events (which carry no session).
    func waitForEvent(
        _ method: String,
        sessionID: String?,
        timeout: Duration = .seconds(10),
        where predicate: @escaping @Sendable (JSONValue) -> Bool = { _ in true }
    ) async throws -> JSONValue {
        try Task.checkCancellation()
        if let index = log.indices.first(where: { !log[$0].consumed && Self.matches(log[$0].event, method, sessionID, predicate) }) {
            log[index].consumed = true
            return log[index].event.params
        }
        if let closedReason {
            throw TestFailure("no \(method) event arrived: \(closedReason)")
        }
        let token = nextWaiterToken
        nextWaiterToken += 1
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let timer = Task { [weak self] in
                    guard (try? await Task.sleep(for: timeout)) != nil else { return }
                    await self?.expireWaiter(token, after: timeout)
                }
                waiters[token] = EventWaiter(method: method, sessionID: sessionID, predicate: predicate, continuation: continuation, timer: timer)
            }
        } onCancel: {
            Task { await self.finishWaiter(token, .failure(CancellationError())) }
        }
    }

    /// The params of every event named `method` received so far, on any session, consumed or not.
    func events(_ method: String) -> [JSONValue] {
        log.filter { $0.event.method == method }.map(\.event.params)
    }

    /// Every event received so far, oldest first.
    func allEvents() -> [Event] {
        log.map(\.event)
    }

    /// Marks every logged `method` event on `sessionID` as consumed, so that a following
    /// `waitForEvent` only sees new ones (e.g. the load event of the next navigation).
    func discardEvents(_ method: String, sessionID: String?) {
        for index in log.indices where log[index].event.method == method && log[index].event.sessionID == sessionID {
            log[index].consumed = true
        }
    }

    private static func matches(_ event: Event, _ method: String, _ sessionID: String?, _ predicate: (JSONValue) -> Bool) -> Bool {
        event.method == method && event.sessionID == sessionID && predicate(event.params)
    }

    private func expireWaiter(_ token: Int, after timeout: Duration) {
        guard let waiter = waiters[token] else { return }
        // Say what did arrive: a session mix-up or an already consumed event is the usual cause.
        let sameMethod = log.filter { $0.event.method == waiter.method }
        let otherSessions = sameMethod.filter { $0.event.sessionID != waiter.sessionID }.count
        let consumed = sameMethod.filter { $0.event.sessionID == waiter.sessionID && $0.consumed }.count
        let session = waiter.sessionID.map { "session \($0)" } ?? "the browser session"
        finishWaiter(token, .failure(TestFailure(
            "no \(waiter.method) event on \(session) matched within \(timeout) "
                + "(\(sameMethod.count) received: \(consumed) already consumed here, \(otherSessions) on other sessions)"
        )))
    }

    private func finishWaiter(_ token: Int, _ result: Result<JSONValue, any Error>) {
        guard let waiter = waiters.removeValue(forKey: token) else { return }
        waiter.timer.cancel()
        waiter.continuation.resume(with: result)
    }

    // MARK: Incoming messages

    private func receive(_ incoming: Incoming) {
        switch incoming {
        case .message(let message):
            if let id = message["id"]?.number.flatMap({ Int(exactly: $0) }) {
                receiveResponse(id: id, message)
            } else if let method = message["method"]?.string {
                receiveEvent(Event(method: method, params: message["params"] ?? .object([:]), sessionID: message["sessionId"]?.string))
            }
        case .malformed(let description):
            // Kept for diagnostics; a command whose response was lost this way times out.
            malformedMessages.append(description)
        case .ended(let reason):
            shutDown(reason)
        }
    }

    private func receiveResponse(id: Int, _ message: JSONValue) {
        guard let command = pending[id] else { return }
        if let error = message["error"] {
            var text = "CDP \(command.method) failed: \(error["message"]?.string ?? "\(error)")"
            if let code = error["code"]?.number { text += " (code \(Int(code)))" }
            if let data = error["data"]?.string { text += ": \(data)" }
            finishCommand(id, .failure(TestFailure(text)))
        } else {
            finishCommand(id, .success(message["result"] ?? .object([:])))
        }
    }

    private func receiveEvent(_ event: Event) {
        log.append(LoggedEvent(event: event))
        switch event.method {
        case "Inspector.targetCrashed":
            if let sessionID = event.sessionID { endSession(sessionID, "the page crashed") }
        case "Target.detachedFromTarget":
            if let sessionID = event.params["sessionId"]?.string { endSession(sessionID, "the page's session was detached (tab closed?)") }
        default:
            break
        }
        // Waiters are served in the order they started waiting; the first match consumes it.
        for token in waiters.keys.sorted() {
            guard let waiter = waiters[token], Self.matches(event, waiter.method, waiter.sessionID, waiter.predicate) else { continue }
            log[log.count - 1].consumed = true
            finishWaiter(token, .success(event.params))
            return
        }
    }

    private func endSession(_ sessionID: String, _ reason: String) {
        deadSessions[sessionID] = reason
        for (id, command) in pending where command.sessionID == sessionID {
            finishCommand(id, .failure(TestFailure("CDP \(command.method) got no response: \(reason)")))
        }
    }

    private func shutDown(_ reason: String) {
        guard closedReason == nil else { return }
        var reason = reason
        if !malformedMessages.isEmpty {
            reason += " (\(malformedMessages.count) undecodable message(s), first: \(malformedMessages[0]))"
        }
        closedReason = reason
        writer.close()
        for id in pending.keys.sorted() {
            let method = pending[id]?.method ?? "command"
            finishCommand(id, .failure(TestFailure("CDP \(method) got no response: \(reason)")))
        }
        for token in waiters.keys.sorted() {
            let method = waiters[token]?.method ?? "event"
            finishWaiter(token, .failure(TestFailure("no \(method) event arrived: \(reason)")))
        }
    }

    // MARK: Wire format

    private static func encode(id: Int, method: String, params: [String: JSONValue], sessionID: String?) -> [UInt8] {
        var message: [String: JSONValue] = ["id": .number(Double(id)), "method": .string(method), "params": .object(params)]
        if let sessionID { message["sessionId"] = .string(sessionID) }
        return Array(JSONValue.object(message).data()) + [0]
    }

    /// Reads NUL-terminated JSON messages from `fd` until EOF, then closes it.
    private static func startReaderThread(fd: Int32, delivering continuation: AsyncStream<Incoming>.Continuation) {
        let thread = Thread {
            var buffer: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            var ending = "the browser closed the DevTools pipe (did Chromium exit?)"
            while true {
                let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count == 0 { break }
                if count < 0 {
                    if errno == EINTR { continue }
                    ending = "reading the DevTools pipe failed: \(String(cString: strerror(errno)))"
                    break
                }
                // Only the new bytes can hold a terminator; earlier ones were already scanned.
                var scanFrom = buffer.count
                buffer.append(contentsOf: chunk[0..<count])
                var messageStart = 0
                while let terminator = buffer[scanFrom...].firstIndex(of: 0) {
                    continuation.yield(decode(buffer[messageStart..<terminator]))
                    messageStart = terminator + 1
                    scanFrom = messageStart
                }
                if messageStart > 0 { buffer.removeFirst(messageStart) }
            }
            close(fd)
            continuation.yield(.ended(ending))
            continuation.finish()
        }
        thread.name = "DevTools pipe reader"
        thread.start()
    }

    private static func decode(_ bytes: ArraySlice<UInt8>) -> Incoming {
        do {
            return .message(try JSONDecoder().decode(JSONValue.self, from: Data(bytes)))
        } catch {
            return .malformed("\(error) in \(String(decoding: bytes.prefix(200), as: UTF8.self))")
        }
    }
}

/// The write end of the command pipe. The lock keeps whole messages from interleaving and
/// keeps a write from racing `close` onto a reused descriptor number.
private final class PipeWriter: @unchecked Sendable {
    private let lock = NSLock()
    private var fd: Int32

    init(fd: Int32) { self.fd = fd }

    var isClosed: Bool { lock.withLock { fd < 0 } }

    func write(_ bytes: [UInt8]) throws {
        try lock.withLock {
            guard fd >= 0 else { throw TestFailure("the DevTools connection was closed") }
            try bytes.withUnsafeBytes { raw in
                guard let base = raw.baseAddress else { return }
                var offset = 0
                while offset < raw.count {
                    // SIGPIPE is ignored (see ChromiumProcess), so a dead browser gives EPIPE here.
                    let written = systemWrite(fd, base + offset, raw.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw TestFailure("writing to the DevTools pipe failed: \(String(cString: strerror(errno)))")
                    }
                    offset += written
                }
            }
        }
    }

    func close() {
        lock.withLock {
            guard fd >= 0 else { return }
            _ = systemClose(fd)
            fd = -1
        }
    }
}

// Module-qualified calls are awkward across Glibc and Darwin; these keep the methods above
// named `write` and `close` without shadowing the system calls.
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int { write(fd, buffer, count) }
private func systemClose(_ fd: Int32) -> Int32 { close(fd) }

extension JSONValue {
    /// The value if this is a string.
    var string: String? { if case .string(let value) = self { value } else { nil } }
    /// The value if this is a boolean.
    var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
    /// The value if this is a number.
    var number: Double? { if case .number(let value) = self { value } else { nil } }
    /// The elements if this is an array.
    var array: [JSONValue]? { if case .array(let value) = self { value } else { nil } }
}
