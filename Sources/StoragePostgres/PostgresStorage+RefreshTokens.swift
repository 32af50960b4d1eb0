public import Foundation
public import IdentityCore
import PostgresNIO

extension PostgresStorage {
    // A family's first token is kept in the family's row, the tokens rotated from it in
    // `refresh_tokens` (migration v6): a login writes one row for its session, not two.
    // `refresh_token_records` reads both; a token is found by its hash in either.

    /// Stores a newly issued token, starting its family (with the token in it) if the family
    /// is new.
    public func saveRefreshToken(_ record: RefreshTokenRecord) async throws {
        try Self.requireStorable(record)
        _ = try await autocommit { db in try await db.rows(SessionStart(record, credentialID: nil), prepared: self.prepares, logger: self.logger) }
    }

    /// The stored record of a token, whatever its state.
    public func refreshToken(hash: [UInt8]) async throws -> RefreshTokenRecord? {
        try await autocommit { db in
            try await db.rows(RefreshTokenRecordStatement(hash: hash), prepared: self.prepares, logger: self.logger).first
                .map(RefreshTokenRecord.init(stored:))
        }
    }

    /// Presents a token. The token is consumed by one conditional `UPDATE … RETURNING`: of
    /// any number of concurrent presentations, on any instances, exactly one finds it
    /// unused and rotates it; the others wait for that row, then find it used, and revoke
    /// the family as a replay. When nothing was consumed, the token is classified as the
    /// SQLite backend does: used → family revoked, `.reused` (even after expiry); unknown,
    /// another client's, of a revoked family, or expired → `.invalid`.
    ///
    /// A current token is rotated in a batch with the rotations beside it
    /// (``RefreshRotationBatch``); one that is not is classified on its own.
    public func rotateRefreshToken(hash: [UInt8], clientID: String, newHash: [UInt8], newExpiresAt: Date, at time: Date) async throws -> RefreshOutcome {
        guard !StoredText.containsNUL([clientID]) else { return .invalid }
        let rotation = RefreshRotation(hash: hash, clientID: clientID, newHash: newHash, newExpiresAt: newExpiresAt.seconds, at: time.seconds)
        do {
            if let previous = try await refreshRotations.write(rotation, with: writeRotations) { return .rotated(previous: previous) }
        } catch let failed as RefreshRotations.BatchFailed {
            // Nothing was written for it. Alone, the error is its own; in a batch, the
            // statements below try it alone.
            if failed.size == 1 { throw failed.underlying }
        }
        return try await transaction { db in
            // The token is in one of the two places; both updates run, at most one matches.
            if let row = try await db.row(
                """
                WITH rotated AS (
                    UPDATE refresh_tokens t SET used_at = \(time.seconds)
                    FROM refresh_token_families f
                    WHERE t.token_hash = \(hash.bytea) AND f.id = t.family_id AND t.client_id = \(clientID)
                        AND t.used_at IS NULL AND f.revoked_at IS NULL AND t.expires_at > \(time.seconds)
                    RETURNING t.token_hash, t.family_id, t.user_id, t.client_id, t.scopes, t.audience, t.authenticated_at, t.user_verified,
                        t.password_sign_in, t.issued_at, t.expires_at, t.used_at
                ), rotated_first AS (
                    UPDATE refresh_token_families f SET used_at = \(time.seconds)
                    WHERE f.token_hash = \(hash.bytea) AND f.client_id = \(clientID)
                        AND f.used_at IS NULL AND f.revoked_at IS NULL AND f.expires_at > \(time.seconds)
                    RETURNING f.token_hash, f.id AS family_id, f.user_id, f.client_id, f.scopes, f.audience, f.authenticated_at, f.user_verified,
                        f.password_sign_in, f.issued_at, f.expires_at, f.used_at
                )
                SELECT * FROM rotated UNION ALL SELECT * FROM rotated_first
                """, logger: self.logger)
            {
                let previous = try RefreshTokenRecord(stored: row)
                // The family exists and is this user's: the function adds the token beside it.
                // (Hashes are SHA-256 of 32 random bytes: they do not collide.)
                let replacement = previous.replacement(hash: newHash, issuedAt: time, expiresAt: newExpiresAt)
                _ = try await db.rows(SessionStart(replacement, credentialID: nil), prepared: self.prepares, logger: self.logger)
                return .rotated(previous: previous)
            }
            guard
                let row = try await db.row(
                    """
                    SELECT t.family_id, t.user_id, t.client_id, t.used_at, f.revoked_at AS family_revoked_at
                    FROM refresh_token_records t JOIN refresh_token_families f ON f.id = t.family_id
                    WHERE t.token_hash = \(hash.bytea)
                    """, logger: self.logger),
                try row.text("client_id") == clientID, try row.optionalDate("family_revoked_at") == nil, try row.optionalDate("used_at") != nil
            else { return .invalid }
            let familyID = try row.text("family_id")
            try await self.revokeSessions(.family(familyID, of: nil), at: time, db)
            return .reused(familyID: familyID, userID: UserID(rawValue: try row.text("user_id")))
        }
    }

