public import Foundation
public import IdentityCore

extension SQLiteStorage {
    // MARK: - Admin API keys

    /// Stores a new admin API key.
    public func saveAdminKey(_ key: AdminAPIKey) async throws {
        try StoredText.requireStorable(key.id, key.name, in: "saveAdminKey")
        try database.write { db in
            try db.execute(
                "INSERT INTO admin_keys (id, name, scopes, key_hash, created_at, last_used_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [key.id, key.name, key.storedScopes, key.keyHash, key.createdAt.databaseSeconds, key.lastUsedAt?.databaseSeconds, key.revokedAt?.databaseSeconds]
            )
        }
    }

    /// The key with this SHA-256, revoked or not.
    public func adminKey(hash: [UInt8]) async throws -> AdminAPIKey? {
        try database.read { db in try db.row("SELECT * FROM admin_keys WHERE key_hash = ?", [hash]).map(AdminAPIKey.init(stored:)) }
    }

    /// Every key, oldest first.
    public func adminKeys() async throws -> [AdminAPIKey] {
        try database.read { db in try db.rows("SELECT * FROM admin_keys ORDER BY created_at, id").map(AdminAPIKey.init(stored:)) }
    }

    /// Revokes a live key.
    public func revokeAdminKey(id: String, at time: Date) async throws -> Bool {
        guard StoredText.canMatch(id) else { return false }
        return try database.write { db in
            try db.execute("UPDATE admin_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", [time.databaseSeconds, id]) > 0
        }
    }

    /// Records a key's use.
    public func recordAdminKeyUse(id: String, at time: Date) async throws {
        guard StoredText.canMatch(id) else { return }
        try database.write { db in _ = try db.execute("UPDATE admin_keys SET last_used_at = ? WHERE id = ?", [time.databaseSeconds, id]) }
    }

    // MARK: - Users

    /// Creates an account with no way to sign in yet.
    public func createUser(_ user: User) async throws {
        try user.requireStorable(in: "createUser")
        try database.write { db in try Self.insertUserReportingConflicts(user, db) }
    }

    /// A page of the directory, by creation time and then ID.
    public func users(_ query: UserQuery) async throws -> [User] {
        guard query.limit > 0, StoredText.canMatch(query.identifier), StoredText.canMatch(query.identifierPrefix),
            StoredText.canMatch(query.after?.id.rawValue)
        else { return [] }
        var conditions: [String] = []
        var arguments: [any SQLiteBindable] = []
        if let identifier = query.identifier {
            conditions.append("(email = ? OR phone_number = ? OR username = ?)")
            arguments += [identifier, identifier, identifier]
        }
        if let prefix = query.identifierPrefix {
            // Compared as bytes: no LIKE, so `%` and `_` in the prefix mean themselves.
            let length = Int64(prefix.utf8.count)
            conditions.append("(substr(CAST(email AS BLOB), 1, ?) = CAST(? AS BLOB) OR substr(CAST(phone_number AS BLOB), 1, ?) = CAST(? AS BLOB) OR substr(CAST(username AS BLOB), 1, ?) = CAST(? AS BLOB))")
            arguments += [length, prefix, length, prefix, length, prefix]
        }
        if let after = query.after {
            conditions.append("(created_at > ? OR (created_at = ? AND id > ?))")
            arguments += [after.createdAt.databaseSeconds, after.createdAt.databaseSeconds, after.id.rawValue]
        }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        arguments.append(Int64(query.limit))
        return try database.read { db in
            try db.rows("SELECT * FROM users \(filter) ORDER BY created_at, id LIMIT ?", arguments).map { try User(stored: $0) }
        }
    }

    /// Turns an account off (revoking every session in the same transaction) or on.
    public func setUserDisabled(id: UserID, disabled: Bool, at time: Date) async throws -> User? {
        guard StoredText.canMatch(id.rawValue) else { return nil }
        return try database.write { db in
            guard let row = try db.row(
                "UPDATE users SET disabled_at = CASE WHEN ? THEN coalesce(disabled_at, ?) END, updated_at = ? WHERE id = ? RETURNING *",
                [disabled, time.databaseSeconds, time.databaseSeconds, id.rawValue]
            ) else { return nil }
            if disabled { try Self.revokeSessions(.user(id), at: time, db) }
            return try User(stored: row)
        }
    }

    /// Deletes an account; everything that names it goes with it (`ON DELETE CASCADE`).
    public func deleteUser(id: UserID, at time: Date) async throws -> Bool {
        guard StoredText.canMatch(id.rawValue) else { return false }
        return try database.write { db in
            // Revoked before they go, so that the apps told of ended sessions hear of these.
            try Self.revokeSessions(.user(id), at: time, db)
            return try db.execute("DELETE FROM users WHERE id = ?", [id.rawValue]) > 0
        }
    }

    // MARK: - Sessions

    /// A user's sessions, newest first.
    public func sessions(userID: UserID) async throws -> [SessionSummary] {
        guard StoredText.canMatch(userID.rawValue) else { return [] }
        return try database.read { db in
            try db.rows(
                """
                SELECT 'tokens' AS kind, id AS family_id, NULL AS token_hash, client_id, method, credential_id, created_at AS started_at,
                    NULL AS expires_at, revoked_at
                FROM refresh_token_families WHERE user_id = ?
                UNION ALL
                SELECT 'browser', NULL, token_hash, NULL, method, credential_id, authenticated_at, expires_at, revoked_at
                FROM browser_sessions WHERE user_id = ?
                """, [userID.rawValue, userID.rawValue]
            ).map(SessionSummary.init(stored:)).sorted(by: SessionSummary.newestFirst)
        }
    }

    /// Revokes one active session of a user.
    public func revokeSession(id: String, userID: UserID, at time: Date) async throws -> Bool {
        guard StoredText.canMatch(id), StoredText.canMatch(userID.rawValue) else { return false }
        let selection: SessionSelection = SessionSummary.browserTokenHash(id: id).map { .browserSession(hash: $0, of: userID) } ?? .family(id, of: userID)
        return try database.write { db in try Self.revokeSessions(selection, at: time, db) > 0 }
    }

    // MARK: - Events

    /// Audit events matching a filter, newest first.
    public func events(_ query: AuditQuery) async throws -> [LoggedEvent] {
        guard query.limit > 0, StoredText.canMatch(query.userID?.rawValue), StoredText.canMatch(query.clientID), StoredText.canMatch(query.ip) else { return [] }
        let conditions = query.conditions
        var arguments: [any SQLiteBindable] = conditions.map { condition -> any SQLiteBindable in
            switch condition.value {
            case .text(let text): text
            case .time(let time): time.databaseSeconds
            case .position(let position): position
            }
        }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.map(\.sql).joined(separator: " AND ")
        arguments.append(Int64(query.limit))
        return try database.read { db in
            try db.rows("SELECT * FROM audit_events \(filter) ORDER BY id DESC LIMIT ?", arguments).map { try LoggedEvent(stored: $0) }
        }
    }
}
