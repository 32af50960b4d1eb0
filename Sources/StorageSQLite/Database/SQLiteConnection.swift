import CSQLite
import IdentityCore
import Foundation
import SQLiteWALWriter

/// One SQLite connection with its prepared statements.
///
/// Latchkey talks to SQLite through this small layer rather than through a general
/// library because the login path runs one read and one write transaction per request and
/// little else: measured on the release server, GRDB's queue hop, savepoint, schema-cache
/// check and value boxing around each access cost more than the statements themselves.
/// Here a statement is compiled once per connection, values bind straight to it, and a
/// transaction runs on the calling thread.
///
/// A connection is used by one thread at a time; ``SQLiteDatabase`` guarantees it.
final class SQLiteConnection: @unchecked Sendable {
    private let handle: OpaquePointer
    private var statements: [String: SQLiteStatement] = [:]

    /// Opens (creating it if needed) the database at `path`, or a private in-memory one for
    /// `":memory:"`.
    init(path: String) throws {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let status = sqlite3_open_v2(path, &handle, flags, Self.walWriter == SQLITE_OK ? latchkey_wal_writer_vfs_name : nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let handle { sqlite3_close_v2(handle) }
            throw SQLiteError(code: status, message: "cannot open \(path): \(message)")
        }
        self.handle = handle
        // Other processes (`latchkey migrate`, `latchkey keys rotate`, a backup) may hold the
        // write lock for a moment; within this process the pool's lock serializes writers.
        sqlite3_busy_timeout(handle, 5000)
    }

    /// Registers the VFS that coalesces WAL writes, once; connections use the default VFS
    /// if that fails.
    private static let walWriter = latchkey_register_wal_writer()

    deinit {
        for statement in statements.values { statement.finalize() }
        sqlite3_close_v2(handle)
    }

    /// Runs `body` with the connection's handle, for SQLite calls this type does not wrap.
    func withHandle<T>(_ body: (OpaquePointer) -> T) -> T { body(handle) }

    /// Runs SQL text that may hold several statements and binds nothing (migrations, pragmas).
    func executeScript(_ sql: String) throws {
        var error: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &error)
        if status != SQLITE_OK {
            let message = error.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(error)
            throw SQLiteError.failure(code: sqlite3_extended_errcode(handle), message: message)
        }
    }

    /// Runs one statement for its effect.
    /// - Returns: The number of rows it changed.
    @discardableResult
    func execute(_ sql: String, _ arguments: [any SQLiteBindable] = []) throws -> Int {
        let statement = try prepared(sql)
        defer { statement.reset() }
        try statement.bind(arguments)
        while try statement.step() {}
        return Int(sqlite3_changes(handle))
    }

    /// The rows a statement returns.
    func rows(_ sql: String, _ arguments: [any SQLiteBindable] = []) throws -> [SQLiteRow] {
        let statement = try prepared(sql)
        defer { statement.reset() }
        try statement.bind(arguments)
        var rows: [SQLiteRow] = []
        while try statement.step() { rows.append(statement.row()) }
        return rows
    }

    /// The first row a statement returns, running it to the end (so that a `RETURNING`
    /// statement completes).
    func row(_ sql: String, _ arguments: [any SQLiteBindable] = []) throws -> SQLiteRow? {
        try rows(sql, arguments).first
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    /// `BEGIN IMMEDIATE` takes the write lock at once, so two processes never both start
    /// reading and then both wait to write.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            // A failed COMMIT may already have rolled back; a second error is not the news.
            if sqlite3_get_autocommit(handle) == 0 { _ = try? execute("ROLLBACK") }
            throw error
        }
    }

    private func prepared(_ sql: String) throws -> SQLiteStatement {
        if let statement = statements[sql] { return statement }
        let statement = try SQLiteStatement(sql: sql, connection: handle)
        statements[sql] = statement
        return statement
    }
}

/// A compiled statement, reused: bound, stepped, then reset.
final class SQLiteStatement {
    private let handle: OpaquePointer
    private let connection: OpaquePointer
    /// Column index by name, built once.
    private let columns: [String: Int]

