public import Foundation
public import IdentityCore
import WebAuthn

extension SQLiteStorage {
    /// The credential with this ID.
    public func credential(id: [UInt8]) async throws -> PasskeyCredential? {
        try database.read { db in
            try db.row("SELECT * FROM credentials WHERE id = ?", [id]).map(PasskeyCredential.init(stored:))
        }
    }

    /// The credential with this ID and its owner, in one statement.
    public func credentialWithOwner(id: [UInt8]) async throws -> (credential: PasskeyCredential, owner: User)? {
        try database.read { db in
            guard let row = try db.row("SELECT c.*, \(User.prefixedColumns) FROM credentials c JOIN users u ON u.id = c.user_id WHERE c.id = ?", [id]) else {
                return nil
            }
            return (try PasskeyCredential(stored: row), try User(stored: row, prefix: "u_"))
        }
    }

    /// A user's credentials, oldest first (registration order among equal times).
    public func credentials(userID: UserID) async throws -> [PasskeyCredential] {
        guard StoredText.canMatch(userID.rawValue) else { return [] }
        return try database.read { db in
            try db.rows("SELECT * FROM credentials WHERE user_id = ? ORDER BY created_at, rowid", [userID.rawValue]).map(PasskeyCredential.init(stored:))
        }
    }

    /// The credential with this record ID.
    public func credential(recordID: String) async throws -> PasskeyCredential? {
        guard StoredText.canMatch(recordID) else { return nil }
        return try database.read { db in
            try db.row("SELECT * FROM credentials WHERE record_id = ?", [recordID]).map(PasskeyCredential.init(stored:))
        }
    }

    /// The shapes of the usable passkeys of the oldest `limit` accounts that have one.
    public func allowListShapes(limit: Int) async throws -> [[CredentialShape]] {
        try database.read { db in
            let rows = try db.rows(
                """
                SELECT c.user_id, length(c.id) AS id_length, c.transports FROM credentials c
                JOIN (SELECT user_id, min(rowid) AS first FROM credentials WHERE disabled = 0 GROUP BY user_id ORDER BY first LIMIT ?) o
                    ON o.user_id = c.user_id
                WHERE c.disabled = 0 ORDER BY o.first, c.created_at, c.rowid
                """, [Int64(max(0, limit))]
            )
            return try CredentialShape.grouped(rows)
        }
    }

    /// Turns a user's credential off or on again; an administrator's turning it off holds
    /// until an administrator turns it on.
    public func setCredentialDisabled(id: [UInt8], userID: UserID, disabled: Bool, byAdministrator: Bool, at time: Date) async throws -> CredentialStateChange {
        guard StoredText.canMatch(userID.rawValue) else { return .notFound }
        return try database.write { db in
            let changed = try db.execute(
                """
                UPDATE credentials SET disabled = ?1, disabled_by_admin = CASE WHEN ?1 THEN (disabled_by_admin OR ?2) ELSE 0 END
                WHERE id = ?3 AND user_id = ?4 AND (?1 OR ?2 OR disabled_by_admin = 0)
                """,
                [disabled, byAdministrator, id, userID.rawValue]
            )
            guard changed > 0 else {
                let exists = try db.row("SELECT 1 FROM credentials WHERE id = ? AND user_id = ?", [id, userID.rawValue]) != nil
                return exists ? .heldByAdministrator : .notFound
            }
            if disabled { try Self.revokeSessions(.startedBy(credentialID: id, of: userID), at: time, db) }
            return .changed
        }
    }

    /// Adds a credential to an existing user.
    /// - Throws: `StoreConflict(.credentialID)` when the ID is registered,
    ///   `StoreConflict(.credentialName)` when the user has a credential with its name; a
    ///   foreign key error when the user does not exist.
    public func addCredential(_ credential: PasskeyCredential) async throws {
        try credential.requireStorable()
        try database.write { db in
            try Self.insertCredential(credential, db)
        }
    }

    /// Renames a user's credential; `nil` clears the name.
    /// - Returns: `false` when the user has no such credential.
    /// - Throws: `StoreConflict(.credentialName)` when another of the user's credentials has
    ///   that name.
    public func renameCredential(id: [UInt8], userID: UserID, name: String?) async throws -> Bool {
        guard StoredText.canMatch(userID.rawValue) else { return false }
        try StoredText.requireStorable(name, in: "renameCredential")
        return try database.write { db in
            try reportingConflicts({ $0.involves("credentials.name") ? .credentialName : nil }) {
                try db.execute("UPDATE credentials SET name = ? WHERE id = ? AND user_id = ?", [name, id, userID.rawValue]) > 0
            }
        }
    }

