import CSQLite
import Foundation

/// Copies the write-ahead log into the database file on a thread of its own.
///
/// SQLite checkpoints on the connection whose commit fills the log, inside that commit:
/// the copy and its `fsync` then hold the one writer, and every request waiting for a
/// write, for milliseconds (the tail of the latency distribution). Here the writer only
/// signals when the log reaches its threshold, and this thread runs a passive checkpoint
/// on its own connection, which writers do not wait for. Under sustained writes a passive
/// checkpoint may never find the log quiet enough to start it again from the beginning;
/// when the log has grown to four times the threshold, the next checkpoint holds the
/// writer briefly and truncates it, which bounds the log's size.
final class Checkpointer: @unchecked Sendable {
    /// Frames in the log at which a checkpoint starts, unless told otherwise.
    static let defaultThreshold: Int32 = 16000

    /// Frames in the log at which a checkpoint starts.
    let threshold: Int32

    private let connection: SQLiteConnection
    /// Weak: the database owns its checkpointer, and stops it when it goes away.
    private weak var database: SQLiteDatabase?
    private let condition = NSCondition()
    private var requested = false
    private var stopping = false
    private var thread: Thread?

    /// Opens the checkpointer's connection and starts its thread.
    init(path: String, database: SQLiteDatabase, threshold: Int32) throws {
        connection = try SQLiteConnection(path: path)
        // A connection reads the file's header, and so learns that it is in WAL mode, only
        // with its first statement; until then a checkpoint on it does nothing.
        try connection.executeScript("SELECT count(*) FROM sqlite_master")
        self.threshold = threshold
        self.database = database
        // The thread keeps the checkpointer alive until it is stopped.
        let thread = Thread { self.run() }
        thread.name = "latchkey-checkpoint"
        self.thread = thread
        thread.start()
    }

    /// Called by the writer after each commit with the frames now in the log.
    func committed(frames: Int32) {
        guard frames >= threshold else { return }
        condition.withLock {
            requested = true
            condition.signal()
        }
    }

    /// Stops the thread after the checkpoint it may be running.
    func stop() {
        condition.withLock {
            stopping = true
            condition.signal()
        }
    }

    private func run() {
        while true {
            let stop: Bool = condition.withLock {
                while !requested && !stopping { condition.wait() }
                requested = false
                return stopping
            }
            if stop { return }
            checkpoint()
        }
    }

    private func checkpoint() {
        var logFrames: Int32 = 0
        var copied: Int32 = 0
        let status = connection.checkpoint(mode: SQLITE_CHECKPOINT_PASSIVE, logFrames: &logFrames, copiedFrames: &copied)
        guard status == SQLITE_OK || status == SQLITE_BUSY, logFrames >= 4 * threshold else { return }
        // The log keeps growing: truncate it while no write can start.
        _ = try? database?.withWriter { _ in
            connection.checkpoint(mode: SQLITE_CHECKPOINT_TRUNCATE, logFrames: &logFrames, copiedFrames: &copied)
        }
    }
}

extension SQLiteConnection {
    /// Runs a checkpoint of the main database.
    func checkpoint(mode: Int32, logFrames: inout Int32, copiedFrames: inout Int32) -> Int32 {
        withHandle { sqlite3_wal_checkpoint_v2($0, nil, mode, &logFrames, &copiedFrames) }
    }

    /// Calls `checkpointer` after each commit of this connection instead of checkpointing
    /// itself.
    func handOffCheckpoints(to checkpointer: Checkpointer) {
        _ = withHandle { handle in
            sqlite3_wal_hook(handle, { context, _, _, frames in
                Unmanaged<Checkpointer>.fromOpaque(context!).takeUnretainedValue().committed(frames: frames)
                return SQLITE_OK
            }, Unmanaged.passUnretained(checkpointer).toOpaque())
        }
    }
}
