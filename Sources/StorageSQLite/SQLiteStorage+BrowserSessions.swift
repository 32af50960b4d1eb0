public import Foundation
public import IdentityCore

extension SQLiteStorage {
    /// Stores a new session.
    /// - Throws: a foreign key error when the user does not exist.
    public func saveBrowserSession(_ session: BrowserSession) async throws {
        try database.write { db in try Self.insert(session, db) }
    }

    /// Stores a new session inside the caller's transaction.
    static func insert(_ session: BrowserSession, _ db: SQLiteConnection) throws {
        try StoredText.requireStorable(session.userID.rawValue, in: "saveBrowserSession")
        try db.execute(
            """
            INSERT INTO browser_sessions (token_hash, user_id, authenticated_at, user_verified, expires_at, revoked_at, credential_id, method, recovery)
            VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?)
            """,
            [
                session.tokenHash, session.userID.rawValue, session.authenticatedAt.databaseSeconds, session.userVerified, session.expiresAt.databaseSeconds,
                session.credentialID, session.method.rawValue, session.isRecovery,
            ]
        )
    }

    /// The session with this token hash, if it is neither revoked nor expired at `time`.
    public func browserSession(hash: [UInt8], at time: Date) async throws -> BrowserSession? {
        try database.read { db in
            try db.row("SELECT * FROM browser_sessions WHERE token_hash = ? AND revoked_at IS NULL AND expires_at > ?", [hash, time.databaseSeconds])
                .map(BrowserSession.init(stored:))
        }
    }

    /// Revokes a session, keeping its first revocation time, and the login sessions its
    /// codes started.
    public func revokeBrowserSession(hash: [UInt8], at time: Date) async throws {
        try database.write { db in try Self.revokeSessions(.browserSession(hash: hash, of: nil), at: time, db) }
    }

    /// A user's live sessions, newest sign-in first.
    public func browserSessions(userID: UserID, at time: Date) async throws -> [BrowserSession] {
        guard StoredText.canMatch(userID.rawValue) else { return [] }
        return try database.read { db in
            try db.rows(
                """
                SELECT * FROM browser_sessions WHERE user_id = ? AND revoked_at IS NULL AND expires_at > ?
                ORDER BY authenticated_at DESC, token_hash
                """,
                [userID.rawValue, time.databaseSeconds]
            ).map(BrowserSession.init(stored:))
        }
    }

    /// Deletes sessions that expired before `time`.
    public func purgeBrowserSessions(expiredBefore time: Date) async throws -> Int {
        try database.write { db in
            try db.execute("DELETE FROM browser_sessions WHERE expires_at < ?", [time.databaseSeconds])
        }
    }
}