    /// Deletes a user's credential unless it is their only one, deciding and deleting in one
    /// transaction so that two concurrent deletions cannot remove both of the last two.
    public func deleteCredential(id: [UInt8], userID: UserID, at time: Date) async throws -> CredentialDeletion {
        guard StoredText.canMatch(userID.rawValue) else { return .notFound }
        return try database.write { db in
            guard try db.row("SELECT 1 FROM credentials WHERE id = ? AND user_id = ?", [id, userID.rawValue]) != nil else { return .notFound }
            let count = try db.row("SELECT COUNT(*) AS count FROM credentials WHERE user_id = ?", [userID.rawValue])?.integer("count") ?? 0
            let hasPassword = try Self.hasPassword(userID, db)
            guard count > 1 || hasPassword else { return .lastCredential }
            try db.execute("DELETE FROM credentials WHERE id = ? AND user_id = ?", [id, userID.rawValue])
            try Self.revokeSessions(.startedBy(credentialID: id, of: userID), at: time, db)
            return .deleted
        }
    }

    /// Stores what a login changed, in one statement, inside the caller's transaction. UV
    /// and the regression flag only ever go from false to true: a later ceremony without UV
    /// does not erase that UV was seen, and a possible clone stays flagged. A refused login
    /// (`usedAt == nil`) only sets the regression flag; the counter, backup state and last
    /// use stay as they were.
    static func recordUse(_ update: CeremonyCompletion.CredentialUseUpdate, _ db: SQLiteConnection) throws {
        let use = update.use
        guard let usedAt = use.usedAt else {
            try db.execute(
                "UPDATE credentials SET sign_count_regressed = (sign_count_regressed OR ?) WHERE id = ?",
                [use.signCountRegressed, update.credentialID])
            return
        }
        let changes = try db.execute(
            """
            UPDATE credentials SET
                sign_count = ?,
                backed_up = ?,
                user_verified = (user_verified OR ?),
                last_used_at = ?,
                sign_count_regressed = (sign_count_regressed OR ?)
            WHERE id = ? AND (? IS NULL OR (
                sign_count = ? AND disabled = 0 AND (SELECT updated_at FROM users WHERE users.id = credentials.user_id) = ?
            ))
            """,
            [
                Int64(use.signCount), use.isBackedUp, use.isUserVerified, usedAt.databaseSeconds, use.signCountRegressed, update.credentialID,
                update.verifiedAgainst.map { _ in 1 } as Int?, update.verifiedAgainst.map { Int64($0.signCount) },
                update.verifiedAgainst?.ownerUpdatedAt.databaseSeconds,
            ])
        if update.verifiedAgainst != nil, changes == 0 { throw StaleRead() }
    }

    /// Inserts a credential inside the caller's transaction.
    static func insertCredential(_ credential: PasskeyCredential, _ db: SQLiteConnection) throws {
        let classify: (UniqueViolation) -> StoreConflict.Kind? = { violation in
            if violation.involves("credentials.id") { return .credentialID }
            if violation.involves("credentials.name") { return .credentialName }
            // A record ID is random (or derived from the credential ID): a collision is a
            // duplicate credential.
            if violation.involves("credentials.record_id") { return .credentialID }
            return nil
        }
        _ = try reportingConflicts(classify) {
            try db.execute(
                """
                    INSERT INTO credentials (
                        id, user_id, public_key, algorithm, sign_count, backup_eligible, backed_up,
                        user_verified, transports, aaguid, attestation_format, attestation_trusted,
                        relying_party_id, name, created_at, last_used_at, sign_count_regressed,
                        record_id, disabled, origin, metadata_entry, metadata_description, metadata_status
                    ) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                [
                    credential.credentialID, credential.userID.rawValue, credential.publicKey,
                    credential.algorithm.rawValue, Int64(credential.signCount), credential.isBackupEligible,
                    credential.isBackedUp, credential.isUserVerified, try JSONColumn.encode(credential.transports),
                    credential.aaguid.uuidString, credential.attestationFormat, credential.isAttestationTrusted,
                    credential.relyingPartyID, credential.name, credential.createdAt.databaseSeconds,
                    credential.lastUsedAt?.databaseSeconds, credential.hasSignCountRegressed,
                    credential.recordID, credential.isDisabled, credential.origin,
                    credential.attestationMetadata?.entry, credential.attestationMetadata?.description, credential.attestationMetadata?.status,
                ])
        }
    }
}

