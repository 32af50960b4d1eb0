import Foundation
import IdentityCore
import PostgresNIO

extension PostgresStorage {
    /// Ends the sessions `selection` names, in one statement (so all or none, even outside a
    /// transaction); each keeps its first revocation time. The one place this backend
    /// revokes sessions.
    /// - Returns: How many sessions ended (for a browser session, 1 or 0).
    @discardableResult
    func revokeSessions(_ selection: SessionSelection, at time: Date, _ db: PostgresConnection) async throws -> Int {
        let now = time.seconds
        let query: PostgresQuery
        switch selection {
        case .family(let id, nil):
            query = "UPDATE refresh_token_families SET revoked_at = \(now) WHERE id = \(id) AND revoked_at IS NULL RETURNING 1"
        case .family(let id, let userID?):
            query = """
                UPDATE refresh_token_families SET revoked_at = \(now)
                WHERE id = \(id) AND user_id = \(userID.rawValue) AND revoked_at IS NULL RETURNING 1
                """
        case .client(let clientID, let userID):
            query = """
                UPDATE refresh_token_families SET revoked_at = \(now)
                WHERE user_id = \(userID.rawValue) AND client_id = \(clientID) AND revoked_at IS NULL RETURNING 1
                """
        case .user(let userID):
            query = """
                WITH families AS (
                    UPDATE refresh_token_families SET revoked_at = \(now) WHERE user_id = \(userID.rawValue) AND revoked_at IS NULL RETURNING 1
                ), browsers AS (
                    UPDATE browser_sessions SET revoked_at = \(now)
                    WHERE user_id = \(userID.rawValue) AND revoked_at IS NULL AND expires_at > \(now) RETURNING 1
                )
                SELECT 1 FROM families UNION ALL SELECT 1 FROM browsers
                """
        // Found through their user (migration v9 dropped the index by credential, one index
        // entry fewer per login; a user has few sessions).
        case .startedBy(let credentialID, let userID):
            query = Self.userSessions(userID, where: "credential_id", is: credentialID.bytea, at: now)
        case .signedInWith(let method, let userID):
            query = Self.userSessions(userID, where: "method", is: method.rawValue, at: now)
        case .browserSession(let hash, nil):
            query = """
                WITH ended AS (
                    UPDATE browser_sessions SET revoked_at = \(now) WHERE token_hash = \(hash.bytea) AND revoked_at IS NULL RETURNING 1
                ), logins AS (
                    UPDATE refresh_token_families SET revoked_at = \(now) WHERE browser_session = \(hash.bytea) AND revoked_at IS NULL RETURNING 1
                )
                SELECT 1 FROM ended
                """
        case .browserSession(let hash, let userID?):
            query = """
                WITH ended AS (
                    UPDATE browser_sessions SET revoked_at = \(now)
                    WHERE token_hash = \(hash.bytea) AND user_id = \(userID.rawValue) AND revoked_at IS NULL AND expires_at > \(now)
                    RETURNING token_hash
                ), logins AS (
                    UPDATE refresh_token_families SET revoked_at = \(now)
                    WHERE browser_session IN (SELECT token_hash FROM ended) AND revoked_at IS NULL RETURNING 1
                )
                SELECT 1 FROM ended
                """
        }
        return try await db.rows(query, logger: logger).count
    }

    /// The login and browser sessions of `userID` whose `column` (a column both tables have)
    /// is `value`, ended in one statement.
    private static func userSessions(_ userID: UserID, where column: String, is value: some PostgresNonThrowingEncodable & Sendable, at now: Double) -> PostgresQuery {
        """
        WITH families AS (
            UPDATE refresh_token_families SET revoked_at = \(now)
            WHERE user_id = \(userID.rawValue) AND \(unescaped: column) = \(value) AND revoked_at IS NULL RETURNING 1
        ), browsers AS (
            UPDATE browser_sessions SET revoked_at = \(now)
            WHERE user_id = \(userID.rawValue) AND \(unescaped: column) = \(value) AND revoked_at IS NULL RETURNING 1
        )
        SELECT 1 FROM families UNION ALL SELECT 1 FROM browsers
        """
    }
}
