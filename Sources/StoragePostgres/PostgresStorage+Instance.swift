public import Foundation
public import IdentityCore
import PostgresNIO

// What every instance shares: signing keys, secrets, administration tokens, rate-limit counts.

extension PostgresStorage {
    /// Every stored key, newest first (by creation time, then by insertion).
    public func signingKeys() async throws -> [SigningKeyRecord] {
        try await autocommit { db in
            try await db.rows("SELECT * FROM signing_keys ORDER BY created_at DESC, seq DESC", logger: self.logger).map { try SigningKeyRecord(stored: $0) }
        }
    }

    /// Adds a key and retires every other unretired key, in one transaction under an
    /// advisory lock, so that exactly one key signs at any moment even when two instances
    /// rotate at once.
    public func addSigningKey(_ key: SigningKeyRecord, at time: Date) async throws {
        try StoredText.requireStorable(key.keyID, in: "addSigningKey")
        try await transaction { db in
            try await self.lockSigningKeys(db)
            _ = try await db.rows(
                """
                UPDATE signing_keys SET retired_at = \(time.seconds) WHERE retired_at IS NULL AND key_id <> \(key.keyID) AND algorithm = \(key.algorithm.rawValue)
                RETURNING 1
                """, logger: self.logger)
            try await self.insertSigningKey(key, db)
        }
    }

    /// Adds the key unless an unretired key exists, under the same advisory lock, so that
    /// instances starting together on an empty database create one key.
    public func addFirstSigningKey(_ key: SigningKeyRecord) async throws -> Bool {
        try StoredText.requireStorable(key.keyID, in: "addFirstSigningKey")
        return try await transaction { db in
            try await self.lockSigningKeys(db)
            guard try await db.row(
                "SELECT 1 FROM signing_keys WHERE retired_at IS NULL AND algorithm = \(key.algorithm.rawValue) LIMIT 1", logger: self.logger
            ) == nil else { return false }
            try await self.insertSigningKey(key.retired(at: nil), db)
            return true
        }
    }

    private func lockSigningKeys(_ db: PostgresConnection) async throws {
        _ = try await db.rows("SELECT pg_advisory_xact_lock(\(PostgresMigrations.advisoryLock + 1), hashtext(\(settings.schema ?? "public")))", logger: logger)
    }

    private func insertSigningKey(_ key: SigningKeyRecord, _ db: PostgresConnection) async throws {
        _ = try await db.rows(
            """
            INSERT INTO signing_keys (key_id, private_key, created_at, retired_at, algorithm)
            VALUES (\(key.keyID), \(key.privateKey.bytea), \(key.createdAt.seconds), \(key.retiredAt?.seconds), \(key.algorithm.rawValue))
            """, logger: logger)
    }

    /// Replaces a key's private key while it is still `current`.
    public func replaceSigningKeyMaterial(keyID: String, with privateKey: [UInt8], replacing current: [UInt8]) async throws -> Bool {
        guard !StoredText.containsNUL([keyID]) else { return false }
        return try await autocommit { db in
            try await !db.rows(
                "UPDATE signing_keys SET private_key = \(privateKey.bytea) WHERE key_id = \(keyID) AND private_key = \(current.bytea) RETURNING 1",
                logger: self.logger
            ).isEmpty
        }
    }

    /// Replaces a secret's value while it is still `current`.
    public func replaceSecret(named name: String, with value: [UInt8], replacing current: [UInt8]) async throws -> Bool {
        guard !StoredText.containsNUL([name]) else { return false }
        return try await autocommit { db in
            try await !db.rows(
                "UPDATE secrets SET value = \(value.bytea) WHERE name = \(name) AND value = \(current.bytea) RETURNING 1", logger: self.logger
            ).isEmpty
        }
    }

