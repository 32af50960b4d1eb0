import Foundation

/// An OpenTelemetry collector for the tests: `scripts/otlp-receiver.py`, which takes the
/// server's OTLP/HTTP exports, decodes them with the opentelemetry-proto package (PyPI),
/// independently of the exporter Latchkey links, and keeps every span, log record and metric
/// data point as a JSON line.
final class OTLPReceiver: @unchecked Sendable {
    let port: Int
    private let receiver: ReceiverProcess

    private static let python = PythonTools.setUp("otlp-receiver.sh", unless: "LATCHKEY_OTLP_RECEIVER_PYTHON")

    /// Starts a receiver on a free port of 127.0.0.1.
    static func start() async throws -> OTLPReceiver {
        OTLPReceiver(receiver: try await ReceiverProcess.start(python: try python.get(), script: "otlp-receiver.py", arguments: []))
    }

    private init(receiver: ReceiverProcess) {
        self.receiver = receiver
        port = receiver.port
    }

    /// The endpoint to configure the exporter with: an OTLP/HTTP exporter appends
    /// `/v1/traces`, `/v1/logs` and `/v1/metrics` to it itself.
    var endpoint: String { "http://127.0.0.1:\(port)" }

    /// An attribute's value (or a log record's body): OTLP's AnyValue as the receiver keeps
    /// it in JSON. Bytes arrive as hex, so as `.string`. JSON does not tell 1.0 from 1, so a
    /// whole double reads as `.int`: `==` compares numbers by value, and `double` reads both.
    enum AttributeValue: Decodable, Equatable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
        ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral
    {
        case string(String)
        case int(Int)
        case double(Double)
        case bool(Bool)
        case array([AttributeValue])
        /// A key-value list, or an AnyValue with no value: what it is, as text.
        case other(String)

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            // Bool before the numbers and Int before Double: JSON has one number type, and
            // the receiver writes an int attribute without a fraction, a double with one.
            if container.decodeNil() {
                self = .other("null")
            } else if let value = try? container.decode(Bool.self) {
                self = .bool(value)
            } else if let value = try? container.decode(Int.self) {
                self = .int(value)
            } else if let value = try? container.decode(Double.self) {
                self = .double(value)
            } else if let value = try? container.decode(String.self) {
                self = .string(value)
            } else if let value = try? container.decode([AttributeValue].self) {
                self = .array(value)
            } else {
                let map = try container.decode([String: AttributeValue].self)
                self = .other("{" + map.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}")
            }
        }

        static func == (lhs: AttributeValue, rhs: AttributeValue) -> Bool {
            switch (lhs, rhs) {
            case (.string(let left), .string(let right)): left == right
            case (.int(let left), .int(let right)): left == right
            case (.bool(let left), .bool(let right)): left == right
            case (.array(let left), .array(let right)): left == right
            case (.other(let left), .other(let right)): left == right
            default: lhs.double.flatMap { left in rhs.double.map { left == $0 } } ?? false
            }
        }

        init(stringLiteral value: String) { self = .string(value) }
        init(integerLiteral value: Int) { self = .int(value) }
        init(floatLiteral value: Double) { self = .double(value) }
        init(booleanLiteral value: Bool) { self = .bool(value) }

        var string: String? { if case .string(let value) = self { value } else { nil } }
        var int: Int? { if case .int(let value) = self { value } else { nil } }
        /// An int's value too, since a whole double may have been written as one.
        var double: Double? {
            switch self {
            case .double(let value): value
            case .int(let value): Double(value)
            default: nil
            }
        }
        var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
        var array: [AttributeValue]? { if case .array(let value) = self { value } else { nil } }

