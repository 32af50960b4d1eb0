/// The one error type of the storage backends, for failures that are not the database's own:
/// each backend raises it (as `SQLiteStorageError` or `PostgresStorageError`, the same
/// type). Uniqueness violations are reported as ``StoreConflict``, and a database that
/// cannot do the work now as ``StorageUnavailable``.
public struct StorageError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public enum Code: String, Sendable, Hashable {
        /// The database could not be reached or refused the login at start-up.
        case unreachable
        /// The schema lacks migrations this build needs.
        case schemaOutOfDate = "schema_out_of_date"
        /// The database file could not be created.
        case cannotCreateFile = "cannot_create_file"
        /// A stored value cannot be read back as the model type: written by another
        /// program, or by a newer build with values this one does not know.
        case unreadableRow = "unreadable_row"
        /// The caller passed values that contradict each other, or text that cannot be stored.
        case invalidArgument = "invalid_argument"
    }

    /// The kind of failure; tests match on it.
    public let code: Code
    /// What failed, for operators.
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code.rawValue): \(reason)" }
}