    init(sql: String, connection: OpaquePointer) throws {
        var handle: OpaquePointer?
        let status = sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        guard status == SQLITE_OK, let handle else {
            throw SQLiteError.failure(code: sqlite3_extended_errcode(connection), message: String(cString: sqlite3_errmsg(connection)) + " in: \(sql.prefix(200))")
        }
        self.handle = handle
        self.connection = connection
        var columns: [String: Int] = [:]
        for index in 0..<Int(sqlite3_column_count(handle)) {
            columns[String(cString: sqlite3_column_name(handle, Int32(index)))] = index
        }
        self.columns = columns
    }

    func finalize() { sqlite3_finalize(handle) }

    func bind(_ arguments: [any SQLiteBindable]) throws {
        guard arguments.count == Int(sqlite3_bind_parameter_count(handle)) else {
            throw SQLiteError(code: SQLITE_RANGE, message: "\(arguments.count) arguments for \(sqlite3_bind_parameter_count(handle)) parameters")
        }
        for (offset, argument) in arguments.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch argument.sqliteValue {
            case .null:
                status = sqlite3_bind_null(handle, index)
            case .integer(let value):
                status = sqlite3_bind_int64(handle, index, value)
            case .real(let value):
                status = sqlite3_bind_double(handle, index, value)
            case .text(var value):
                // Bound with its byte length, so text is stored exactly as given.
                status = value.withUTF8 { sqlite3_bind_text(handle, index, $0.baseAddress, Int32($0.count), sqliteTransient) }
            case .blob(let value):
                // A zero-length blob must still be a blob, not NULL: a non-null pointer.
                status = value.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32($0.count), sqliteTransient) }
            }
            guard status == SQLITE_OK else { throw SQLiteError(code: status, message: String(cString: sqlite3_errmsg(connection))) }
        }
    }

    /// Advances; `true` while there is a row to read.
    func step() throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw SQLiteError.failure(code: sqlite3_extended_errcode(connection), message: String(cString: sqlite3_errmsg(connection)))
        }
    }

    func row() -> SQLiteRow {
        var values: [SQLiteValue] = []
        values.reserveCapacity(columns.count)
        for index in 0..<Int32(columns.count) {
            switch sqlite3_column_type(handle, index) {
            case SQLITE_INTEGER:
                values.append(.integer(sqlite3_column_int64(handle, index)))
            case SQLITE_FLOAT:
                values.append(.real(sqlite3_column_double(handle, index)))
            case SQLITE_TEXT:
                let count = Int(sqlite3_column_bytes(handle, index))
                let text = sqlite3_column_text(handle, index).map { String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self) } ?? ""
                values.append(.text(text))
            case SQLITE_BLOB:
                let count = Int(sqlite3_column_bytes(handle, index))
                let bytes = sqlite3_column_blob(handle, index).map { Array(UnsafeRawBufferPointer(start: $0, count: count)) } ?? []
                values.append(.blob(bytes))
            default:
                values.append(.null)
            }
        }
        return SQLiteRow(columns: columns, values: values)
    }

    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }
}

/// SQLite's "copy this value now" destructor.
private let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A failure SQLite reported, with its extended result code.
struct SQLiteError: Error, CustomStringConvertible {
    let code: Int32
    let message: String

    var description: String { "SQLite error \(code): \(message)" }

    /// A UNIQUE or PRIMARY KEY violation (the extended codes are C macros Swift does not
    /// import: SQLITE_CONSTRAINT with sub-codes 8 and 6).
    var isUniquenessViolation: Bool { code == SQLITE_CONSTRAINT | (8 << 8) || code == SQLITE_CONSTRAINT | (6 << 8) }

    /// The error for a failed call: IdentityCore's ``StorageUnavailable`` when the database
    /// could not do the work now (busy or locked by another process, the disk full, an I/O
    /// error, read-only or gone), so that the faces answer 503 and not 500; else this type.
    static func failure(code: Int32, message: String) -> any Error {
        switch code & 0xFF {
        case SQLITE_BUSY, SQLITE_LOCKED, SQLITE_FULL, SQLITE_IOERR, SQLITE_READONLY, SQLITE_CANTOPEN:
            return StorageUnavailable("SQLite error \(code): \(message)")
        default:
            return SQLiteError(code: code, message: message)
        }
    }
}
