public import Foundation
public import IdentityCore
import PostgresNIO

extension PostgresStorage {
    /// Stores a newly issued token, starting its family if the family is new.
    public func saveRefreshToken(_ record: RefreshTokenRecord) async throws {
        try Self.requireStorable(record)
        try await transaction { db in
            try await self.insertFamilyIfNew(
                id: record.familyID, userID: record.userID, clientID: record.clientID, credentialID: nil, method: record.method, at: record.issuedAt, db
            )
            try await self.insertToken(record, db)
        }
    }

    /// The stored record of a token, whatever its state.
    public func refreshToken(hash: [UInt8]) async throws -> RefreshTokenRecord? {
        try await autocommit { db in
            try await db.row("SELECT * FROM refresh_tokens WHERE token_hash = \(hash.bytea)", logger: self.logger).map(RefreshTokenRecord.init(stored:))
        }
    }

    /// Presents a token. The token is consumed by one conditional `UPDATE … RETURNING`: of
    /// any number of concurrent presentations, on any instances, exactly one finds it
    /// unused and rotates it; the others wait for that row, then find it used, and revoke
    /// the family as a replay. When nothing was consumed, the token is classified as the
    /// SQLite backend does: used → family revoked, `.reused` (even after expiry); unknown,
    /// another client's, of a revoked family, or expired → `.invalid`.
    public func rotateRefreshToken(hash: [UInt8], clientID: String, newHash: [UInt8], newExpiresAt: Date, at time: Date) async throws -> RefreshOutcome {
        guard !StoredText.containsNUL([clientID]) else { return .invalid }
        return try await transaction { db in
            if let row = try await db.row(
                """
                UPDATE refresh_tokens t SET used_at = \(time.seconds)
                FROM refresh_token_families f
                WHERE t.token_hash = \(hash.bytea) AND f.id = t.family_id AND t.client_id = \(clientID)
                    AND t.used_at IS NULL AND f.revoked_at IS NULL AND t.expires_at > \(time.seconds)
                RETURNING t.*
                """, logger: self.logger)
            {
                let previous = try RefreshTokenRecord(stored: row)
                // A hash collision fails the insert and rolls the whole rotation back.
                try await self.insertToken(previous.replacement(hash: newHash, issuedAt: time, expiresAt: newExpiresAt), db)
                return .rotated(previous: previous)
            }
            guard
                let row = try await db.row(
                    """
                    SELECT t.family_id, t.user_id, t.client_id, t.used_at, f.revoked_at AS family_revoked_at
                    FROM refresh_tokens t JOIN refresh_token_families f ON f.id = t.family_id
                    WHERE t.token_hash = \(hash.bytea)
                    """, logger: self.logger),
                try row.text("client_id") == clientID, try row.optionalDate("family_revoked_at") == nil, try row.optionalDate("used_at") != nil
            else { return .invalid }
            let familyID = try row.text("family_id")
            try await self.revokeFamily(familyID, at: time, db)
            return .reused(familyID: familyID, userID: UserID(rawValue: try row.text("user_id")))
        }
    }

    /// Revokes the family of a token issued to `clientID` (logout).
    public func revokeRefreshTokenFamily(hash: [UInt8], clientID: String, at time: Date) async throws -> UserID? {
        guard !StoredText.containsNUL([clientID]) else { return nil }
        return try await transaction { db in
            guard
                let row = try await db.row(
                    "SELECT family_id, user_id FROM refresh_tokens WHERE token_hash = \(hash.bytea) AND client_id = \(clientID)", logger: self.logger)
            else { return nil }
            try await self.revokeFamily(try row.text("family_id"), at: time, db)
            return UserID(rawValue: try row.text("user_id"))
        }
    }

    /// Starts a family with no token yet; an existing family is left as it is.
    public func startSession(familyID: String, userID: UserID, clientID: String, at time: Date) async throws {
        try StoredText.requireStorable(familyID, userID.rawValue, clientID, in: "startSession")
        try await transaction { db in
            try await self.insertFamilyIfNew(id: familyID, userID: userID, clientID: clientID, credentialID: nil, method: .passkey, at: time, db)
        }
    }

    /// Starts a session (and stores its first refresh token) in one transaction.
    public func startSession(_ start: TokenSessionStart) async throws {
        try Self.requireStorable(start)
        try await transaction { db in try await self.startSession(start, db) }
    }

    /// Revokes every family and browser session of a user in one transaction.
    public func revokeAllSessions(userID: UserID, at time: Date) async throws -> Int {
        guard !StoredText.containsNUL([userID.rawValue]) else { return 0 }
        return try await transaction { db in
            let families = try await db.rows(
                "UPDATE refresh_token_families SET revoked_at = \(time.seconds) WHERE user_id = \(userID.rawValue) AND revoked_at IS NULL RETURNING 1",
                logger: self.logger)
            let browsers = try await db.rows(
                """
                UPDATE browser_sessions SET revoked_at = \(time.seconds)
                WHERE user_id = \(userID.rawValue) AND revoked_at IS NULL AND expires_at > \(time.seconds) RETURNING 1
                """, logger: self.logger)
            return families.count + browsers.count
        }
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
        try await insertFamilyIfNew(
            id: start.familyID, userID: start.userID, clientID: start.clientID, credentialID: start.credentialID, method: start.method, at: start.startedAt, db
        )
        if let record = start.refreshToken { try await insertToken(record, db) }
    }

    private func insertFamilyIfNew(
        id familyID: String, userID: UserID, clientID: String, credentialID: [UInt8]?, method: SignInMethod, at time: Date, _ db: PostgresConnection
    ) async throws {
        let inserted = try await db.rows(
            """
            INSERT INTO refresh_token_families (id, user_id, client_id, created_at, revoked_at, credential_id, method)
            VALUES (\(familyID), \(userID.rawValue), \(clientID), \(time.seconds), NULL, \(credentialID?.bytea), \(method.rawValue))
            ON CONFLICT (id) DO NOTHING RETURNING 1
            """, logger: logger)
        guard inserted.isEmpty else { return }
        // A family is one login of one user at one client. A token claiming otherwise is a bug
        // in the caller, and storing it would let rotation hand out tokens across accounts.
        let owner = try await db.row("SELECT user_id, client_id FROM refresh_token_families WHERE id = \(familyID)", logger: logger)
        guard let owner, try owner.text("user_id") == userID.rawValue, try owner.text("client_id") == clientID else {
            throw PostgresStorageError(.invalidArgument, "refresh token family \(familyID) belongs to another user or client")
        }
    }

    private func insertToken(_ record: RefreshTokenRecord, _ db: PostgresConnection) async throws {
        _ = try await db.rows(
            """
            INSERT INTO refresh_tokens (
                token_hash, family_id, user_id, client_id, scopes, audience, authenticated_at,
                user_verified, password_sign_in, issued_at, expires_at, used_at
            ) VALUES (
                \(record.tokenHash.bytea), \(record.familyID), \(record.userID.rawValue), \(record.clientID), \(record.scopes), \(record.audience),
                \(record.authenticatedAt.seconds), \(record.userVerified), \(record.isPasswordSignIn), \(record.issuedAt.seconds),
                \(record.expiresAt.seconds), NULL
            )
            """, logger: logger)
    }

    func revokeFamily(_ familyID: String, at time: Date, _ db: PostgresConnection) async throws {
        _ = try await db.rows(
            "UPDATE refresh_token_families SET revoked_at = \(time.seconds) WHERE id = \(familyID) AND revoked_at IS NULL RETURNING 1", logger: logger)
    }
}

