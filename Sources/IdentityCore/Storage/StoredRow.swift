public import Foundation

/// One row a storage backend read, by column name, so that every backend reads a model
/// from its columns with the same code (``StoredRecords``). The backends name their columns
/// alike; each accessor throws the backend's own error for a value of the wrong type.
public protocol StoredRow {
    func text(_ column: String) throws -> String
    func optionalText(_ column: String) throws -> String?
    func bytes(_ column: String) throws -> [UInt8]
    func optionalBytes(_ column: String) throws -> [UInt8]?
    func integer(_ column: String) throws -> Int64
    func bool(_ column: String) throws -> Bool
    func date(_ column: String) throws -> Date
    func optionalDate(_ column: String) throws -> Date?
    /// A list of strings (a JSON array in SQLite, `text[]` in PostgreSQL).
    func strings(_ column: String) throws -> [String]
    /// The backend's error for a column whose value cannot be the model's.
    func unreadable(_ reason: String) -> any Error
}

extension StoredRow {
    /// A column whose text must be one of a `RawRepresentable`'s raw values.
    public func enumeration<Value: RawRepresentable>(_ type: Value.Type, _ column: String) throws -> Value where Value.RawValue == String {
        let raw = try text(column)
        guard let value = Value(rawValue: raw) else { throw unreadable("\(column) holds an unknown value \"\(raw.prefix(40))\"") }
        return value
    }
}
