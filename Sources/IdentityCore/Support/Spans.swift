public import Tracing
import Synchronization

/// Whether the server records spans, and the one way IdentityCore, the storage backends and
/// the senders start one.
///
/// Off unless the server exports traces (`telemetry:`). Off, `traced`
/// runs its body and nothing else: no task-local read, no span, no attribute built, so a
/// server without telemetry pays one relaxed load per operation.
public enum Spans {
    private static let recording = Atomic<Bool>(false)

    /// Whether spans are recorded.
    public static var areRecorded: Bool { recording.load(ordering: .relaxed) }

    /// Starts recording: once, as the server bootstraps its tracer.
    public static func startRecording() {
        recording.store(true, ordering: .relaxed)
    }

    /// Runs `body` inside a span named `name`, a child of the current one, when spans are
    /// recorded; `body` gets the span (or `nil`) to set its attributes. A thrown error is
    /// recorded on the span, its status set to error, and thrown as it was (its type kept, so
    /// a caller's typed `catch` still sees it).
    public static func traced<T, Failure: Error>(
        _ name: @autoclosure () -> String, kind: SpanKind = .internal, _ body: (_ span: (any Span)?) throws(Failure) -> T
    ) throws(Failure) -> T {
        guard areRecorded else { return try body(nil) }
        let span = startSpan(name(), ofKind: kind)
        defer { span.end() }
        let result = InstrumentationContext.$current.withValue(span.context) { () -> Result<T, Failure> in
            do throws(Failure) { return .success(try body(span)) } catch { return .failure(error) }
        }
        return try settle(result, span)
    }

    /// The asynchronous form of the synchronous `traced`.
    public static func traced<T, Failure: Error>(
        _ name: @autoclosure () -> String, kind: SpanKind = .internal, _ body: (_ span: (any Span)?) async throws(Failure) -> T
    ) async throws(Failure) -> T {
        guard areRecorded else { return try await body(nil) }
        let span = startSpan(name(), ofKind: kind)
        defer { span.end() }
        let result = await InstrumentationContext.$current.withValue(span.context) { () async -> Result<T, Failure> in
            do throws(Failure) { return .success(try await body(span)) } catch { return .failure(error) }
        }
        return try settle(result, span)
    }

    private static func settle<T, Failure: Error>(_ result: Result<T, Failure>, _ span: any Span) throws(Failure) -> T {
        switch result {
        case .success(let value):
            return value
        case .failure(let error):
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
            throw error
        }
    }

    /// Runs a storage operation of `system` (`sqlite` or `postgresql`) inside a client span
    /// named after the method that asked for it, with the semantic conventions' database
    /// attributes: the operation's name, never a statement's values.
    /// - Parameter operation: The storage method, as `#function` gives it.
    public static func storage<T, Failure: Error>(_ system: String, _ operation: StaticString, _ body: () throws(Failure) -> T) throws(Failure) -> T {
        guard areRecorded else { return try body() }
        let name = operationName(operation)
        return try traced(name, kind: .client) { span throws(Failure) in
            describeStorage(span, system: system, operation: name)
            return try body()
        }
    }

    /// The asynchronous form of the synchronous `storage`.
    public static func storage<T, Failure: Error>(
        _ system: String, _ operation: StaticString, _ body: () async throws(Failure) -> T
    ) async throws(Failure) -> T {
        guard areRecorded else { return try await body() }
        let name = operationName(operation)
        return try await traced(name, kind: .client) { span async throws(Failure) in
            describeStorage(span, system: system, operation: name)
            return try await body()
        }
    }

    /// A method's base name, as `#function` gives it without its argument labels
    /// (`credential(id:)` is `credential`).
    static func operationName(_ function: StaticString) -> String {
        let text = "\(function)"
        return String(text.prefix { $0 != "(" })
    }

    private static func describeStorage(_ span: (any Span)?, system: String, operation: String) {
        span?.updateAttributes { attributes in
            attributes["db.system"] = system
            attributes["db.system.name"] = system
            attributes["db.operation.name"] = operation
        }
    }
}