        var description: String {
            switch self {
            case .string(let value): "\"\(value)\""
            case .int(let value): String(value)
            case .double(let value): String(value)
            case .bool(let value): String(value)
            case .array(let values): "[" + values.map(\.description).joined(separator: ", ") + "]"
            case .other(let text): text
            }
        }
    }

    /// One span. Ids are lowercase hex.
    struct Span: Decodable, Sendable {
        let traceID: String
        let spanID: String
        /// Empty for a root span.
        let parentSpanID: String
        let name: String
        /// OTLP's name for it: `SPAN_KIND_SERVER`, `SPAN_KIND_CLIENT`, `SPAN_KIND_INTERNAL`, …
        let kind: String
        let startNanoseconds: UInt64
        let endNanoseconds: UInt64
        /// `STATUS_CODE_UNSET`, `STATUS_CODE_OK` or `STATUS_CODE_ERROR`.
        let statusCode: String
        let statusMessage: String
        let attributes: [String: AttributeValue]
        let events: [Event]
        let links: [Link]
        /// The resource's attributes (`service.name`, …).
        let resource: [String: AttributeValue]
        /// The instrumentation scope's name.
        let scope: String
        let traceState: String

        var isRoot: Bool { parentSpanID.isEmpty }

        /// An event recorded on a span (an exception, …).
        struct Event: Decodable, Sendable {
            let name: String
            let timeNanoseconds: UInt64
            let attributes: [String: AttributeValue]

            enum CodingKeys: String, CodingKey {
                case name, attributes
                case timeNanoseconds = "time_ns"
            }
        }

        /// A link from a span to another span, of this trace or another.
        struct Link: Decodable, Sendable {
            let traceID: String
            let spanID: String
            let traceState: String
            let attributes: [String: AttributeValue]

            enum CodingKeys: String, CodingKey {
                case attributes
                case traceID = "trace_id", spanID = "span_id", traceState = "trace_state"
            }
        }

        // Keys spelled out rather than JSONDecoder's convertFromSnakeCase, which would rename
        // the attribute keys too (`http_route` becoming `httpRoute`).
        enum CodingKeys: String, CodingKey {
            case name, kind, attributes, events, links, resource, scope
            case traceID = "trace_id", spanID = "span_id", parentSpanID = "parent_span_id", startNanoseconds = "start_ns", endNanoseconds = "end_ns"
            case statusCode = "status_code", statusMessage = "status_message", traceState = "trace_state"
        }
    }

    /// One log record. Ids are lowercase hex, empty when the record was not made in a span.
    struct LogRecord: Decodable, Sendable {
        let traceID: String
        let spanID: String
        let timeNanoseconds: UInt64
        let observedTimeNanoseconds: UInt64
        let severityText: String
        /// OTLP's severity number: 9 INFO, 13 WARN, 17 ERROR, …
        let severityNumber: Int
        let eventName: String
        /// The message, usually a `.string`; nil when the record has none.
        let body: AttributeValue?
        let attributes: [String: AttributeValue]
        let resource: [String: AttributeValue]
        let scope: String

        enum CodingKeys: String, CodingKey {
            case body, attributes, resource, scope
            case traceID = "trace_id", spanID = "span_id", timeNanoseconds = "time_ns", observedTimeNanoseconds = "observed_time_ns"
            case severityText = "severity_text", severityNumber = "severity_number", eventName = "event_name"
        }
    }

    /// One data point of a metric: each export repeats the metric's name, type and unit with
    /// every point, so that a test can filter points alone.
    struct MetricPoint: Decodable, Sendable {
        let name: String
        /// `sum`, `gauge`, `histogram`, `exponential_histogram` or `summary`.
        let type: String
        let unit: String
        let metricDescription: String
        let attributes: [String: AttributeValue]
        let startNanoseconds: UInt64
        let timeNanoseconds: UInt64
        /// `AGGREGATION_TEMPORALITY_CUMULATIVE` or `…_DELTA`, for sums and histograms.
        let temporality: String?
        /// Whether a sum only grows (a counter), for sums.
        let monotonic: Bool?
        /// A sum's or a gauge's value, whether it was sent as an int or a double.
        let value: Double?
        /// How many measurements a histogram or summary point holds.
        let count: UInt64?
        /// Their sum; nil for a histogram that sent none.
        let sum: Double?
        let minimum: Double?
        let maximum: Double?
        /// An explicit-bucket histogram's counts: one more than `explicitBounds`.
        let bucketCounts: [UInt64]?
        let explicitBounds: [Double]?
        /// An exponential histogram's buckets.
        let scale: Int?
        let zeroCount: UInt64?
        let positive: ExponentialBuckets?
        let negative: ExponentialBuckets?
        /// A summary's quantiles.
        let quantileValues: [Quantile]?
        let exemplars: [Exemplar]
        let resource: [String: AttributeValue]
        let scope: String

        /// A measurement kept with a point, naming the span it was made in.
        struct Exemplar: Decodable, Sendable {
            let traceID: String
            let spanID: String
            let value: Double
            let timeNanoseconds: UInt64
            /// The measurement's attributes the point's do not already have.
            let attributes: [String: AttributeValue]

            enum CodingKeys: String, CodingKey {
                case value, attributes
                case traceID = "trace_id", spanID = "span_id", timeNanoseconds = "time_ns"
            }
        }

        /// One side (positive or negative) of an exponential histogram.
        struct ExponentialBuckets: Decodable, Sendable {
            let offset: Int
            let bucketCounts: [UInt64]

            enum CodingKeys: String, CodingKey {
                case offset
                case bucketCounts = "bucket_counts"
            }
        }

        /// One quantile of a summary.
        struct Quantile: Decodable, Sendable {
            let quantile: Double
            let value: Double
        }

        enum CodingKeys: String, CodingKey {
            case name, type, unit, attributes, temporality, monotonic, value, count, sum, scale, positive, negative, exemplars, resource, scope
            case metricDescription = "description", startNanoseconds = "start_ns", timeNanoseconds = "time_ns", minimum = "min", maximum = "max"
            case bucketCounts = "bucket_counts", explicitBounds = "explicit_bounds", zeroCount = "zero_count", quantileValues = "quantile_values"
        }
    }

    /// One export request as it arrived, whether or not its body decoded.
    struct Request: Decodable, Sendable {
        let method: String
        /// `/v1/traces`, `/v1/logs` or `/v1/metrics` (or whatever else was asked for).
        let path: String
        /// Names lowercased.
        let headers: [String: String]

        func header(_ name: String) -> String? { headers[name.lowercased()] }
    }

    /// A request the receiver refused: 400 for a body that does not decode, 404 for another
    /// path, 415 for another content type or encoding, 500 for a fault of the receiver's.
    struct Rejection: Decodable, Sendable {
        let path: String
        let status: Int
        let reason: String
    }

    /// The spans so far, in arrival order.
    func spans() -> [Span] { read("spans.jsonl").records }

    /// The log records so far, in arrival order.
    func logs() -> [LogRecord] { read("logs.jsonl").records }

    /// The metric data points so far, in arrival order: a periodic exporter sends every
    /// metric again at each interval, so the latest point of a series is its last.
    func metricPoints() -> [MetricPoint] { read("metrics.jsonl").records }

    /// Every request so far, in arrival order. A request is kept before its body is decoded,
    /// so the request of every span, log record and point already read is here.
    func requests() -> [Request] { read("requests.jsonl").records }

    /// The requests refused so far.
    func rejected() -> [Rejection] { read("rejected.jsonl").records }

    // The waits are nonisolated(nonsending): they run on the caller's actor, where `until`
    // was made, so a test on the main actor can pass a closure that is not Sendable without
    // it being called off that actor (which the runtime traps on).

    /// Waits until the spans so far satisfy `until`, and returns them.
    /// - Throws: A failure listing the spans that did arrive, when they do not within `timeout`.
    @discardableResult
    nonisolated(nonsending) func waitForSpans(timeout: TimeInterval = 30, until done: ([Span]) -> Bool) async throws -> [Span] {
        try await wait(for: "spans", in: "spans.jsonl", timeout: timeout, until: done) { "\($0.name) (\($0.kind), \($0.statusCode))" }
    }

    /// Waits until the log records so far satisfy `until`, and returns them.
    /// - Throws: A failure listing the records that did arrive, when they do not within `timeout`.
    @discardableResult
    nonisolated(nonsending) func waitForLogs(timeout: TimeInterval = 30, until done: ([LogRecord]) -> Bool) async throws -> [LogRecord] {
        try await wait(for: "log records", in: "logs.jsonl", timeout: timeout, until: done) { "\($0.severityText) \($0.body?.description ?? "-")" }
    }

    /// Waits until the metric data points so far satisfy `until`, and returns them.
    /// - Throws: A failure listing the points that did arrive, when they do not within `timeout`.
    @discardableResult
    nonisolated(nonsending) func waitForMetrics(timeout: TimeInterval = 30, until done: ([MetricPoint]) -> Bool) async throws -> [MetricPoint] {
        try await wait(for: "metric points", in: "metrics.jsonl", timeout: timeout, until: done) { point in
            "\(point.name) \(point.type) \(point.value.map { String($0) } ?? point.count.map { "count \($0)" } ?? "")"
        }
    }

    /// Stops the receiver and waits for it to exit.
    func stop() { receiver.stop() }

    /// The records of one of the receiver's JSON-lines files, and the lines that did not
    /// decode (a mismatch between the script and these types, said when a wait fails rather
    /// than crashing every test that reads the file).
    private func read<Record: Decodable>(_ file: String) -> (records: [Record], undecoded: [String]) {
        guard let data = try? Data(contentsOf: receiver.directory.appendingPathComponent(file)),
            // Only whole lines: the receiver may be writing the next one as this reads.
            let end = data.lastIndex(of: UInt8(ascii: "\n"))
        else { return ([], []) }
        let decoder = JSONDecoder()
        // How the receiver writes NaN and the infinities, which JSON has no numbers for.
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        var records: [Record] = []
        var undecoded: [String] = []
        for line in data[..<end].split(separator: UInt8(ascii: "\n")) {
            // A copy: a slice keeps its parent's indices, which not every decoder expects.
            let line = Data(line)
            do {
                records.append(try decoder.decode(Record.self, from: line))
            } catch {
                undecoded.append("\(String(decoding: line, as: UTF8.self)): \(error)")
            }
        }
        return (records, undecoded)
    }

    /// Polls `file` every 50 ms until its records satisfy `done`.
    private nonisolated(nonsending) func wait<Record: Decodable>(
        for what: String, in file: String, timeout: TimeInterval, until done: ([Record]) -> Bool, describe: (Record) -> String
    ) async throws -> [Record] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let (records, undecoded): ([Record], [String]) = read(file)
            if done(records) { return records }
            if Date() >= deadline {
                // Everything that might say why: what arrived, what was refused, what this
                // side could not read.
                let listed = records.prefix(100).map(describe) + (records.count > 100 ? ["… and \(records.count - 100) more"] : [])
                var message = "the \(what) expected did not arrive within \(timeout) s; \(records.count) arrived: \(listed)"
                let refused = rejected()
                if !refused.isEmpty { message += "; rejected: \(refused.map { "\($0.path) \($0.status) \($0.reason)" })" }
                if !undecoded.isEmpty { message += "; lines of \(file) that did not decode: \(undecoded)" }
                if requests().isEmpty { message += "; no request reached the receiver at \(endpoint)" }
                throw TestFailure(message)
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}
