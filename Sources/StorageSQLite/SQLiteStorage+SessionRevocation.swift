import Foundation
import IdentityCore

extension SQLiteStorage {
    /// Ends the sessions `selection` names, inside the caller's transaction; each keeps its
    /// first revocation time. The one place this backend revokes sessions.
    /// - Returns: How many sessions ended (for a browser session, 1 or 0).
    @discardableResult
    static func revokeSessions(_ selection: SessionSelection, at time: Date, _ db: SQLiteConnection) throws -> Int {
        let now = time.databaseSeconds
        @discardableResult func families(_ condition: String, _ values: [any SQLiteBindable]) throws -> Int {
            try db.execute("UPDATE refresh_token_families SET revoked_at = ? WHERE \(condition) AND revoked_at IS NULL", [now] + values)
        }
        @discardableResult func browsers(_ condition: String, _ values: [any SQLiteBindable]) throws -> Int {
            try db.execute("UPDATE browser_sessions SET revoked_at = ? WHERE \(condition) AND revoked_at IS NULL", [now] + values)
        }
        switch selection {
        case .family(let id, nil):
            return try families("id = ?", [id])
        case .family(let id, let userID?):
            return try families("id = ? AND user_id = ?", [id, userID.rawValue])
        case .user(let userID):
            return try families("user_id = ?", [userID.rawValue]) + browsers("user_id = ? AND expires_at > ?", [userID.rawValue, now])
        case .client(let clientID, let userID):
            return try families("user_id = ? AND client_id = ?", [userID.rawValue, clientID])
        // Found through their user's index: an index on the credential would cost every
        // sign-in one more page to write (migration v10).
        case .startedBy(let credentialID, let userID):
            let values: [any SQLiteBindable] = [userID.rawValue, credentialID]
            return try families("user_id = ? AND credential_id = ?", values) + browsers("user_id = ? AND credential_id = ?", values)
        case .signedInWith(let method, let userID):
            let values: [any SQLiteBindable] = [userID.rawValue, method.rawValue]
            return try families("user_id = ? AND method = ?", values) + browsers("user_id = ? AND method = ?", values)
        case .browserSession(let hash, nil):
            let ended = try browsers("token_hash = ?", [hash])
            try families("browser_session = ?", [hash])
            return ended
        case .browserSession(let hash, let userID?):
            let ended = try browsers("token_hash = ? AND user_id = ? AND expires_at > ?", [hash, userID.rawValue, now])
            if ended > 0 { try families("browser_session = ?", [hash]) }
            return ended
        }
    }
}
