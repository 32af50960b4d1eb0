import Foundation
import IdentityCore

/// A UNIQUE or PRIMARY KEY violation, by the columns SQLite names in its message
/// ("UNIQUE constraint failed: users.email").
struct UniqueViolation {
    /// The `table.column` names of the violated constraint.
    let columns: Set<String>

    init?(_ error: any Error) {
        guard let error = error as? SQLiteError, error.isUniquenessViolation else { return nil }
        let prefix = "UNIQUE constraint failed: "
        guard let range = error.message.range(of: prefix) else {
            columns = []
            return
        }
        columns = Set(error.message[range.upperBound...].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
    }

    /// Whether the constraint covers `column` (`table.column`).
    func involves(_ column: String) -> Bool { columns.contains(column) }
}

/// Runs `body` and reports a uniqueness violation as the `StoreConflict` that `classify`
/// names for it. Violations it does not name, and every other error, propagate unchanged.
func reportingConflicts<T>(_ classify: (UniqueViolation) -> StoreConflict.Kind?, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch {
        if let violation = UniqueViolation(error), let kind = classify(violation) {
            throw StoreConflict(kind)
        }
        throw error
    }
}