    /// The secret named `name`, storing `candidate` if there is none yet. The insert waits
    /// for a concurrent one of the same name to commit; the read after it sees the winner.
    public func secret(named name: String, orStore candidate: [UInt8]) async throws -> [UInt8] {
        try StoredText.requireStorable(name, in: "secret")
        return try await transaction { db in
            _ = try await db.rows("INSERT INTO secrets (name, value) VALUES (\(name), \(candidate.bytea)) ON CONFLICT (name) DO NOTHING", logger: self.logger)
            guard let row = try await db.row("SELECT value FROM secrets WHERE name = \(name)", logger: self.logger) else {
                throw PostgresStorageError(.unreadableRow, "secret \(name) vanished after it was stored")
            }
            return try row.bytes("value")
        }
    }

    /// Stores a newly issued administration token.
    public func saveAdminToken(_ token: AdminToken) async throws {
        try StoredText.requireStorable(token.applicationID, in: "saveAdminToken")
        try await autocommit { db in
            _ = try await db.rows(
                """
                INSERT INTO admin_tokens (token_hash, application_id, created_at, expires_at)
                VALUES (\(token.tokenHash.bytea), \(token.applicationID), \(token.createdAt.seconds), \(token.expiresAt.seconds))
                """, logger: self.logger)
        }
    }

    /// The token with this hash, if it has not expired at `time`.
    public func adminToken(hash: [UInt8], at time: Date) async throws -> AdminToken? {
        try await autocommit { db in
            try await db.row("SELECT * FROM admin_tokens WHERE token_hash = \(hash.bytea) AND expires_at > \(time.seconds)", logger: self.logger).map { row in
                AdminToken(
                    tokenHash: try row.bytes("token_hash"), applicationID: try row.text("application_id"),
                    createdAt: try row.date("created_at"), expiresAt: try row.date("expires_at")
                )
            }
        }
    }

    /// Deletes tokens that expired before `time`.
    public func purgeAdminTokens(expiredBefore time: Date) async throws -> Int {
        try await autocommit { db in
            try await db.rows("DELETE FROM admin_tokens WHERE expires_at < \(time.seconds) RETURNING 1", logger: self.logger).count
        }
    }

    /// Counts a request in the database, where every instance counts: one upsert of this
    /// window's row, reading the previous window's count in the same statement, combined
    /// into the sliding-window estimate the in-memory counters give. Adding nothing only
    /// reads: a check writes no row.
    public func countRequests(key: String, adding count: Int, window: TimeInterval, at time: Date) async throws -> Int {
        let sliding = SlidingWindow(window, at: time)
        let index = sliding.index
        let end = Double(index + 1) * window
        let key = StoredText.sanitized(key)
        let row = try await autocommit { db in
            if count > 0 {
                try await db.rows(RequestCountStatement(key: key, window: index, windowEnd: end, adding: Int64(count)), prepared: self.prepares, logger: self.logger).first
            } else {
                try await db.rows(RequestCountReadStatement(key: key, window: index), prepared: self.prepares, logger: self.logger).first
            }
        }
        guard let (current, previous) = row else { return count }
        return sliding.count(current: Int(current), previous: Int(previous))
    }

    /// The counters are shared by every instance: a request's failed-finish check is made in
    /// the statement of its ceremony completion (see ``completeCeremony(_:)``), not in a
    /// round trip of its own.
    public var foldsFailureChecks: Bool { true }

    /// Makes a request's failed-finish check with one read of its counters, when its
    /// completion goes statement by statement.
    func makeFailureCheck(_ check: FailureCheck) async throws {
        let statement = RequestCountReadStatement(key: StoredText.sanitized(check.key), window: check.window.index)
        let row = try await autocommit { db in try await db.rows(statement, prepared: self.prepares, logger: self.logger).first }
        if let (current, previous) = row, check.refuses(current: Int(current), previous: Int(previous)) { throw check.refuse() }
    }

    /// Deletes the counts of windows that ended before `time`.
    public func purgeRequestCounts(before time: Date) async throws -> Int {
        try await autocommit { db in
            try await db.rows("DELETE FROM request_counts WHERE window_end < \(time.seconds) RETURNING 1", logger: self.logger).count
        }
    }
}
