public import Foundation
public import IdentityCore

extension SQLiteStorage {
    /// Stores a new code.
    /// - Throws: a foreign key error when the user does not exist.
    public func saveAuthorizationCode(_ code: AuthorizationCode) async throws {
        try StoredText.requireStorable(
            code.clientID, code.userID.rawValue, code.redirectURI, code.codeChallenge, code.audience, code.nonce, code.sessionID, code.acr,
            in: "saveAuthorizationCode"
        )
        try database.write { db in
            try db.execute("""
                    INSERT INTO authorization_codes (
                        code_hash, client_id, user_id, redirect_uri, code_challenge, scopes, audience, nonce,
                        session_id, authenticated_at, user_verified, expires_at, used_at, credential_id, method, browser_session, acr
                    ) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?)
                    """, [
                    code.codeHash, code.clientID, code.userID.rawValue, code.redirectURI, code.codeChallenge,
                    try JSONColumn.encode(code.scopes), code.audience, code.nonce, code.sessionID,
                    code.authenticatedAt.databaseSeconds, code.userVerified, code.expiresAt.databaseSeconds, code.credentialID,
                    code.method.rawValue, code.browserSession, code.acr,
                ])
        }
    }

    /// Presents a code, in one transaction: used before → its session is revoked and the
    /// outcome is `.reused`, even after expiry, because a replayed code means it leaked;
    /// unknown or expired → `.invalid`; otherwise it is marked used and `.consumed`.
    public func authorizationCode(hash: [UInt8]) async throws -> AuthorizationCode? {
        try database.read { db in
            try db.row("SELECT * FROM authorization_codes WHERE code_hash = ?", [hash]).map(AuthorizationCode.init(stored:))
        }
    }

    public func consumeAuthorizationCode(hash: [UInt8], at time: Date, starting session: TokenSessionStart?) async throws -> AuthorizationCodeOutcome {
        try database.write { db in
            guard let row = try db.row("SELECT * FROM authorization_codes WHERE code_hash = ?", [hash]) else {
                return .invalid
            }
            let code = try AuthorizationCode(stored: row)
            if try row.optionalDate("used_at") != nil {
                try Self.revokeSessions(.family(code.sessionID, of: nil), at: time, db)
                return .reused(code)
            }
            guard time < code.expiresAt else { return .invalid }
            try db.execute("UPDATE authorization_codes SET used_at = ? WHERE code_hash = ?", [time.databaseSeconds, hash])
            if let session {
                try Self.startSession(session, db)
                if let browser = code.browserSession {
                    try db.execute("UPDATE refresh_token_families SET browser_session = ? WHERE id = ?", [browser, session.familyID])
                }
            }
            return .consumed(code)
        }
    }

    /// Deletes codes that expired before `time`.
    public func purgeAuthorizationCodes(expiredBefore time: Date) async throws -> Int {
        try database.write { db in
            try db.execute("DELETE FROM authorization_codes WHERE expires_at < ?", [time.databaseSeconds])
        }
    }
}

