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
            query = """
                WITH families AS (
                    UPDATE refresh_token_families SET revoked_at = \(now)
                    WHERE user_id = \(userID.rawValue) AND credential_id = \(credentialID.bytea) AND revoked_at IS NULL RETURNING 1
                ), browsers AS (
                    UPDATE browser_sessions SET revoked_at = \(now)
                    WHERE user_id = \(userID.rawValue) AND credential_id = \(credentialID.bytea) AND revoked_at IS NULL RETURNING 1
                )
                SELECT 1 FROM families UNION ALL SELECT 1 FROM browsers
                """
        case .signedInWith(let method, let userID):
            query = """
                WITH families AS (
                    UPDATE refresh_token_families SET revoked_at = \(now)
                    WHERE user_id = \(userID.rawValue) AND method = \(method.rawValue) AND revoked_at IS NULL RETURNING 1
                ), browsers AS (
                    UPDATE browser_sessions SET revoked_at = \(now)
                    WHERE user_id = \(userID.rawValue) AND method = \(method.rawValue) AND revoked_at IS NULL RETURNING 1
                )
                SELECT 1 FROM families UNION ALL SELECT 1 FROM browsers
                """
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
}
