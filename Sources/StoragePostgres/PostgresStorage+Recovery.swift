public import Foundation
public import IdentityCore
import PostgresNIO

extension PostgresStorage {
    // MARK: - Mail outbox

    /// Queues a message, due at once.
    public func enqueueMail(_ mail: OutboxMail) async throws {
        try StoredText.requireStorable(mail.id, mail.recipient, mail.recipientName, mail.subject, mail.text, mail.html, in: "enqueueMail")
        try await autocommit { db in try await self.insert(mail, db) }
    }

    /// Inserts a message inside the caller's transaction.
    func insert(_ mail: OutboxMail, _ db: PostgresConnection) async throws {
        _ = try await db.rows(
            """
            INSERT INTO mail_outbox (id, kind, recipient, recipient_name, subject, text_body, html_body, created_at, attempts, due_at)
            VALUES (\(mail.id), \(mail.kind.rawValue), \(mail.recipient), \(mail.recipientName), \(mail.subject), \(mail.text), \(mail.html),
                \(mail.createdAt.seconds), \(Int64(mail.attempts)), \(mail.createdAt.seconds))
            """, logger: logger)
    }

    /// Claims due messages in one statement; `SKIP LOCKED` lets instances claim side by side.
    public func claimMail(dueAt time: Date, leaseUntil: Date, limit: Int) async throws -> [OutboxMail] {
        try await autocommit { db in
            try await db.rows(
                """
                UPDATE mail_outbox SET attempts = attempts + 1, due_at = \(leaseUntil.seconds)
                WHERE id IN (
                    SELECT id FROM mail_outbox WHERE status = 'pending' AND due_at <= \(time.seconds)
                    ORDER BY due_at LIMIT \(Int64(max(0, limit))) FOR UPDATE SKIP LOCKED
                )
                RETURNING *
                """, logger: self.logger
            ).map { try OutboxMail(stored: $0) }
        }
    }

    /// Records how an attempt ended; a finished message's body is erased.
    public func finishMail(id: String, outcome: MailOutcome, at time: Date) async throws {
        guard StoredText.canMatch(id) else { return }
        let stored = outcome.stored
        try await autocommit { db in
            if let due = stored.due {
                _ = try await db.rows(
                    "UPDATE mail_outbox SET due_at = \(due.seconds), last_error = \(stored.error) WHERE id = \(id) AND status = 'pending'", logger: self.logger
                )
            } else {
                _ = try await db.rows(
                    """
                    UPDATE mail_outbox SET status = \(stored.status), last_error = \(stored.error), finished_at = \(time.seconds), text_body = '', html_body = ''
                    WHERE id = \(id)
                    """, logger: self.logger)
            }
        }
    }

    /// Where a message stands.
    public func mailState(id: String) async throws -> OutboxMailState? {
        guard StoredText.canMatch(id) else { return nil }
        return try await autocommit { db in
            try await db.row("SELECT * FROM mail_outbox WHERE id = \(id)", logger: self.logger).map { try OutboxMailState(stored: $0) }
        }
    }

    /// Deletes finished messages queued before `time`.
    public func purgeMail(queuedBefore time: Date, limit: Int) async throws -> Int {
        try await purgeFinished(in: "mail_outbox", key: "id", before: time, limit: limit)
    }

    // MARK: - One-time codes

