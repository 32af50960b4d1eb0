public import Foundation
public import IdentityCore
import PostgresNIO

extension PostgresStorage {
    /// Stores a new session.
    public func saveBrowserSession(_ session: BrowserSession) async throws {
        try await autocommit { db in try await self.insert(session, db) }
    }

    /// Stores a new session inside the caller's transaction.
    func insert(_ session: BrowserSession, _ db: PostgresConnection) async throws {
        try StoredText.requireStorable(session.userID.rawValue, in: "saveBrowserSession")
        _ = try await db.rows(
            """
            INSERT INTO browser_sessions (token_hash, user_id, authenticated_at, user_verified, expires_at, revoked_at, credential_id, method, recovery)
            VALUES (\(session.tokenHash.bytea), \(session.userID.rawValue), \(session.authenticatedAt.seconds), \(session.userVerified),
                \(session.expiresAt.seconds), NULL, \(session.credentialID?.bytea), \(session.method.rawValue), \(session.isRecovery))
            """, logger: logger)
    }

    /// The session with this token hash, if it is neither revoked nor expired at `time`.
    public func browserSession(hash: [UInt8], at time: Date) async throws -> BrowserSession? {
        try await autocommit { db in
            try await db.row(
                "SELECT * FROM browser_sessions WHERE token_hash = \(hash.bytea) AND revoked_at IS NULL AND expires_at > \(time.seconds)",
                logger: self.logger
            ).map(BrowserSession.init(stored:))
        }
    }

    /// Revokes a session, keeping its first revocation time, and the login sessions its
    /// codes started: one statement, so both or neither.
    public func revokeBrowserSession(hash: [UInt8], at time: Date) async throws {
        _ = try await autocommit { db in try await self.revokeSessions(.browserSession(hash: hash, of: nil), at: time, db) }
    }

    /// A user's live sessions, newest sign-in first.
    public func browserSessions(userID: UserID, at time: Date) async throws -> [BrowserSession] {
        guard StoredText.canMatch(userID.rawValue) else { return [] }
        return try await autocommit { db in
            try await db.rows(
                """
                SELECT * FROM browser_sessions WHERE user_id = \(userID.rawValue) AND revoked_at IS NULL AND expires_at > \(time.seconds)
                ORDER BY authenticated_at DESC, token_hash
                """, logger: self.logger
            ).map(BrowserSession.init(stored:))
        }
    }

    /// Deletes sessions that expired before `time`.
    public func purgeBrowserSessions(expiredBefore time: Date) async throws -> Int {
        try await autocommit { db in
            try await db.rows("DELETE FROM browser_sessions WHERE expires_at < \(time.seconds) RETURNING 1", logger: self.logger).count
        }
    }
}