    /// Writes a batch of rotations in one statement.
    @Sendable private func writeRotations(_ rotations: [RefreshRotation]) async throws -> [RefreshTokenRecord?] {
        try await autocommit(operation: "rotateRefreshToken") { db in
            let answers = try await db.rows(RefreshRotationBatch(rows: rotations), prepared: self.prepares, logger: self.logger)
            return try RefreshRotationBatch.outcomes(answers, count: rotations.count)
        }
    }

    /// Revokes the family of a token issued to `clientID` (logout).
    public func revokeRefreshTokenFamily(hash: [UInt8], clientID: String, at time: Date) async throws -> UserID? {
        guard !StoredText.containsNUL([clientID]) else { return nil }
        return try await transaction { db in
            guard
                let row = try await db.row(
                    "SELECT family_id, user_id FROM refresh_token_records WHERE token_hash = \(hash.bytea) AND client_id = \(clientID)", logger: self.logger)
            else { return nil }
            try await self.revokeSessions(.family(try row.text("family_id"), of: nil), at: time, db)
            return UserID(rawValue: try row.text("user_id"))
        }
    }

    /// Starts a family with no token yet; an existing family is left as it is.
    public func startSession(familyID: String, userID: UserID, clientID: String, at time: Date) async throws {
        try StoredText.requireStorable(familyID, userID.rawValue, clientID, in: "startSession")
        let start = TokenSessionStart(familyID: familyID, userID: userID, clientID: clientID, startedAt: time, refreshToken: nil)
        _ = try await autocommit { db in try await db.rows(SessionStart(start), prepared: self.prepares, logger: self.logger) }
    }

    /// Starts a session (and stores its first refresh token) in one statement.
    public func startSession(_ start: TokenSessionStart) async throws {
        try Self.requireStorable(start)
        _ = try await autocommit { db in try await db.rows(SessionStart(start), prepared: self.prepares, logger: self.logger) }
    }

    /// Revokes every family and live browser session of a user in one statement.
    public func revokeAllSessions(userID: UserID, at time: Date) async throws -> Int {
        guard !StoredText.containsNUL([userID.rawValue]) else { return 0 }
        return try await autocommit { db in try await self.revokeSessions(.user(userID), at: time, db) }
    }

    /// Whether a family of `userID` exists and has not been revoked.
    public func isSessionActive(familyID: String, userID: UserID) async throws -> Bool {
        guard !StoredText.containsNUL([familyID, userID.rawValue]) else { return false }
        return try await autocommit { db in
            try await db.row(
                "SELECT 1 FROM refresh_token_families WHERE id = \(familyID) AND user_id = \(userID.rawValue) AND revoked_at IS NULL", logger: self.logger
            ) != nil
        }
    }

    /// Deletes up to `limit` families started before `time`; their tokens go with them
    /// (`ON DELETE CASCADE`).
    public func purgeRefreshTokenFamilies(startedBefore time: Date, limit: Int) async throws -> Int {
        try await autocommit { db in
            try await db.rows(
                """
                DELETE FROM refresh_token_families WHERE id IN (
                    SELECT id FROM refresh_token_families WHERE created_at < \(time.seconds) LIMIT \(Int64(max(0, limit)))
                ) RETURNING 1
                """, logger: self.logger
            ).count
        }
    }

    static func requireStorable(_ record: RefreshTokenRecord) throws {
        try StoredText.requireStorable(record.familyID, record.userID.rawValue, record.clientID, record.audience, in: "saveRefreshToken")
        if StoredText.containsNUL(record.scopes) {
            throw PostgresStorageError(.invalidArgument, "saveRefreshToken: text containing U+0000 cannot be stored")
        }
    }

    static func requireStorable(_ start: TokenSessionStart) throws {
        try StoredText.requireStorable(start.familyID, start.userID.rawValue, start.clientID, in: "startSession")
        if let record = start.refreshToken { try requireStorable(record) }
    }

    /// Starts a session, with its first refresh token when it has one, inside the caller's
    /// transaction.
    func startSession(_ start: TokenSessionStart, _ db: PostgresConnection) async throws {
        _ = try await db.rows(SessionStart(start), prepared: prepares, logger: logger)
    }
}

