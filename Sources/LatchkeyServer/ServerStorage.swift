public import IdentityCore
import StoragePostgres
import StorageSQLite

/// A storage backend as the server runs it: every IdentityCore store, the feed its
/// committed audit events are announced on, and the housekeeping only a backend knows.
public protocol ServerStorage: IdentityStorage {
    /// Where committed audit events are announced (logs, metrics).
    var securityEvents: SecurityEventFeed { get }
    /// Returns up to `pages` freed pages to the file system, where the backend needs it.
    /// - Returns: The free pages left.
    @discardableResult
    func reclaimSpace(pages: Int) async throws -> Int
}

extension SQLiteStorage: ServerStorage {}
extension PostgresStorage: ServerStorage {}
