/// Why ``InMemoryStorage`` refused a write that is not a uniqueness conflict. These are the
/// cases where SQLite would raise a constraint error of its own.
public struct InMemoryStorageError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public enum Code: String, Sendable, Hashable {
        /// A referenced row does not exist (SQLite: a foreign key violation).
        case missingReference = "missing_reference"
        /// A primary key that is not a `StoreConflict` kind already exists.
        case duplicateKey = "duplicate_key"
        /// The caller passed values that contradict each other.
        case invalidArgument = "invalid_argument"
    }

    /// The kind of failure; tests match on it.
    public let code: Code
    /// What failed.
    public let reason: String

    /// Creates an error.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code.rawValue): \(reason)" }
}
