import Foundation
import GRDB
public import IdentityCore

/// IdentityCore's storage in one SQLite file, through GRDB.
///
/// Every operation that must be atomic (creating a user with their first passkey, consuming a
/// ceremony, rotating a refresh token, retiring signing keys) runs in a single immediate
/// transaction on the one writer connection, so it is atomic against this process and against
/// any other process that opens the same file.
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

    /// The connection(s): a `DatabasePool` for files, a `DatabaseQueue` in memory.
    let writer: any DatabaseWriter

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

    private init(path: String, durability: Durability, schema: SchemaPreparation) throws {
        try Self.createPrivateFileIfMissing(path: path)
        let pool = try DatabasePool(path: path, configuration: Self.configuration())
        // DatabasePool turns WAL on and then sets synchronous=NORMAL itself, after
        // `prepareDatabase` has run, so a pragma set there would be overwritten. Setting it
        // here, on the writer (the only connection that commits), states the choice instead of
        // inheriting it, and keeps it if GRDB's default ever changes. NORMAL is SQLite's
        // advice for WAL: commits stay atomic and survive a process crash; only an OS crash
        // or a power loss can undo the latest ones, at twice the write throughput of FULL
        // (PLATFORM-NOTES: 6k against 2.7k transactions per second on this hardware).
        let synchronous = durability == .full ? "FULL" : "NORMAL"
        try pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = \(synchronous)")
        }
        writer = pool
        try prepareSchema(schema)
    }

    private init(writer: any DatabaseWriter) throws {
        self.writer = writer
        try prepareSchema(.migrate)
    }

    /// A migrated database that lives in memory and disappears with the value; for tests and
    /// throwaway servers.
    public static func inMemory() throws -> SQLiteStorage {
        try SQLiteStorage(writer: DatabaseQueue(configuration: configuration()))
    }

    /// Applies the migrations this build knows that the database has not seen yet.
    /// Running it again does nothing.
    public func migrate() throws {
        try Migrations.migrator.migrate(writer)
    }

    /// Opens the database at `path` (creating it), migrates it and closes it: what
    /// `latchkey migrate` runs.
    /// - Returns: The migrations applied now, in order; empty when the schema was current.
    @discardableResult
    public static func migrate(path: String, durability: Durability = .normal) throws -> [String] {
        let storage = try SQLiteStorage(path: path, durability: durability, schema: .none)
        defer { try? storage.close() }
        let before = try storage.appliedMigrations()
        try storage.migrate()
        return try storage.appliedMigrations().filter { !before.contains($0) }
    }

    /// Every migration this build knows, in the order they apply.
    public static var knownMigrations: [String] { Migrations.migrator.migrations }

    /// The migrations applied to the database: the known ones in order, then any that only a
    /// newer build knows, sorted.
    public func appliedMigrations() throws -> [String] {
        try writer.read { db in
            let known = try Migrations.migrator.appliedMigrations(db)
            let unknown = try Migrations.migrator.appliedIdentifiers(db).subtracting(known)
            return known + unknown.sorted()
        }
    }

    /// Closes the connections, checkpointing the WAL into the file. Later calls fail.
    public func close() throws {
        try writer.close()
    }

    // MARK: - Setup

    private func prepareSchema(_ preparation: SchemaPreparation) throws {
        switch preparation {
        case .migrate:
            try migrate()
        case .requireCurrent:
            let isCurrent = try writer.read { db in try Migrations.migrator.hasCompletedMigrations(db) }
            guard isCurrent else {
                throw SQLiteStorageError(.schemaOutOfDate, "the database schema is behind this build; run `latchkey migrate`")
            }
        case .none:
            break
        }
    }

    private static func configuration() -> Configuration {
        var configuration = Configuration()
        // The schema's foreign keys are rules (a credential belongs to an existing user), and
        // SQLite only enforces them when each connection asks.
        configuration.foreignKeysEnabled = true
        // GRDB serializes this process's writes; the timeout covers other processes on the
        // same file, such as `latchkey migrate` next to a running server.
        configuration.busyMode = .timeout(5)
        configuration.label = "Latchkey.SQLiteStorage"
        return configuration
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
