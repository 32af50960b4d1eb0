public import Foundation
public import IdentityCore

extension SQLiteStorage {
    /// Stores a newly issued token, starting its family if the family is new.
    /// - Throws: ``SQLiteStorageError`` `.invalidArgument` when the family exists for another
    ///   user or client; a foreign key error when the user does not exist.
    public func saveRefreshToken(_ record: RefreshTokenRecord) async throws {
        // Scopes are stored as JSON, which escapes U+0000.
        try StoredText.requireStorable(record.familyID, record.userID.rawValue, record.clientID, record.audience, in: "saveRefreshToken")
        try database.write { db in
            try Self.insertFamilyIfNew(
                id: record.familyID, userID: record.userID, clientID: record.clientID, credentialID: nil, method: record.method, at: record.issuedAt, db
            )
            try Self.insertToken(record, db)
        }
    }

    /// The stored record of a token, whatever its state.
    public func refreshToken(hash: [UInt8]) async throws -> RefreshTokenRecord? {
        try database.read { db in
            try db.row("SELECT * FROM refresh_tokens WHERE token_hash = ?", [hash])
                .map(RefreshTokenRecord.init(stored:))
        }
    }

    /// Presents a token, in one transaction:
    ///
    /// - unknown, issued to another client, or of a revoked family: `.invalid`, nothing changes;
    /// - already rotated: the family is revoked and the outcome is `.reused`, even when the
    ///   token has expired since: a replayed old token means it leaked, and the newer tokens
    ///   of its family may be in the wrong hands;
    /// - expired at `time` (from its `expiresAt` on): `.invalid`;
    /// - otherwise it is marked used, its replacement (a copy with `newHash`, issued at `time`,
    ///   expiring at `newExpiresAt`) is stored in the same family, and the outcome is
    ///   `.rotated(previous:)`.
    public func rotateRefreshToken(hash: [UInt8], clientID: String, newHash: [UInt8], newExpiresAt: Date, at time: Date) async throws -> RefreshOutcome {
        guard StoredText.canMatch(clientID) else { return .invalid }
        return try database.write { db in
            guard
                let row = try db.row("""
                        SELECT t.*, f.revoked_at AS family_revoked_at
                        FROM refresh_tokens t JOIN refresh_token_families f ON f.id = t.family_id
                        WHERE t.token_hash = ?
                        """, [hash])
            else { return .invalid }
            let previous = try RefreshTokenRecord(stored: row)
            // Another client presenting the token learns nothing and changes nothing.
            guard previous.clientID == clientID else { return .invalid }
            guard try row.optionalDate("family_revoked_at") == nil else { return .invalid }
            if try row.optionalDate("used_at") != nil {
                try Self.revokeSessions(.family(previous.familyID, of: nil), at: time, db)
                return .reused(familyID: previous.familyID, userID: previous.userID)
            }
            guard time < previous.expiresAt else { return .invalid }

            try db.execute("UPDATE refresh_tokens SET used_at = ? WHERE token_hash = ?", [time.databaseSeconds, hash])
            // A hash collision fails the insert and rolls the whole rotation back.
            try Self.insertToken(previous.replacement(hash: newHash, issuedAt: time, expiresAt: newExpiresAt), db)
            return .rotated(previous: previous)
        }
    }

    /// Revokes the family of a token issued to `clientID` (logout). Revoking a revoked family
    /// keeps its first revocation time.
    /// - Returns: The family's user, or `nil` when `clientID` has no token with this hash.
    public func revokeRefreshTokenFamily(hash: [UInt8], clientID: String, at time: Date) async throws -> UserID? {
        guard StoredText.canMatch(clientID) else { return nil }
        return try database.write { db in
            guard
                let row = try db.row("SELECT family_id, user_id FROM refresh_tokens WHERE token_hash = ? AND client_id = ?", [hash, clientID])
            else { return nil }
            try Self.revokeSessions(.family(try row.text("family_id"), of: nil), at: time, db)
            return UserID(rawValue: try row.text("user_id"))
        }
    }

    /// Starts a family with no token yet; an existing family is left as it is.
    /// - Throws: ``SQLiteStorageError`` `.invalidArgument` when the family exists for another
    ///   user or client; a foreign key error when the user does not exist.
    public func startSession(familyID: String, userID: UserID, clientID: String, at time: Date) async throws {
        try StoredText.requireStorable(familyID, userID.rawValue, clientID, in: "startSession")
        try database.write { db in
            try Self.insertFamilyIfNew(id: familyID, userID: userID, clientID: clientID, credentialID: nil, method: .passkey, at: time, db)
        }
    }

