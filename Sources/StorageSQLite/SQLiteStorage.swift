import Foundation
public import IdentityCore

/// IdentityCore's storage in one SQLite file.
///
/// Every operation that must be atomic (finishing a ceremony with everything it writes,
/// rotating a refresh token, retiring signing keys) runs in a single immediate transaction
/// on the one writer connection, so it is atomic against this process and against any
/// other process that opens the same file. Work runs on the calling thread (see
/// ``SQLiteDatabase``).
public final class SQLiteStorage: IdentityStorage {
    /// How hard a commit tries to reach the disk before it returns.
    public enum Durability: Sendable, Hashable {
        /// `synchronous=NORMAL`: in WAL mode a commit survives a crash of the process but may
        /// be rolled back by a power loss or an OS crash. It never corrupts the file.
        case normal
        /// `synchronous=FULL`: a commit also survives a power loss, at about half the write
        /// throughput.
        case full
    }

    /// What opening does about the schema.
    private enum SchemaPreparation {
        /// Apply pending migrations.
        case migrate
        /// Fail unless every known migration has been applied.
        case requireCurrent
        /// Leave it; the caller migrates.
        case none
    }

    let database: SQLiteDatabase
    /// Ceremony completions, committed in batches (``CommitQueue``).
    let completions: CommitQueue
    /// Where the audit events this store commits are announced, after their commit.
    public let securityEvents = SecurityEventFeed()
    /// The rate-limit counters, in memory (see `countRequest`).
    let rateCounters = RequestCounters()

    /// Opens (creating it if needed) the database at `path`.
    ///
    /// A new file is created readable by its owner only, because it holds token signing keys
    /// and instance secrets; SQLite gives the `-wal` and `-shm` files the same permissions.
    ///
    /// - Parameters:
    ///   - path: The database file. Its directory must exist.
    ///   - durability: See ``Durability``.
    ///   - runsMigrations: Whether to bring the schema up to date now. Pass `false` when
    ///     `latchkey migrate` runs separately; opening then fails if the schema is behind.
    /// - Throws: ``SQLiteStorageError`` (`.schemaOutOfDate`, `.cannotCreateFile`), or the
    ///   database error.
    public convenience init(path: String, durability: Durability = .normal, runsMigrations: Bool = true) throws {
        try self.init(path: path, durability: durability, schema: runsMigrations ? .migrate : .requireCurrent)
    }

    /// Opens the database with checkpoints every `checkpointFrames` pages, for tests.
    convenience init(path: String, checkpointFrames: Int32) throws {
        try self.init(path: path, durability: .normal, schema: .migrate, checkpointFrames: checkpointFrames)
    }

    private init(path: String, durability: Durability, schema: SchemaPreparation, checkpointFrames: Int32 = Checkpointer.defaultThreshold) throws {
        try Self.createPrivateFileIfMissing(path: path)
        database = try SQLiteDatabase(
            path: path,
            prepareWriter: { writer in
                // WAL lets readers work while the writer commits. NORMAL is SQLite's advice
                // for WAL: commits stay atomic and survive a process crash (`kill -9`); only
                // an OS crash or a power loss can undo the latest ones, at twice the write
                // throughput of FULL (PLATFORM-NOTES: 6k against 2.7k transactions per second
                // on this hardware).
                // A new file frees the pages purges empty, a few at a time (reclaimSpace);
                // on a file that has tables already this changes nothing.
                try writer.executeScript("PRAGMA auto_vacuum = INCREMENTAL")
                try writer.executeScript("PRAGMA journal_mode = WAL")
                try writer.executeScript("PRAGMA synchronous = \(durability == .full ? "FULL" : "NORMAL")")
                try Self.prepareConnection(writer)
                // Checkpoints run on a thread of their own (Checkpointer), when the WAL holds
                // 16000 pages (64 MiB), not SQLite's 1000: the pages every login changes (the
                // ends of the session and audit indexes, the passkeys in use) are then copied
                // into the file once per many logins, and the fsync comes sixteen times less
                // often (3% of a login's CPU against 4000 pages, measured).
            },
            prepareReader: Self.prepareConnection
        )
        completions = CommitQueue(database: database)
        try database.checkpointInBackground(threshold: checkpointFrames)
        try prepareSchema(schema)
    }

    private init(inMemory: Void) throws {
        database = try SQLiteDatabase(path: ":memory:", prepareWriter: Self.prepareConnection, prepareReader: { _ in })
        completions = CommitQueue(database: database)
        try prepareSchema(.migrate)
    }

    /// A migrated database that lives in memory and disappears with the value; for tests and
    /// throwaway servers.
    public static func inMemory() throws -> SQLiteStorage {
        try SQLiteStorage(inMemory: ())
    }

    /// Applies the migrations this build knows that the database has not seen yet.
    /// Running it again does nothing.
    /// - Returns: The migrations applied now, in order.
    @discardableResult
    public func migrate() throws -> [String] {
        try database.withWriter(Migrations.migrate)
    }

    /// Opens the database at `path` (creating it), migrates it and closes it: what
    /// `latchkey migrate` runs.
    /// - Returns: The migrations applied now, in order; empty when the schema was current.
    @discardableResult
    public static func migrate(path: String, durability: Durability = .normal) throws -> [String] {
        let storage = try SQLiteStorage(path: path, durability: durability, schema: .none)
        defer { try? storage.close() }
        return try storage.migrate()
    }

    /// Every migration this build knows, in the order they apply.
    public static var knownMigrations: [String] { Migrations.all.map(\.name) }

    /// The migrations applied to the database: the known ones in order, then any that only a
    /// newer build knows, sorted.
    public func appliedMigrations() throws -> [String] {
        try database.read(Migrations.applied)
    }

    /// Closes the connections, checkpointing the WAL into the file. Later calls fail.
    public func close() throws {
        try database.close()
    }

    // MARK: - Setup

    private func prepareSchema(_ preparation: SchemaPreparation) throws {
        switch preparation {
        case .migrate:
            try migrate()
        case .requireCurrent:
            guard try appliedMigrations().starts(with: Self.knownMigrations) else {
                throw SQLiteStorageError(.schemaOutOfDate, "the database schema is behind this build; run `latchkey migrate`")
            }
        case .none:
            break
        }
    }

    /// What every connection sets when it opens.
    @Sendable private static func prepareConnection(_ connection: SQLiteConnection) throws {
        // The schema's foreign keys are rules (a credential belongs to an existing user), and
        // SQLite only enforces them when each connection asks.
        try connection.executeScript("PRAGMA foreign_keys = ON")
        try connection.executeScript("PRAGMA temp_store = MEMORY")
        // No memory map: in WAL mode a connection drops its whole mapping at the start of
        // every read after another connection wrote, and remapping cost more per login than
        // the reads it saves (measured in process: 281 against 228 µs per login).
    }

    private static func createPrivateFileIfMissing(path: String) throws {
        let files = FileManager.default
        guard !files.fileExists(atPath: path) else { return }
        // Losing a race with another process creating the file is fine; failing to create it
        // at all is reported here rather than as SQLite's vaguer "unable to open".
        guard files.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
            || files.fileExists(atPath: path)
        else {
            throw SQLiteStorageError(.cannotCreateFile, "could not create the database file at \(path)")
        }
    }
}