    /// Stores a code in place of the user's earlier one for the same purpose, when what is
    /// stored is what `replacing` names (decided in the write), and queues its mail.
    public func saveOneTimeCode(_ code: OneTimeCode, queueing mail: OutboxMail?, replacing: OneTimeCodeReplacement) async throws -> Bool {
        try StoredText.requireStorable(code.userID.rawValue, code.address, in: "saveOneTimeCode")
        if let mail { try StoredText.requireStorable(mail.id, mail.recipient, mail.recipientName, mail.subject, mail.text, mail.html, in: "saveOneTimeCode") }
        return try await transaction { db in
            let written: Int
            switch replacing {
            case .any:
                written = try await db.rows(
                    """
                    INSERT INTO one_time_codes (user_id, purpose, code_hash, address, created_at, expires_at, attempts, issued)
                    VALUES (\(code.userID.rawValue), \(code.purpose.rawValue), \(code.hash.bytea), \(code.address), \(code.createdAt.seconds),
                        \(code.expiresAt.seconds), \(Int64(code.attempts)), \(Int64(code.issued)))
                    ON CONFLICT (user_id, purpose) DO UPDATE SET code_hash = excluded.code_hash, address = excluded.address,
                        created_at = excluded.created_at, expires_at = excluded.expires_at, attempts = excluded.attempts, issued = excluded.issued
                    RETURNING 1
                    """, logger: self.logger
                ).count
            case .none:
                written = try await db.rows(
                    """
                    INSERT INTO one_time_codes (user_id, purpose, code_hash, address, created_at, expires_at, attempts, issued)
                    VALUES (\(code.userID.rawValue), \(code.purpose.rawValue), \(code.hash.bytea), \(code.address), \(code.createdAt.seconds),
                        \(code.expiresAt.seconds), \(Int64(code.attempts)), \(Int64(code.issued)))
                    ON CONFLICT (user_id, purpose) DO NOTHING RETURNING 1
                    """, logger: self.logger
                ).count
            case .code(let hash):
                written = try await db.rows(
                    """
                    UPDATE one_time_codes SET code_hash = \(code.hash.bytea), address = \(code.address), created_at = \(code.createdAt.seconds),
                        expires_at = \(code.expiresAt.seconds), attempts = \(Int64(code.attempts)), issued = \(Int64(code.issued))
                    WHERE user_id = \(code.userID.rawValue) AND purpose = \(code.purpose.rawValue) AND code_hash = \(hash.bytea) RETURNING 1
                    """, logger: self.logger
                ).count
            }
            guard written == 1 else { return false }
            if let mail { try await self.insert(mail, db) }
            return true
        }
    }

    /// The user's code for `purpose`.
    public func oneTimeCode(userID: UserID, purpose: OneTimeCodePurpose) async throws -> OneTimeCode? {
        guard StoredText.canMatch(userID.rawValue) else { return nil }
        return try await autocommit { db in
            try await db.row(
                "SELECT * FROM one_time_codes WHERE user_id = \(userID.rawValue) AND purpose = \(purpose.rawValue)", logger: self.logger
            ).map { try OneTimeCode(stored: $0) }
        }
    }

    /// Counts one guess.
    public func countOneTimeCodeAttempt(userID: UserID, purpose: OneTimeCodePurpose) async throws -> Int? {
        guard StoredText.canMatch(userID.rawValue) else { return nil }
        return try await autocommit { db in
            try await db.row(
                "UPDATE one_time_codes SET attempts = attempts + 1 WHERE user_id = \(userID.rawValue) AND purpose = \(purpose.rawValue) RETURNING attempts",
                logger: self.logger
            ).map { Int(try $0.integer("attempts")) }
        }
    }

    /// Deletes the code if its hash is `hash`.
    public func consumeOneTimeCode(userID: UserID, purpose: OneTimeCodePurpose, hash: [UInt8]) async throws -> Bool {
        guard StoredText.canMatch(userID.rawValue) else { return false }
        return try await autocommit { db in
            try await db.rows(
                """
                DELETE FROM one_time_codes WHERE user_id = \(userID.rawValue) AND purpose = \(purpose.rawValue) AND code_hash = \(hash.bytea) RETURNING 1
                """, logger: self.logger
            ).count == 1
        }
    }

    /// Marks the email verified if it is still `email`.
    public func markEmailVerified(userID: UserID, email: String, at time: Date) async throws -> User? {
        guard StoredText.canMatch(userID.rawValue), StoredText.canMatch(email) else { return nil }
        return try await autocommit { db in
            try await db.row(
                """
                UPDATE users SET email_verified_at = \(time.seconds), updated_at = \(time.seconds) WHERE id = \(userID.rawValue) AND email = \(email) RETURNING *
                """, logger: self.logger
            ).map { try User(stored: $0) }
        }
    }

    /// Replaces the email address, verified.
    public func changeEmail(userID: UserID, from old: String, to new: String, at time: Date) async throws -> User? {
        try StoredText.requireStorable(new, in: "changeEmail")
        guard StoredText.canMatch(userID.rawValue), StoredText.canMatch(old) else { return nil }
        return try await autocommit { db in
            try await db.row(
                """
                UPDATE users SET email = \(new), email_verified_at = \(time.seconds), updated_at = \(time.seconds)
                WHERE id = \(userID.rawValue) AND email = \(old) RETURNING *
                """, logger: self.logger
            ).map { try User(stored: $0) }
        }
    }

