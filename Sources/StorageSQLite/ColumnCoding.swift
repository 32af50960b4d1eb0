import Foundation
import GRDB

// How model values map to columns, in one place so every table stores them alike.

extension Date {
    /// The stored form: REAL seconds since 1970, precise to well under a microsecond.
    var databaseSeconds: Double { timeIntervalSince1970 }
}

extension Array where Element == UInt8 {
    /// The stored form of bytes: a BLOB.
    var databaseBlob: Data { Data(self) }
}

/// String lists (transports, scopes, credential IDs) as JSON arrays in TEXT columns.
enum JSONColumn {
    static func encode(_ strings: [String]) throws -> String {
        String(decoding: try JSONEncoder().encode(strings), as: UTF8.self)
    }

    static func decodeStrings(_ text: String, column: String) throws -> [String] {
        do {
            return try JSONDecoder().decode([String].self, from: Data(text.utf8))
        } catch {
            throw SQLiteStorageError(.unreadableRow, "\(column) is not a JSON array of strings")
        }
    }
}

extension Row {
    // GRDB's subscripts crash on a value of the wrong type; these throw instead, because the
    // file may have been written by another program.

    func text(_ column: String) throws -> String {
        try decode(String.self, forColumn: column)
    }

    func optionalText(_ column: String) throws -> String? {
        try decode(String?.self, forColumn: column)
    }

    func bytes(_ column: String) throws -> [UInt8] {
        [UInt8](try decode(Data.self, forColumn: column))
    }

    func bool(_ column: String) throws -> Bool {
        try decode(Bool.self, forColumn: column)
    }

    func date(_ column: String) throws -> Date {
        Date(timeIntervalSince1970: try decode(Double.self, forColumn: column))
    }

    func optionalDate(_ column: String) throws -> Date? {
        try decode(Double?.self, forColumn: column).map(Date.init(timeIntervalSince1970:))
    }

    func stringList(_ column: String) throws -> [String] {
        try JSONColumn.decodeStrings(text(column), column: column)
    }

    /// A column whose text must be one of a `RawRepresentable`'s raw values.
    func enumeration<Value: RawRepresentable>(_ type: Value.Type, _ column: String) throws -> Value where Value.RawValue == String {
        let raw = try text(column)
        guard let value = Value(rawValue: raw) else {
            throw SQLiteStorageError(.unreadableRow, "\(column) holds an unknown value \"\(raw)\"")
        }
        return value
    }
}
