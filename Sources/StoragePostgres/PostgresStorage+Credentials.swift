public import Foundation
public import IdentityCore
import PostgresNIO
import WebAuthn

extension PostgresStorage {
    /// The credential with this ID.
    public func credential(id: [UInt8]) async throws -> PasskeyCredential? {
        try await autocommit { db in
            try await db.row("SELECT * FROM credentials WHERE id = \(id.bytea)", logger: self.logger).map(PasskeyCredential.init(stored:))
        }
    }

    /// The credential with this ID and its owner, in one statement.
    public func credentialWithOwner(id: [UInt8]) async throws -> (credential: PasskeyCredential, owner: User)? {
        let found = try await autocommit { db -> Pair? in
            guard let row = try await db.rows(CredentialWithOwnerStatement(credentialID: id), prepared: self.prepares, logger: self.logger).first else { return nil }
            return Pair(credential: try PasskeyCredential(stored: row), owner: try User(stored: row, prefix: "u_"))
        }
        return found.map { ($0.credential, $0.owner) }
    }

    /// A tuple is not Sendable across the operation boundary; this is.
    private struct Pair: Sendable {
        let credential: PasskeyCredential
        let owner: User
    }

    /// A user's credentials, oldest first (registration order among equal times).
    public func credentials(userID: UserID) async throws -> [PasskeyCredential] {
        guard !StoredText.containsNUL([userID.rawValue]) else { return [] }
        return try await autocommit { db in
            try await db.rows("SELECT * FROM credentials WHERE user_id = \(userID.rawValue) ORDER BY created_at, seq", logger: self.logger)
                .map(PasskeyCredential.init(stored:))
        }
    }

    /// The credential with this record ID.
    public func credential(recordID: String) async throws -> PasskeyCredential? {
        guard !StoredText.containsNUL([recordID]) else { return nil }
        return try await autocommit { db in
            try await db.row("SELECT * FROM credentials WHERE record_id = \(recordID)", logger: self.logger).map(PasskeyCredential.init(stored:))
        }
    }

    /// Adds a credential to an existing user.
    public func addCredential(_ credential: PasskeyCredential) async throws {
        try credential.requireStorable()
        try await autocommit { db in try await self.insertCredential(credential, db) }
    }

    /// Renames a user's credential; `nil` clears the name.
    public func renameCredential(id: [UInt8], userID: UserID, name: String?) async throws -> Bool {
        guard !StoredText.containsNUL([userID.rawValue]) else { return false }
        try StoredText.requireStorable(name, in: "renameCredential")
        return try await autocommit { db in
            try await !db.rows("UPDATE credentials SET name = \(name) WHERE id = \(id.bytea) AND user_id = \(userID.rawValue) RETURNING 1", logger: self.logger).isEmpty
        }
    }

    /// Deletes a user's credential unless it is their last way to sign in. The user's row is
    /// locked first, so two deletions (or a deletion and a password removal) on any
    /// instances take turns and cannot remove both of the last two ways.
    public func deleteCredential(id: [UInt8], userID: UserID, at time: Date) async throws -> CredentialDeletion {
        guard !StoredText.containsNUL([userID.rawValue]) else { return .notFound }
        return try await transaction { db in
            try await self.lockUser(userID, db)
            guard let row = try await db.row(
                """
                SELECT (SELECT count(*) FROM credentials WHERE user_id = \(userID.rawValue)) AS count,
                    EXISTS (SELECT 1 FROM passwords WHERE user_id = \(userID.rawValue) AND hash IS NOT NULL) AS has_password
                FROM credentials WHERE id = \(id.bytea) AND user_id = \(userID.rawValue)
                """, logger: self.logger)
            else { return .notFound }
            guard try row.integer("count") > 1 || row.bool("has_password") else { return .lastCredential }
            _ = try await db.rows("DELETE FROM credentials WHERE id = \(id.bytea) AND user_id = \(userID.rawValue) RETURNING 1", logger: self.logger)
            try await self.revokeSessions(.startedBy(credentialID: id, of: userID), at: time, db)
            return .deleted
        }
    }

    /// The shapes of the usable passkeys of the oldest `limit` accounts that have one.
    public func allowListShapes(limit: Int) async throws -> [[CredentialShape]] {
        try await autocommit { db in
            let rows = try await db.rows(
                """
                SELECT c.user_id, octet_length(c.id)::bigint AS id_length, c.transports FROM credentials c
                JOIN (SELECT user_id, min(seq) AS first FROM credentials WHERE NOT disabled GROUP BY user_id ORDER BY first LIMIT \(Int64(max(0, limit)))) o
                    ON o.user_id = c.user_id
                WHERE NOT c.disabled ORDER BY o.first, c.created_at, c.seq
                """, logger: self.logger)
            return try CredentialShape.grouped(rows)
        }
    }

