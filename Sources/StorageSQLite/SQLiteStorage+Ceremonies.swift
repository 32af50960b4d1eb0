public import Foundation
import GRDB
public import IdentityCore
import WebAuthn

extension SQLiteStorage {
    /// Stores a new ceremony.
    public func saveCeremony(_ ceremony: Ceremony) async throws {
        // The pending user and the credential IDs are stored as JSON, which escapes U+0000.
        try TextBinding.requireStorable(ceremony.id, ceremony.clientID, ceremony.userID?.rawValue, in: "saveCeremony")
        let pendingUser = try ceremony.pendingUser.map { String(decoding: try JSONEncoder.sortedKeys.encode($0), as: UTF8.self) }
        let allowed = try JSONColumn.encode(ceremony.allowedCredentialIDs.map { Base64URL.encode($0) })
        try await writer.write { db in
            try db.executeCached(
                sql: """
                    INSERT INTO ceremonies (
                        id, kind, client_id, challenge, user_verification, pending_user, user_id,
                        allowed_credential_ids, created_at, expires_at, consumed_at
                    ) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)
                    """,
                arguments: [
                    ceremony.id, ceremony.kind.rawValue, ceremony.clientID, ceremony.challenge.databaseBlob,
                    ceremony.userVerification.rawValue, pendingUser, ceremony.userID?.rawValue, allowed,
                    ceremony.createdAt.databaseSeconds, ceremony.expiresAt.databaseSeconds,
                ]
            )
        }
    }

    /// Consumes a ceremony in one statement: the row is marked used and returned only if it
    /// belongs to `clientID`, is unused and has not expired at `time` (a ceremony is expired
    /// from its `expiresAt` on). The check and the mark cannot be separated, so of any number
    /// of concurrent consumers, on any number of processes, exactly one gets it; a consumer
    /// with the wrong client leaves it untouched.
    public func consumeCeremony(id: String, clientID: String, at time: Date) async throws -> Ceremony? {
        guard TextBinding.canMatch(id, clientID) else { return nil }
        return try await writer.write { db in
            try Row.fetchOne(
                db,
                sql: """
                    UPDATE ceremonies SET consumed_at = ?
                    WHERE id = ? AND client_id = ? AND consumed_at IS NULL AND expires_at > ?
                    RETURNING *
                    """,
                arguments: [time.databaseSeconds, id, clientID, time.databaseSeconds]
            ).map(Ceremony.init(databaseRow:))
        }
    }

    /// Deletes ceremonies that expired before `time`, consumed or not.
    public func purgeCeremonies(expiredBefore time: Date) async throws {
        try await writer.write { db in
            try db.executeCached(sql: "DELETE FROM ceremonies WHERE expires_at < ?", arguments: [time.databaseSeconds])
        }
    }
}

extension JSONEncoder {
    /// An encoder with a stable output, so equal values store equal text.
    static var sortedKeys: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}

extension Ceremony {
    init(databaseRow row: Row) throws {
        let pendingUser: User?
        if let text = try row.optionalText("pending_user") {
            do {
                pendingUser = try JSONDecoder().decode(User.self, from: Data(text.utf8))
            } catch {
                throw SQLiteStorageError(.unreadableRow, "ceremonies.pending_user is not a user: \(error)")
            }
        } else {
            pendingUser = nil
        }
        let allowed = try row.stringList("allowed_credential_ids").map { text in
            guard let bytes = Base64URL.decode(text) else {
                throw SQLiteStorageError(.unreadableRow, "ceremonies.allowed_credential_ids holds non-base64url \"\(text)\"")
            }
            return bytes
        }
        self.init(
            id: try row.text("id"),
            kind: try row.enumeration(Ceremony.Kind.self, "kind"),
            clientID: try row.text("client_id"),
            challenge: try row.bytes("challenge"),
            userVerification: try row.enumeration(UserVerificationRequirement.self, "user_verification"),
            pendingUser: pendingUser,
            userID: try row.optionalText("user_id").map(UserID.init(rawValue:)),
            allowedCredentialIDs: allowed,
            createdAt: try row.date("created_at"),
            expiresAt: try row.date("expires_at")
        )
    }
}
