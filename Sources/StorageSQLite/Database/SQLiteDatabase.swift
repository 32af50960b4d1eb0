import CSQLite
import Foundation
import IdentityCore
import Metrics
import Synchronization

/// The connections to one database file: one writer and a pool of readers, each used by
/// one thread at a time, on the calling thread.
///
/// Work runs where the request already is: a write takes the writer's lock, runs its
/// transaction and returns; a read borrows an idle reader (opening one when none is idle).
/// In WAL mode readers never wait for the writer, and the writer's transactions are
/// microseconds long, so a thread rarely waits for the lock, and never for another thread
/// to run its work for it.
final class SQLiteDatabase: Sendable {
    private let path: String
    private let writer: SQLiteConnection
    private let writerLock = NSLock()
    /// Idle reader connections.
    private let idleReaders = Mutex<[SQLiteConnection]>([])
    /// Whether reads use the writer: an in-memory database, which other connections cannot see.
    private let readsOnWriter: Bool
    private let prepareReader: @Sendable (SQLiteConnection) throws -> Void
    private let closed = Mutex(false)
    private let checkpointer = Mutex<Checkpointer?>(nil)
    /// Time spent in write transactions (holding the writer) and in reads, for the metrics
    /// listener; no-ops unless a metrics backend was bootstrapped first.
    private let writeTimer = Timer(label: "latchkey_database_write_seconds")
    private let readTimer = Timer(label: "latchkey_database_read_seconds")

    /// Idle readers kept beyond this are closed.
    private static let maximumIdleReaders = 8

    /// Opens the database.
    /// - Parameters:
    ///   - prepareWriter: Runs once on the writer connection (pragmas).
    ///   - prepareReader: Runs on each reader connection as it opens.
    init(path: String, prepareWriter: (SQLiteConnection) throws -> Void, prepareReader: @escaping @Sendable (SQLiteConnection) throws -> Void) throws {
        self.path = path
        writer = try SQLiteConnection(path: path)
        try prepareWriter(writer)
        self.prepareReader = prepareReader
        readsOnWriter = path == ":memory:"
    }

    /// Runs `body` in a write transaction.
    /// - Parameter operation: The storage method asking, which names its span.
    @discardableResult
    func write<T>(operation: StaticString = #function, _ body: (SQLiteConnection) throws -> T) throws -> T {
        try Spans.storage("sqlite", operation) {
            try withWriter { connection in try connection.transaction { try body(connection) } }
        }
    }

    /// Runs `body` on the writer outside any transaction (pragmas, migrations that manage
    /// their own transactions).
    @discardableResult
    func withWriter<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        writerLock.lock()
        defer { writerLock.unlock() }
        try requireOpen()
        let started = DispatchTime.now().uptimeNanoseconds
        defer { writeTimer.recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - started)) }
        return try body(writer)
    }

    /// Moves checkpoints from the writer's commits to a thread of their own (``Checkpointer``).
    func checkpointInBackground(threshold: Int32) throws {
        let started = try Checkpointer(path: path, database: self, threshold: threshold)
        try withWriter { writer in writer.handOffCheckpoints(to: started) }
        checkpointer.withLock { $0 = started }
    }

    deinit {
        checkpointer.withLock { $0?.stop() }
    }

    /// Checkpoints the WAL into the file and refuses every later call; the connections
    /// close when the value goes away.
    func close() throws {
        checkpointer.withLock { $0?.stop() }
        try withWriter { writer in
            try writer.executeScript("PRAGMA wal_checkpoint(TRUNCATE)")
            closed.withLock { $0 = true }
        }
        idleReaders.withLock { $0.removeAll() }
    }

    private func requireOpen() throws {
        if closed.withLock({ $0 }) { throw SQLiteError(code: SQLITE_MISUSE, message: "the database is closed") }
    }

    /// Runs `body` on a reader. Each statement reads a consistent snapshot; a read of
    /// several statements that must agree wraps them in a transaction itself, or is one
    /// statement.
    /// - Parameter operation: The storage method asking, which names its span.
    func read<T>(operation: StaticString = #function, _ body: (SQLiteConnection) throws -> T) throws -> T {
        try Spans.storage("sqlite", operation) { try readOnReader(body) }
    }

    private func readOnReader<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        if readsOnWriter { return try withWriter(body) }
        try requireOpen()
        let reader = try idleReaders.withLock { $0.popLast() } ?? openReader()
        defer {
            idleReaders.withLock { idle in
                if idle.count < Self.maximumIdleReaders { idle.append(reader) }
            }
        }
        let started = DispatchTime.now().uptimeNanoseconds
        defer { readTimer.recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - started)) }
        return try body(reader)
    }

    private func openReader() throws -> SQLiteConnection {
        let reader = try SQLiteConnection(path: path)
        try prepareReader(reader)
        return reader
    }
}
