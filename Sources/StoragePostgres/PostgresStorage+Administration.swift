public import Foundation
public import IdentityCore
import PostgresNIO

extension PostgresStorage {
    // MARK: - Admin API keys

    /// Stores a new admin API key.
    public func saveAdminKey(_ key: AdminAPIKey) async throws {
        try StoredText.requireStorable(key.id, key.name, in: "saveAdminKey")
        _ = try await autocommit { db in
            try await db.rows(
                """
                INSERT INTO admin_keys (id, name, scopes, key_hash, created_at, last_used_at, revoked_at)
                VALUES (\(key.id), \(key.name), \(key.storedScopes), \(key.keyHash.bytea), \(key.createdAt.seconds), \(key.lastUsedAt?.seconds),
                    \(key.revokedAt?.seconds))
                """, logger: self.logger)
        }
    }

    /// The key with this SHA-256, revoked or not.
    public func adminKey(hash: [UInt8]) async throws -> AdminAPIKey? {
        try await autocommit { db in
            try await db.row("SELECT * FROM admin_keys WHERE key_hash = \(hash.bytea)", logger: self.logger).map(AdminAPIKey.init(stored:))
        }
    }

    /// Every key, oldest first.
    public func adminKeys() async throws -> [AdminAPIKey] {
        try await autocommit { db in
            try await db.rows("SELECT * FROM admin_keys ORDER BY created_at, id COLLATE \"C\"", logger: self.logger).map(AdminAPIKey.init(stored:))
        }
    }

    /// Revokes a live key.
    public func revokeAdminKey(id: String, at time: Date) async throws -> Bool {
        guard !StoredText.containsNUL([id]) else { return false }
        return try await autocommit { db in
            try await !db.rows(
                "UPDATE admin_keys SET revoked_at = \(time.seconds) WHERE id = \(id) AND revoked_at IS NULL RETURNING 1", logger: self.logger
            ).isEmpty
        }
    }

    /// Records a key's use.
    public func recordAdminKeyUse(id: String, at time: Date) async throws {
        guard !StoredText.containsNUL([id]) else { return }
        _ = try await autocommit { db in
            try await db.rows("UPDATE admin_keys SET last_used_at = \(time.seconds) WHERE id = \(id)", logger: self.logger)
        }
    }

    // MARK: - Users

    /// Creates an account with no way to sign in yet.
    public func createUser(_ user: User) async throws {
        try user.requireStorable(in: "createUser")
        try await autocommit { db in try await self.insertUser(user, db) }
    }

    /// A page of the directory, by creation time and then ID (as bytes).
    public func users(_ query: UserQuery) async throws -> [User] {
        guard query.limit > 0, !StoredText.containsNUL([query.identifier, query.identifierPrefix, query.after?.id.rawValue]) else { return [] }
        var conditions: [String] = []
        var bindings = PostgresBindings()
        func parameter() -> String { "$\(bindings.count)" }
        if let identifier = query.identifier {
            bindings.append(identifier)
            conditions.append("(email = \(parameter()) OR phone_number = \(parameter()) OR username = \(parameter()))")
        }
        if let prefix = query.identifierPrefix {
            // starts_with, not LIKE: `%` and `_` in the prefix mean themselves.
            bindings.append(prefix)
            let p = parameter()
            conditions.append("(starts_with(email, \(p)) OR starts_with(phone_number, \(p)) OR starts_with(username, \(p)))")
        }
        if let after = query.after {
            bindings.append(after.createdAt.seconds)
            let time = parameter()
            bindings.append(after.id.rawValue)
            conditions.append("(created_at > \(time) OR (created_at = \(time) AND id COLLATE \"C\" > \(parameter())))")
        }
        bindings.append(Int64(query.limit))
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let sql = "SELECT * FROM users \(filter) ORDER BY created_at, id COLLATE \"C\" LIMIT \(parameter())"
        return try await autocommit { [bindings] db in
            try await db.rows(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: self.logger).map { try User(stored: $0) }
        }
    }

    /// Turns an account off (revoking every session in the same transaction) or on.
    public func setUserDisabled(id: UserID, disabled: Bool, at time: Date) async throws -> User? {
        guard !StoredText.containsNUL([id.rawValue]) else { return nil }
        return try await transaction { db in
            guard let row = try await db.row(
                """
                UPDATE users SET disabled_at = CASE WHEN \(disabled) THEN coalesce(disabled_at, \(time.seconds)) END, updated_at = \(time.seconds)
                WHERE id = \(id.rawValue) RETURNING *
                """, logger: self.logger)
            else { return nil }
            if disabled { try await self.revokeSessions(.user(id), at: time, db) }
            return try User(stored: row)
        }
    }

    /// Deletes an account; everything that names it goes with it (`ON DELETE CASCADE`, and for
    /// its sessions the trigger of migration v9).
    public func deleteUser(id: UserID, at time: Date) async throws -> Bool {
        guard !StoredText.containsNUL([id.rawValue]) else { return false }
        return try await transaction { db in
            // Revoked before they go, so that the apps told of ended sessions hear of these.
            try await self.revokeSessions(.user(id), at: time, db)
            return try await !db.rows("DELETE FROM users WHERE id = \(id.rawValue) RETURNING 1", logger: self.logger).isEmpty
        }
    }

    // MARK: - Sessions

    /// A user's sessions, newest first.
    public func sessions(userID: UserID) async throws -> [SessionSummary] {
        guard !StoredText.containsNUL([userID.rawValue]) else { return [] }
        return try await autocommit { db in
            try await db.rows(
                """
                SELECT 'tokens' AS kind, id AS family_id, NULL::bytea AS token_hash, client_id, method, credential_id, created_at AS started_at,
                    NULL::double precision AS expires_at, revoked_at
                FROM refresh_token_families WHERE user_id = \(userID.rawValue)
                UNION ALL
                SELECT 'browser', NULL, token_hash, NULL, method, credential_id, authenticated_at, expires_at, revoked_at
                FROM browser_sessions WHERE user_id = \(userID.rawValue)
                """, logger: self.logger
            ).map(SessionSummary.init(stored:)).sorted(by: SessionSummary.newestFirst)
        }
    }

    /// Revokes one active session of a user.
    public func revokeSession(id: String, userID: UserID, at time: Date) async throws -> Bool {
        guard !StoredText.containsNUL([id, userID.rawValue]) else { return false }
        let selection: SessionSelection = SessionSummary.browserTokenHash(id: id).map { .browserSession(hash: $0, of: userID) } ?? .family(id, of: userID)
        return try await autocommit { db in try await self.revokeSessions(selection, at: time, db) > 0 }
    }

    // MARK: - Events

    /// Audit events matching a filter, newest first.
    public func events(_ query: AuditQuery) async throws -> [LoggedEvent] {
        guard query.limit > 0, !StoredText.containsNUL([query.userID?.rawValue, query.clientID, query.ip]) else { return [] }
        var conditions: [String] = []
        var bindings = PostgresBindings()
        for condition in query.conditions {
            switch condition.value {
            case .text(let text): bindings.append(text)
            case .time(let time): bindings.append(time.seconds)
            case .position(let position): bindings.append(position)
            }
            conditions.append(condition.sql.replacingOccurrences(of: "?", with: "$\(bindings.count)"))
        }
        bindings.append(Int64(query.limit))
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let sql = "SELECT * FROM audit_events \(filter) ORDER BY id DESC LIMIT $\(bindings.count)"
        return try await autocommit { [bindings] db in
            try await db.rows(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: self.logger).map { try LoggedEvent(stored: $0) }
        }
    }
}
