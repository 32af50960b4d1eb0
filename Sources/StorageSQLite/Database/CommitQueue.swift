import CSQLite
import IdentityCore
import Synchronization

/// Commits the writes of concurrent requests together: group commit.
///
/// A write submitted here waits (suspended, not blocking its thread) while the requests
/// already running on this thread reach their own writes, then all of them run in one
/// transaction, and each waiter resumes once the transaction has committed. So an
/// acknowledged write is as durable as with a transaction of its own, and the pages every
/// login touches (the ends of the ceremony, audit and session indexes) reach the
/// write-ahead log once per batch instead of once per login: on this hardware each page
/// written costs several microseconds of system time, more than the statements that
/// change it.
///
/// A write that throws fails alone: the transaction is rolled back and the rest of the
/// batch runs again without it, as if it had run after them. (A savepoint around each
/// write would say the same, but makes SQLite copy every page a write touches into a
/// statement journal first, which measured as a quarter of a batch's cost.)
final class CommitQueue: Sendable {
    private let database: SQLiteDatabase

    /// A submitted write, erased: it runs inside the transaction (keeping its result), then
    /// learns whether the transaction committed.
    private struct Item: Sendable {
        let run: @Sendable (SQLiteConnection) throws -> Void
        let finish: @Sendable ((any Error)?) -> Void
    }

    private struct Pending: Sendable {
        var items: [Item] = []
        var flushScheduled = false
    }

    private let pending = Mutex(Pending())

    init(database: SQLiteDatabase) {
        self.database = database
    }

    /// Runs `work` in the next batch's transaction and returns its result once that
    /// transaction has committed. A `work` that throws has nothing written and its error
    /// returned; the rest of the batch is unaffected.
    /// - Parameter operation: The storage method asking, which names its span (the wait for
    ///   the batch and its commit).
    func write<T: Sendable>(operation: StaticString = #function, _ work: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await Spans.storage("sqlite", operation) { try await enqueue(work) }
    }

    private func enqueue<T: Sendable>(_ work: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let result = Mutex<T?>(nil)
            let item = Item(
                run: { connection in
                    let value = try work(connection)
                    result.withLock { $0 = value }
                },
                finish: { error in
                    if let error { return continuation.resume(throwing: error) }
                    guard let value = result.withLock({ $0 }) else {
                        return continuation.resume(throwing: SQLiteError(code: SQLITE_ERROR, message: "a batched write did not run"))
                    }
                    continuation.resume(returning: value)
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
        var items = pending.withLock { pending in
            pending.flushScheduled = false
            defer { pending.items.removeAll(keepingCapacity: true) }
            return pending.items
        }
        while !items.isEmpty {
            var failure: (index: Int, error: any Error)?
            do {
                // Not `write`: the batch is every waiter's, and each waiter's span covers it.
                try database.withWriter { connection in try connection.transaction {
                    for (index, item) in items.enumerated() {
                        do {
                            try item.run(connection)
                        } catch {
                            failure = (index, error)
                            throw error
                        }
                    }
                } }
                for item in items { item.finish(nil) }
                return
            } catch {
                guard let failure else {
                    // The transaction itself failed (begin or commit): nothing was written.
                    for item in items { item.finish(error) }
                    return
                }
                items.remove(at: failure.index).finish(failure.error)
            }
        }
    }
}
