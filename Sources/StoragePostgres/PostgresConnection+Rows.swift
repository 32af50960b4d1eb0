public import Foundation
public import IdentityCore
import Logging
public import PostgresNIO

extension PostgresConnection {
    /// Runs one statement and collects its rows.
    func rows(_ query: PostgresQuery, logger: Logger) async throws -> [PostgresRandomAccessRow] {
        var rows: [PostgresRandomAccessRow] = []
        for try await row in try await self.query(query, logger: logger) {
            rows.append(row.makeRandomAccess())
        }
        return rows
    }

    /// Runs one statement and returns its first row, if any.
    func row(_ query: PostgresQuery, logger: Logger) async throws -> PostgresRandomAccessRow? {
        try await rows(query, logger: logger).first
    }

    /// Runs `work` between `BEGIN` and `COMMIT`, rolling back when it throws. (The client's
    /// own `withTransaction` wraps every error in its own type, which would hide a
    /// `StoreConflict` or `StaleRead` from the caller.)
    func transaction<T>(logger: Logger, _ work: (PostgresConnection) async throws -> T) async throws -> T {
        _ = try await query("BEGIN", logger: logger)
        let value: T
        do {
            value = try await work(self)
        } catch {
            _ = try? await query("ROLLBACK", logger: logger)
            throw error
        }
        _ = try await query("COMMIT", logger: logger)
        return value
    }
}

// Public because the type and the protocol are; nothing outside this module reads rows.
extension PostgresRandomAccessRow: StoredRow {
    public func text(_ column: String) throws -> String { try self[column].decode(String.self) }
    public func optionalText(_ column: String) throws -> String? { try self[column].decode(String?.self) }
    public func bytes(_ column: String) throws -> [UInt8] { Array(try self[column].decode(ByteBuffer.self).readableBytesView) }
    public func optionalBytes(_ column: String) throws -> [UInt8]? { try self[column].decode(ByteBuffer?.self).map { Array($0.readableBytesView) } }
    public func date(_ column: String) throws -> Date { Date(timeIntervalSince1970: try self[column].decode(Double.self)) }
    public func optionalDate(_ column: String) throws -> Date? { try self[column].decode(Double?.self).map(Date.init(timeIntervalSince1970:)) }
    public func bool(_ column: String) throws -> Bool { try self[column].decode(Bool.self) }
    public func integer(_ column: String) throws -> Int64 { try self[column].decode(Int64.self) }
    public func strings(_ column: String) throws -> [String] { try self[column].decode([String].self) }
    public func unreadable(_ reason: String) -> any Error { PostgresStorageError(.unreadableRow, reason) }
}

// How model values are bound, in one place so every table stores them alike.

extension Date {
    /// The stored form: `double precision` seconds since 1970.
    var seconds: Double { timeIntervalSince1970 }
}

extension Array where Element == UInt8 {
    /// The bound form of bytes: `bytea`. (A `[UInt8]` bind would be sent as a `"char"[]`.)
    var bytea: ByteBuffer { ByteBuffer(bytes: self) }
}
