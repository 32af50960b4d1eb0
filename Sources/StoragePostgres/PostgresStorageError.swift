/// The one error type of `StoragePostgres`, for failures that are not PostgreSQL's own.
/// Uniqueness violations are reported as IdentityCore's `StoreConflict`, and a database
/// that cannot do the work now as `StorageUnavailable`.
public struct PostgresStorageError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public enum Code: String, Sendable, Hashable {
        /// The database could not be reached or refused the login at start-up.
        case unreachable
        /// The schema lacks migrations this build needs.
        case schemaOutOfDate = "schema_out_of_date"
        /// A stored value cannot be read back as the model type.
        case unreadableRow = "unreadable_row"
        /// The caller passed values that contradict each other, or text PostgreSQL cannot hold.
        case invalidArgument = "invalid_argument"
    }

    /// The kind of failure; tests match on it.
    public let code: Code
    /// What failed, for operators.
    public let reason: String

    /// Creates an error.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code.rawValue): \(reason)" }
}
