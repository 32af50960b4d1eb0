/// A configuration value Latchkey cannot run with. The message names the key (as a path
/// like `relying_party.origins[1]`, a flag such as `--port`, or a variable such as
/// `LATCHKEY_PORT`) and says what is wrong and what would be right.
///
/// Loading reports every problem it finds at once: ``key`` and ``message`` are the first,
/// ``problems`` all of them.
public struct ConfigurationError: Error, Equatable, CustomStringConvertible {
    /// The key at fault, or the file when the problem is the file itself.
    public let key: String
    /// What is wrong.
    public let message: String
    /// Every problem found, this one first; one element unless several were collected.
    public let problems: [Problem]

    /// One key and what is wrong with it.
    public struct Problem: Equatable, Sendable, CustomStringConvertible {
        /// The key at fault.
        public let key: String
        /// What is wrong.
        public let message: String

        public var description: String { "\(key): \(message)" }
    }

    /// Creates an error about one key.
    public init(key: String, _ message: String) {
        self.key = key
        self.message = message
        self.problems = [Problem(key: key, message: message)]
    }

    /// Combines several errors into one that lists every problem, in order.
    public init(combining errors: [ConfigurationError]) {
        let problems = errors.flatMap(\.problems)
        self.key = problems.first?.key ?? ""
        self.message = problems.first?.message ?? ""
        self.problems = problems
    }

    /// A part that cannot be read because another part it depends on has a problem, which
    /// was reported there: it adds no problem of its own.
    static let reportedElsewhere = ConfigurationError(combining: [])

    public var description: String {
        guard problems.count > 1 else { return "\(key): \(message)" }
        return "\(problems.count) problems:\n" + problems.map { "  \($0)" }.joined(separator: "\n")
    }
}

/// Collects configuration problems so that one run reports all of them: each part is read
/// on its own, and a part that fails records its error and yields `nil`.
struct ProblemCollector {
    private(set) var errors: [ConfigurationError] = []

    /// The value `read` returns, or `nil` after recording its error.
    mutating func read<T>(_ read: () throws(ConfigurationError) -> T) -> T? {
        do {
            return try read()
        } catch {
            errors.append(error)
            return nil
        }
    }

    /// Throws every recorded problem as one error.
    func throwIfAny() throws(ConfigurationError) {
        guard errors.isEmpty else { throw ConfigurationError(combining: errors) }
    }
}