    /// Deletes codes that expired before `time`, and counters whose window ended before it.
    public func purgeOneTimeCodes(expiredBefore time: Date) async throws -> Int {
        try await autocommit { db in
            try await db.rows("DELETE FROM one_time_codes WHERE expires_at < \(time.seconds) RETURNING 1", logger: self.logger).count
                + db.rows("DELETE FROM account_counters WHERE expires_at < \(time.seconds) RETURNING 1", logger: self.logger).count
        }
    }

    // MARK: - Per-account counters

    /// Adds to a per-account counter in one statement, starting it again when its window ended.
    public func countAccountEvents(_ counter: AccountCounter, subject: UserID, adding count: Int, window: TimeInterval?, at time: Date) async throws -> Int {
        guard StoredText.canMatch(subject.rawValue) else { return count }
        return try await autocommit { db in
            guard count != 0 else {
                return try await db.row(
                    """
                    SELECT count FROM account_counters WHERE subject = \(subject.rawValue) AND counter = \(counter.rawValue)
                        AND (expires_at IS NULL OR expires_at > \(time.seconds))
                    """, logger: self.logger
                ).map { Int(try $0.integer("count")) } ?? 0
            }
            let expires = window.map { time.addingTimeInterval($0).seconds }
            return try await db.row(
                """
                INSERT INTO account_counters AS c (subject, counter, count, expires_at)
                VALUES (\(subject.rawValue), \(counter.rawValue), \(Int64(count)), \(expires))
                ON CONFLICT (subject, counter) DO UPDATE SET
                    count = CASE WHEN c.expires_at <= \(time.seconds) THEN excluded.count ELSE c.count + excluded.count END,
                    expires_at = CASE WHEN c.expires_at <= \(time.seconds) THEN excluded.expires_at ELSE c.expires_at END
                RETURNING count
                """, logger: self.logger
            ).map { Int(try $0.integer("count")) } ?? count
        }
    }

    /// Sets a per-account counter back to zero.
    public func resetAccountCounter(_ counter: AccountCounter, subject: UserID) async throws {
        guard StoredText.canMatch(subject.rawValue) else { return }
        try await autocommit { db in
            _ = try await db.rows("DELETE FROM account_counters WHERE subject = \(subject.rawValue) AND counter = \(counter.rawValue)", logger: self.logger)
        }
    }

    // MARK: - Saved recovery codes

    /// Replaces the user's saved recovery codes, in one transaction.
    public func replaceRecoveryCodes(userID: UserID, with codes: [RecoveryCode]) async throws {
        try StoredText.requireStorable(userID.rawValue, in: "replaceRecoveryCodes")
        try await transaction { db in
            _ = try await db.rows("DELETE FROM recovery_codes WHERE user_id = \(userID.rawValue)", logger: self.logger)
            for code in codes {
                _ = try await db.rows(
                    """
                    INSERT INTO recovery_codes (user_id, id, code_hash, created_at, used_at, lookup_key)
                    VALUES (\(userID.rawValue), \(code.id), \(code.hash), \(code.createdAt.seconds), \(code.usedAt?.seconds), \(code.lookupKey?.bytea))
                    """, logger: self.logger)
            }
        }
    }

    /// The user's saved recovery codes.
    public func recoveryCodes(userID: UserID) async throws -> [RecoveryCode] {
        guard StoredText.canMatch(userID.rawValue) else { return [] }
        return try await autocommit { db in
            try await db.rows(
                "SELECT * FROM recovery_codes WHERE user_id = \(userID.rawValue) ORDER BY length(id), id", logger: self.logger
            ).map { try RecoveryCode(stored: $0) }
        }
    }

    /// Marks the saved recovery code with this hash used, if it was not.
    public func useRecoveryCode(userID: UserID, hash: String, at time: Date) async throws -> Bool {
        guard StoredText.canMatch(userID.rawValue), StoredText.canMatch(hash) else { return false }
        return try await autocommit { db in
            try await db.rows(
                """
                UPDATE recovery_codes SET used_at = \(time.seconds) WHERE user_id = \(userID.rawValue) AND code_hash = \(hash) AND used_at IS NULL RETURNING 1
                """, logger: self.logger
            ).count == 1
        }
    }
}