    /// Starts a session (and stores its first refresh token) in one transaction.
    public func startSession(_ start: TokenSessionStart) async throws {
        try database.write { db in try Self.startSession(start, db) }
    }

    /// Revokes every family and browser session of a user in one transaction.
    public func revokeAllSessions(userID: UserID, at time: Date) async throws -> Int {
        guard StoredText.canMatch(userID.rawValue) else { return 0 }
        return try database.write { db in try Self.revokeSessions(.user(userID), at: time, db) }
    }

    /// Deletes up to `limit` families started before `time`; their tokens go with them.
    public func purgeRefreshTokenFamilies(startedBefore time: Date, limit: Int) async throws -> Int {
        try database.write { db in
            let families = try db.rows(
                "SELECT id FROM refresh_token_families WHERE created_at < ? LIMIT ?", [time.databaseSeconds, Int64(max(0, limit))]
            ).map { try $0.text("id") }
            for family in families {
                try db.execute("DELETE FROM refresh_tokens WHERE family_id = ?", [family])
                try db.execute("DELETE FROM refresh_token_families WHERE id = ?", [family])
            }
            return families.count
        }
    }

    /// Whether a family of `userID` exists and has not been revoked.
    public func isSessionActive(familyID: String, userID: UserID) async throws -> Bool {
        guard StoredText.canMatch(familyID), StoredText.canMatch(userID.rawValue) else { return false }
        return try database.read { db in
            try db.row("SELECT 1 FROM refresh_token_families WHERE id = ? AND user_id = ? AND revoked_at IS NULL", [familyID, userID.rawValue]) != nil
        }
    }

    /// Starts a session, with its first refresh token when it has one, inside the caller's
    /// transaction.
    static func startSession(_ start: TokenSessionStart, _ db: SQLiteConnection) throws {
        try StoredText.requireStorable(start.familyID, start.userID.rawValue, start.clientID, in: "startSession")
        try insertFamilyIfNew(
            id: start.familyID, userID: start.userID, clientID: start.clientID, credentialID: start.credentialID, method: start.method, at: start.startedAt, db
        )
        if let record = start.refreshToken {
            try StoredText.requireStorable(record.familyID, record.userID.rawValue, record.clientID, record.audience, in: "saveRefreshToken")
            try insertToken(record, db)
        }
    }

    private static func insertFamilyIfNew(
        id familyID: String, userID: UserID, clientID: String, credentialID: [UInt8]?, method: SignInMethod, at time: Date, _ db: SQLiteConnection
    ) throws {
        let inserted = try db.execute(
            """
            INSERT INTO refresh_token_families (id, user_id, client_id, created_at, revoked_at, credential_id, method)
            VALUES (?, ?, ?, ?, NULL, ?, ?)
            ON CONFLICT (id) DO NOTHING
            """,
            [familyID, userID.rawValue, clientID, time.databaseSeconds, credentialID, method.rawValue]
        )
        guard inserted == 0 else { return }
        // A family is one login of one user at one client. A token claiming otherwise is a bug
        // in the caller, and storing it would let rotation hand out tokens across accounts.
        let owner = try db.row("SELECT user_id, client_id FROM refresh_token_families WHERE id = ?", [familyID])
        guard let owner, try owner.text("user_id") == userID.rawValue, try owner.text("client_id") == clientID else {
            throw SQLiteStorageError(.invalidArgument, "refresh token family \(familyID) belongs to another user or client")
        }
    }

    private static func insertToken(_ record: RefreshTokenRecord, _ db: SQLiteConnection) throws {
        try db.execute(
            """
            INSERT INTO refresh_tokens (
                token_hash, family_id, user_id, client_id, scopes, audience, authenticated_at,
                user_verified, password_sign_in, issued_at, expires_at, used_at
            ) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)
            """,
            [
                record.tokenHash, record.familyID, record.userID.rawValue, record.clientID,
                try JSONColumn.encode(record.scopes), record.audience, record.authenticatedAt.databaseSeconds,
                record.userVerified, record.isPasswordSignIn, record.issuedAt.databaseSeconds, record.expiresAt.databaseSeconds,
            ])
    }
}

