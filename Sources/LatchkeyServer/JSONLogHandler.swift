import Foundation
public import Logging
import Synchronization

/// One JSON object per line on standard output (`logging.format: json`), for log
/// collectors: `time` (RFC 3339, milliseconds, UTC), `level`, `label`, `source`, `message`,
/// and the metadata as top-level members. swift-log ships only a text handler, so this one
/// is written here; it is small, and every line is one `write(2)` so that lines from
/// different threads never interleave.
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String

    /// Creates a handler for `label`.
    public init(label: String) {
        self.label = label
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var members: [String: String] = [:]
        for (key, value) in metadata.merging(metadataProvider?.get() ?? [:], uniquingKeysWith: { $1 }).merging(event.metadata ?? [:], uniquingKeysWith: { $1 }) {
            members[key] = "\(value)"
        }
        members["time"] = Self.timestamp(Date())
        members["level"] = event.level.rawValue
        members["label"] = label
        members["source"] = event.source
        members["message"] = event.message.description
        Self.output.write(members)
    }

    private static let output = Output()

    /// Serialises lines onto standard output.
    private final class Output: Sendable {
        private let lock = Mutex(())
        private let encoder: JSONEncoder = {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return encoder
        }()

        func write(_ members: [String: String]) {
            guard var line = try? encoder.encode(members) else { return }
            line.append(0x0A)
            lock.withLock { _ in
                line.withUnsafeBytes { buffer in
                    var offset = 0
                    while offset < buffer.count {
                        let written = Foundation.write(STDOUT_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
                        if written <= 0 {
                            if written < 0 && errno == EINTR { continue }
                            return
                        }
                        offset += written
                    }
                }
            }
        }
    }

    /// `2026-11-25T07:02:33.123Z`.
    static func timestamp(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let seconds = Date(timeIntervalSince1970: TimeInterval(milliseconds / 1000))
        let fraction = Int(milliseconds % 1000)
        let text = seconds.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: false))
        return String(text.dropLast()) + "." + String(format: "%03d", fraction) + "Z"
    }
}
