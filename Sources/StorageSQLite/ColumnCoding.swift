import Foundation
import IdentityCore

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
///
/// Every login reads a passkey's transports and writes a refresh token's scopes, so the
/// common case, strings without escapes, is read and written directly; anything else goes
/// through Foundation's JSON.
enum JSONColumn {
    static func encode(_ strings: [String]) throws -> String {
        var writer = JSONWriter(capacity: 64)
        writer.strings(strings)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    static func decodeStrings(_ text: String, column: String) throws -> [String] {
        if let plain = plainStrings(text) { return plain }
        do {
            return try JSONDecoder().decode([String].self, from: Data(text.utf8))
        } catch {
            throw SQLiteStorageError(.unreadableRow, "\(column) is not a JSON array of strings")
        }
    }

    /// `["a","b"]` exactly as ``encode(_:)`` writes it when no string needs an escape;
    /// `nil` for anything else.
    private static func plainStrings(_ text: String) -> [String]? {
        let utf8 = Array(text.utf8)
        guard utf8.first == UInt8(ascii: "["), utf8.last == UInt8(ascii: "]"), !utf8.contains(UInt8(ascii: "\\")) else { return nil }
        let inner = utf8.dropFirst().dropLast()
        if inner.isEmpty { return [] }
        var strings: [String] = []
        for part in inner.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
            guard part.count >= 2, part.first == UInt8(ascii: "\""), part.last == UInt8(ascii: "\""),
                !part.dropFirst().dropLast().contains(UInt8(ascii: "\""))
            else { return nil }
            strings.append(String(decoding: part.dropFirst().dropLast(), as: UTF8.self))
        }
        return strings
    }
}
