public import Foundation
public import IdentityCore
import PostgresNIO

extension PostgresStorage {
    /// The consent `userID` gave `clientID`, if any.
    public func consent(userID: UserID, clientID: String) async throws -> Consent? {
        guard !StoredText.containsNUL([userID.rawValue, clientID]) else { return nil }
        return try await autocommit { db in
            try await db.row(
                "SELECT * FROM consents WHERE user_id = \(userID.rawValue) AND client_id = \(clientID)", logger: self.logger
            ).map(Consent.init(stored:))
        }
    }

    /// Stores a consent in place of the earlier one.
    public func saveConsent(_ consent: Consent) async throws {
        try StoredText.requireStorable(consent.userID.rawValue, consent.clientID, in: "saveConsent")
        try await autocommit { db in
            _ = try await db.rows(
                """
                INSERT INTO consents (user_id, client_id, scopes, granted_at)
                VALUES (\(consent.userID.rawValue), \(consent.clientID), \(consent.scopes), \(consent.grantedAt.seconds))
                ON CONFLICT (user_id, client_id) DO UPDATE SET scopes = excluded.scopes, granted_at = excluded.granted_at
                """, logger: self.logger)
        }
    }

    /// The user's consents, by client ID.
    public func consents(userID: UserID) async throws -> [Consent] {
        guard !StoredText.containsNUL([userID.rawValue]) else { return [] }
        return try await autocommit { db in
            try await db.rows("SELECT * FROM consents WHERE user_id = \(userID.rawValue) ORDER BY client_id", logger: self.logger)
                .map(Consent.init(stored:))
        }
    }

    /// Withdraws a consent and revokes the user's families at that client.
    public func revokeConsent(userID: UserID, clientID: String, at time: Date) async throws -> Bool {
        guard !StoredText.containsNUL([userID.rawValue, clientID]) else { return false }
        return try await transaction { db in
            try await self.revokeSessions(.client(clientID, of: userID), at: time, db)
            return try await !db.rows(
                "DELETE FROM consents WHERE user_id = \(userID.rawValue) AND client_id = \(clientID) RETURNING 1", logger: self.logger
            ).isEmpty
        }
    }
}
