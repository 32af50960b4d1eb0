import Foundation
public import Logging
import Synchronization
import WebAuthn

/// The server's log lines, in the two `logging.format`s:
/// - `text`: `2026-11-25T07:44:00Z info latchkey: key=value … [source] message`, the layout
///   of swift-log's stream handler;
/// - `json`: one object per line with `time` (RFC 3339, milliseconds, UTC), `level`, `label`,
///   `source`, `message` and the metadata as top-level string members.
///
/// Both hand their lines to ``LogLineWriter``, which writes them from a thread of its own: a
/// login logs a line, and swift-log's stream handler (a locked `fwrite` and `fflush` per line,
/// a `strftime` per timestamp) cost about 8% of a login's CPU.
public struct LatchkeyLogHandler: LogHandler {
    /// The two line formats.
    public enum Format: Sendable { case text, json }

    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let format: Format
    private let writer: LogLineWriter

    /// Creates a handler for `label` writing `format` lines to `writer`.
    public init(label: String, format: Format, writer: LogLineWriter = .standardOutput) {
        self.label = label
        self.format = format
        self.writer = writer
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        // Most lines (a login's security event among them) carry only their own metadata:
        // merging it into an empty dictionary would copy it for nothing.
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let given = event.metadata { merged = merged.isEmpty ? given : merged.merging(given) { $1 } }
        let now = Date()
        var line = ""
        switch format {
        case .text:
            line.reserveCapacity(256)
            line += Timestamps.seconds(now) + " " + event.level.rawValue + " " + label + ":"
            for (key, value) in merged.sorted(by: { $0.key < $1.key }) { line += " \(key)=\(value)" }
            line += " [\(event.source)] \(event.message)\n"
        case .json:
            var members = [("time", Timestamps.milliseconds(now)), ("level", event.level.rawValue), ("label", label), ("source", event.source)]
            members.append(("message", event.message.description))
            for key in merged.keys.sorted() where !["time", "level", "label", "source", "message"].contains(key) {
                members.append((key, "\(merged[key]!)"))
            }
            line = "{" + members.map { JSONString.quoted($0.0) + ":" + JSONString.quoted($0.1) }.joined(separator: ",") + "}\n"
        }
        writer.append(line)
    }
}

/// Collects log lines and writes them to a file descriptor from a thread of its own, at
/// most 50 ms after they were logged, in order, each line whole. `flush()` writes what is
/// waiting at once; the server calls it as it stops.
public final class LogLineWriter: Sendable {
    /// Standard output.
    public static let standardOutput = LogLineWriter(descriptor: STDOUT_FILENO)

    private let descriptor: Int32
    private let pending = Mutex<[UInt8]>([])
    /// Serialises writes, so that `flush()` and the thread never interleave.
    private let writing = Mutex(())
    private let wake = DispatchSemaphore(value: 0)

    init(descriptor: Int32) {
        self.descriptor = descriptor
        let thread = Thread { [self] in
            while true {
                _ = wake.wait(timeout: .now() + .milliseconds(50))
                flush()
            }
        }
        thread.name = "latchkey-log"
        thread.start()
    }

    /// Queues a line; a large backlog wakes the writer at once.
    func append(_ line: String) {
        let size = pending.withLock { buffer in
            buffer.append(contentsOf: line.utf8)
            return buffer.count
        }
        if size > 64 * 1024 { wake.signal() }
    }

    /// Writes everything queued so far.
    public func flush() {
        writing.withLock { _ in
            let lines = pending.withLock { buffer in
                defer { buffer.removeAll(keepingCapacity: true) }
                return buffer
            }
            lines.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                    if written < 0 && errno == EINTR { continue }
                    guard written > 0 else { return }
                    offset += written
                }
            }
        }
    }
}

/// Timestamps for log lines, the seconds part computed once per second.
enum Timestamps {
    private static let cache = Mutex<(second: Int64, text: String)>((-1, ""))

    /// `2026-11-25T07:44:00Z`.
    static func seconds(_ date: Date) -> String {
        let second = Int64(date.timeIntervalSince1970.rounded(.down))
        return cache.withLock { cached in
            if cached.second != second { cached = (second, date.iso8601Seconds) }
            return cached.text
        }
    }

    /// `2026-11-25T07:44:00.123Z`.
    static func milliseconds(_ date: Date) -> String {
        let text = seconds(date)
        let milliseconds = Int((date.timeIntervalSince1970 * 1000).rounded(.down) .truncatingRemainder(dividingBy: 1000))
        let fraction = String(milliseconds)
        return String(text.dropLast()) + "." + String(repeating: "0", count: 3 - fraction.count) + fraction + "Z"
    }
}

extension Date {
    /// RFC 3339 in UTC with second precision, from the calendar arithmetic alone.
    fileprivate var iso8601Seconds: String {
        var seconds = time_t(timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int = 2) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1))-\(pad(parts.tm_mday))T\(pad(parts.tm_hour)):\(pad(parts.tm_min)):\(pad(parts.tm_sec))Z"
    }
}
