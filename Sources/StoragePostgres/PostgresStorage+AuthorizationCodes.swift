public import Foundation
public import IdentityCore
import PostgresNIO

extension PostgresStorage {
    /// Stores a new code.
    public func saveAuthorizationCode(_ code: AuthorizationCode) async throws {
        try StoredText.requireStorable(
            code.clientID, code.userID.rawValue, code.redirectURI, code.codeChallenge, code.audience, code.nonce, code.sessionID, code.acr,
            in: "saveAuthorizationCode"
        )
        if StoredText.containsNUL(code.scopes) { throw PostgresStorageError(.invalidArgument, "saveAuthorizationCode: text containing U+0000 cannot be stored") }
        try await autocommit { db in
            _ = try await db.rows(
                """
                INSERT INTO authorization_codes (
                    code_hash, client_id, user_id, redirect_uri, code_challenge, scopes, audience, nonce,
                    session_id, authenticated_at, user_verified, expires_at, used_at, credential_id, method, browser_session, acr
                ) VALUES (
                    \(code.codeHash.bytea), \(code.clientID), \(code.userID.rawValue), \(code.redirectURI), \(code.codeChallenge), \(code.scopes),
                    \(code.audience), \(code.nonce), \(code.sessionID), \(code.authenticatedAt.seconds), \(code.userVerified),
                    \(code.expiresAt.seconds), NULL, \(code.credentialID?.bytea), \(code.method.rawValue), \(code.browserSession?.bytea), \(code.acr)
                )
                """, logger: self.logger)
        }
    }

    /// The stored code, whatever its state.
    public func authorizationCode(hash: [UInt8]) async throws -> AuthorizationCode? {
        try await autocommit { db in
            try await db.row("SELECT * FROM authorization_codes WHERE code_hash = \(hash.bytea)", logger: self.logger).map(AuthorizationCode.init(stored:))
        }
    }

    /// Presents a code: consumed by one conditional `UPDATE … RETURNING`, so exactly one of
    /// any number of concurrent exchanges wins, and its session starts in the same
    /// transaction. Otherwise a used code revokes its session (`.reused`, even after
    /// expiry) and anything else is `.invalid`.
    public func consumeAuthorizationCode(hash: [UInt8], at time: Date, starting session: TokenSessionStart?) async throws -> AuthorizationCodeOutcome {
        if let session { try Self.requireStorable(session) }
        return try await transaction { db in
            if let row = try await db.row(
                """
                UPDATE authorization_codes SET used_at = \(time.seconds)
                WHERE code_hash = \(hash.bytea) AND used_at IS NULL AND expires_at > \(time.seconds) RETURNING *
                """, logger: self.logger)
            {
                let code = try AuthorizationCode(stored: row)
                if let session {
                    try await self.startSession(session, db)
                    if let browser = code.browserSession {
                        _ = try await db.rows(
                            "UPDATE refresh_token_families SET browser_session = \(browser.bytea) WHERE id = \(session.familyID) RETURNING 1", logger: self.logger)
                    }
                }
                return .consumed(code)
            }
            guard let row = try await db.row("SELECT * FROM authorization_codes WHERE code_hash = \(hash.bytea)", logger: self.logger),
                try row.optionalDate("used_at") != nil
            else { return .invalid }
            let code = try AuthorizationCode(stored: row)
            try await self.revokeSessions(.family(code.sessionID, of: nil), at: time, db)
            return .reused(code)
        }
    }

    /// Deletes codes that expired before `time`.
    public func purgeAuthorizationCodes(expiredBefore time: Date) async throws -> Int {
        try await autocommit { db in
            try await db.rows("DELETE FROM authorization_codes WHERE expires_at < \(time.seconds) RETURNING 1", logger: self.logger).count
        }
    }
}

