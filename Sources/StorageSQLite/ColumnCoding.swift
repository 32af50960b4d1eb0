import Foundation

// How model values map to columns, in one place so every table stores them alike.

extension Date {
    /// The stored form: REAL seconds since 1970, precise to well under a microsecond.
    var databaseSeconds: Double { timeIntervalSince1970 }
}

extension Array where Element == UInt8 {
    /// The stored form of bytes: a BLOB.
    var databaseBlob: [UInt8] { self }
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
