import CSQLite
import Synchronization

/// Commits the writes of concurrent requests together: group commit.
///
/// A write submitted here waits (suspended, not blocking its thread) while the requests
/// already running on this thread reach their own writes, then all of them run in one
/// transaction, each inside a savepoint of its own, and each waiter resumes once the
/// transaction has committed. So an acknowledged write is as durable as with a transaction
/// of its own, a write that fails rolls back alone, and the pages every login touches (the
/// ends of the ceremony, audit and session indexes) reach the write-ahead log once per
/// batch instead of once per login: on this hardware each page written costs several
/// microseconds of system time, more than the statements that change it.
final class CommitQueue: Sendable {
    private let database: SQLiteDatabase

    /// A submitted write, erased: it runs inside the transaction, then learns whether the
    /// transaction committed.
    private struct Item: Sendable {
        let run: @Sendable (SQLiteConnection) -> Void
        let finish: @Sendable ((any Error)?) -> Void
    }

    private struct Pending: Sendable {
        var items: [Item] = []
        var flushScheduled = false
    }

    private let pending = Mutex(Pending())
    /// The savepoint around each write of a batch; each is released before the next begins.
    private static let savepoint = "latchkey_item"

    init(database: SQLiteDatabase) {
        self.database = database
    }

    /// Runs `work` in the next batch's transaction and returns its result once that
    /// transaction has committed. A `work` that throws has its writes rolled back and its
    /// error returned; the rest of the batch is unaffected.
    func write<T: Sendable>(_ work: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let outcome = Mutex<Result<T, any Error>?>(nil)
            let item = Item(
                run: { connection in
                    let result = Result { try Self.inSavepoint(connection) { try work(connection) } }
                    outcome.withLock { $0 = result }
                },
                finish: { commitError in
                    if let commitError { return continuation.resume(throwing: commitError) }
                    continuation.resume(with: outcome.withLock { $0 } ?? .failure(SQLiteError(code: SQLITE_ERROR, message: "a batched write did not run")))
                }
            )
            let schedules = pending.withLock { pending in
                pending.items.append(item)
                defer { pending.flushScheduled = true }
                return !pending.flushScheduled
            }
            // The flush is a task of its own: it is queued behind the work already waiting on
            // this thread, so the requests in that work join the batch before it runs.
            if schedules { Task { self.flush() } }
        }
    }

    private func flush() {
        let items = pending.withLock { pending in
            pending.flushScheduled = false
            defer { pending.items.removeAll(keepingCapacity: true) }
            return pending.items
        }
        guard !items.isEmpty else { return }
        do {
            try database.write { connection in
                for item in items { item.run(connection) }
            }
            for item in items { item.finish(nil) }
        } catch {
            for item in items { item.finish(error) }
        }
    }

    private static func inSavepoint<T>(_ connection: SQLiteConnection, _ body: () throws -> T) throws -> T {
        try connection.execute("SAVEPOINT \(savepoint)")
        do {
            let result = try body()
            try connection.execute("RELEASE \(savepoint)")
            return result
        } catch {
            _ = try? connection.execute("ROLLBACK TO \(savepoint)")
            _ = try? connection.execute("RELEASE \(savepoint)")
            throw error
        }
    }
}