    /// Turns a user's credential off or on again; off revokes the sessions it started, and
    /// an administrator's turning it off holds until an administrator turns it on.
    public func setCredentialDisabled(id: [UInt8], userID: UserID, disabled: Bool, byAdministrator: Bool, at time: Date) async throws -> CredentialStateChange {
        guard !StoredText.containsNUL([userID.rawValue]) else { return .notFound }
        return try await transaction { db in
            let changed = try await db.rows(
                """
                UPDATE credentials SET disabled = \(disabled),
                    disabled_by_admin = CASE WHEN \(disabled) THEN (disabled_by_admin OR \(byAdministrator)) ELSE false END
                WHERE id = \(id.bytea) AND user_id = \(userID.rawValue) AND (\(disabled) OR \(byAdministrator) OR NOT disabled_by_admin)
                RETURNING 1
                """, logger: self.logger)
            guard !changed.isEmpty else {
                let exists = try await db.row("SELECT 1 FROM credentials WHERE id = \(id.bytea) AND user_id = \(userID.rawValue)", logger: self.logger) != nil
                return exists ? .heldByAdministrator : .notFound
            }
            if disabled { try await self.revokeSessions(.startedBy(credentialID: id, of: userID), at: time, db) }
            return .changed
        }
    }

    /// Locks a user's row until the caller's transaction ends.
    func lockUser(_ userID: UserID, _ db: PostgresConnection) async throws {
        _ = try await db.rows("SELECT 1 FROM users WHERE id = \(userID.rawValue) FOR UPDATE", logger: logger)
    }

    /// Stores what a login changed, in one statement, inside the caller's transaction (see
    /// the SQLite backend for the rules: UV and the regression flag only go from false to
    /// true; a refused login only sets the flag; a use is stored only while what it was
    /// verified against still holds).
    func recordUse(_ update: CeremonyCompletion.CredentialUseUpdate, _ db: PostgresConnection) async throws {
        let use = update.use
        let id = update.credentialID.bytea
        guard let usedAt = use.usedAt else {
            _ = try await db.rows(
                "UPDATE credentials SET sign_count_regressed = (sign_count_regressed OR \(use.signCountRegressed)) WHERE id = \(id) RETURNING 1",
                logger: logger)
            return
        }
        let checks = update.verifiedAgainst != nil
        let changed = try await db.rows(
            """
            UPDATE credentials SET
                sign_count = \(Int64(use.signCount)),
                backed_up = \(use.isBackedUp),
                user_verified = (user_verified OR \(use.isUserVerified)),
                last_used_at = \(usedAt.seconds),
                sign_count_regressed = (sign_count_regressed OR \(use.signCountRegressed))
            WHERE id = \(id) AND (NOT \(checks) OR (
                sign_count = \(update.verifiedAgainst.map { Int64($0.signCount) }) AND NOT disabled
                AND (SELECT updated_at FROM users WHERE users.id = credentials.user_id) = \(update.verifiedAgainst?.ownerUpdatedAt.seconds)
            ))
            RETURNING 1
            """, logger: logger)
        if checks, changed.isEmpty { throw StaleRead() }
    }

    /// Inserts a credential inside the caller's transaction.
    func insertCredential(_ credential: PasskeyCredential, _ db: PostgresConnection) async throws {
        let metadata = credential.attestationMetadata
        _ = try await db.rows(
            """
            INSERT INTO credentials (
                id, user_id, public_key, algorithm, sign_count, backup_eligible, backed_up,
                user_verified, transports, aaguid, attestation_format, attestation_trusted,
                relying_party_id, name, created_at, last_used_at, sign_count_regressed,
                record_id, disabled, origin, metadata_entry, metadata_description, metadata_status
            ) VALUES (
                \(credential.credentialID.bytea), \(credential.userID.rawValue), \(credential.publicKey.bytea), \(credential.algorithm.rawValue),
                \(Int64(credential.signCount)), \(credential.isBackupEligible), \(credential.isBackedUp), \(credential.isUserVerified),
                \(credential.transports), \(credential.aaguid.uuidString), \(credential.attestationFormat), \(credential.isAttestationTrusted),
                \(credential.relyingPartyID), \(credential.name), \(credential.createdAt.seconds), \(credential.lastUsedAt?.seconds),
                \(credential.hasSignCountRegressed), \(credential.recordID), \(credential.isDisabled), \(credential.origin),
                \(metadata?.entry), \(metadata?.description), \(metadata?.status)
            )
            """, logger: logger)
    }
}

