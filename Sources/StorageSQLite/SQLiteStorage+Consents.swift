public import Foundation
public import IdentityCore

extension SQLiteStorage {
    /// The consent `userID` gave `clientID`, if any.
    public func consent(userID: UserID, clientID: String) async throws -> Consent? {
        guard StoredText.canMatch(userID.rawValue), StoredText.canMatch(clientID) else { return nil }
        return try database.read { db in
            try db.row("SELECT * FROM consents WHERE user_id = ? AND client_id = ?", [userID.rawValue, clientID]).map(Consent.init(stored:))
        }
    }

    /// Stores a consent in place of the earlier one.
    public func saveConsent(_ consent: Consent) async throws {
        try StoredText.requireStorable(consent.userID.rawValue, consent.clientID, in: "saveConsent")
        try database.write { db in
            try db.execute(
                """
                INSERT INTO consents (user_id, client_id, scopes, granted_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (user_id, client_id) DO UPDATE SET scopes = excluded.scopes, granted_at = excluded.granted_at
                """,
                [consent.userID.rawValue, consent.clientID, try JSONColumn.encode(consent.scopes), consent.grantedAt.databaseSeconds]
            )
        }
    }

    /// The user's consents, by client ID.
    public func consents(userID: UserID) async throws -> [Consent] {
        guard StoredText.canMatch(userID.rawValue) else { return [] }
        return try database.read { db in
            try db.rows("SELECT * FROM consents WHERE user_id = ? ORDER BY client_id", [userID.rawValue]).map(Consent.init(stored:))
        }
    }

    /// Withdraws a consent and revokes the user's families at that client.
    public func revokeConsent(userID: UserID, clientID: String, at time: Date) async throws -> Bool {
        guard StoredText.canMatch(userID.rawValue), StoredText.canMatch(clientID) else { return false }
        return try database.write { db in
            try Self.revokeSessions(.client(clientID, of: userID), at: time, db)
            return try db.execute("DELETE FROM consents WHERE user_id = ? AND client_id = ?", [userID.rawValue, clientID]) == 1
        }
    }
}
