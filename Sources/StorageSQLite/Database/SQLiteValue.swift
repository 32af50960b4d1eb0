import Foundation
import IdentityCore

/// A value SQLite stores: the five storage classes.
enum SQLiteValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// A Swift value that binds to a statement parameter.
protocol SQLiteBindable {
    var sqliteValue: SQLiteValue { get }
}

extension String: SQLiteBindable {
    var sqliteValue: SQLiteValue { .text(self) }
}

extension Int64: SQLiteBindable {
    var sqliteValue: SQLiteValue { .integer(self) }
}

extension Int: SQLiteBindable {
    var sqliteValue: SQLiteValue { .integer(Int64(self)) }
}

extension Double: SQLiteBindable {
    var sqliteValue: SQLiteValue { .real(self) }
}

extension Bool: SQLiteBindable {
    /// Booleans are INTEGER 0 or 1.
    var sqliteValue: SQLiteValue { .integer(self ? 1 : 0) }
}

extension Array: SQLiteBindable where Element == UInt8 {
    /// Bytes are a BLOB.
    var sqliteValue: SQLiteValue { .blob(self) }
}

extension Optional: SQLiteBindable where Wrapped: SQLiteBindable {
    var sqliteValue: SQLiteValue { self?.sqliteValue ?? .null }
}

extension SQLiteValue: SQLiteBindable {
    var sqliteValue: SQLiteValue { self }
}

/// One result row, by column name. The accessors throw rather than trap on a value of the
/// wrong type, because the file may have been written by another program.
struct SQLiteRow: StoredRow {
    /// Column index by name, shared by every row of one statement.
    let columns: [String: Int]
    let values: [SQLiteValue]

    func value(_ column: String) throws -> SQLiteValue {
        guard let index = columns[column] else {
            throw SQLiteStorageError(.unreadableRow, "the result has no column \(column)")
        }
        return values[index]
    }

    func optionalText(_ column: String) throws -> String? {
        switch try value(column) {
        case .null: return nil
        case .text(let text): return text
        default: throw Self.mismatch(column, "text")
        }
    }

    func text(_ column: String) throws -> String {
        guard let text = try optionalText(column) else { throw Self.mismatch(column, "text") }
        return text
    }

    func optionalBytes(_ column: String) throws -> [UInt8]? {
        switch try value(column) {
        case .null: return nil
        case .blob(let bytes): return bytes
        default: throw Self.mismatch(column, "a blob")
        }
    }

    func bytes(_ column: String) throws -> [UInt8] {
        guard let bytes = try optionalBytes(column) else { throw Self.mismatch(column, "a blob") }
        return bytes
    }

    func optionalInteger(_ column: String) throws -> Int64? {
        switch try value(column) {
        case .null: return nil
        case .integer(let integer): return integer
        default: throw Self.mismatch(column, "an integer")
        }
    }

    func integer(_ column: String) throws -> Int64 {
        guard let integer = try optionalInteger(column) else { throw Self.mismatch(column, "an integer") }
        return integer
    }

    func bool(_ column: String) throws -> Bool {
        switch try integer(column) {
        case 0: return false
        case 1: return true
        default: throw Self.mismatch(column, "0 or 1")
        }
    }

    func optionalDate(_ column: String) throws -> Date? {
        switch try value(column) {
        case .null: return nil
        case .real(let seconds): return Date(timeIntervalSince1970: seconds)
        case .integer(let seconds): return Date(timeIntervalSince1970: Double(seconds))
        default: throw Self.mismatch(column, "a time")
        }
    }

    func date(_ column: String) throws -> Date {
        guard let date = try optionalDate(column) else { throw Self.mismatch(column, "a time") }
        return date
    }

    func strings(_ column: String) throws -> [String] {
        try JSONColumn.decodeStrings(text(column), column: column)
    }

    func unreadable(_ reason: String) -> any Error {
        SQLiteStorageError(.unreadableRow, reason)
    }

    private static func mismatch(_ column: String, _ expected: String) -> SQLiteStorageError {
        SQLiteStorageError(.unreadableRow, "\(column) does not hold \(expected)")
    }
}
