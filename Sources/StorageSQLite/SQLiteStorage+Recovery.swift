public import Foundation
public import IdentityCore

extension SQLiteStorage {
    // MARK: - Mail outbox

    /// Queues a message, due at once.
    public func enqueueMail(_ mail: OutboxMail) async throws {
        try StoredText.requireStorable(mail.id, mail.recipient, mail.recipientName, mail.subject, mail.text, mail.html, in: "enqueueMail")
        try database.write { db in try Self.insert(mail, db) }
    }

    /// Inserts a message inside the caller's transaction.
    static func insert(_ mail: OutboxMail, _ db: SQLiteConnection) throws {
        _ = try db.execute(
            """
            INSERT INTO mail_outbox (id, kind, recipient, recipient_name, subject, text_body, html_body, created_at, attempts, due_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [mail.id, mail.kind.rawValue, mail.recipient, mail.recipientName, mail.subject, mail.text, mail.html, mail.createdAt.databaseSeconds,
             Int64(mail.attempts), mail.createdAt.databaseSeconds]
        )
    }

    /// Claims due messages: their attempts go up and they are not due again until `leaseUntil`.
    public func claimMail(dueAt time: Date, leaseUntil: Date, limit: Int) async throws -> [OutboxMail] {
        try database.write { db in
            let due = try db.rows(
                "SELECT * FROM mail_outbox WHERE status = 'pending' AND due_at <= ? ORDER BY due_at LIMIT ?", [time.databaseSeconds, Int64(limit)]
            ).map(OutboxMail.init(stored:))
            for mail in due {
                _ = try db.execute("UPDATE mail_outbox SET attempts = attempts + 1, due_at = ? WHERE id = ?", [leaseUntil.databaseSeconds, mail.id])
            }
            return due.map { mail in
                var claimed = mail
                claimed.attempts += 1
                return claimed
            }
        }
    }

    /// Records how an attempt ended; a finished message's body is erased.
    public func finishMail(id: String, outcome: MailOutcome, at time: Date) async throws {
        let stored = outcome.stored
        try database.write { db in
            if let due = stored.due {
                _ = try db.execute("UPDATE mail_outbox SET due_at = ?, last_error = ? WHERE id = ? AND status = 'pending'", [due.databaseSeconds, stored.error, id])
            } else {
                _ = try db.execute(
                    "UPDATE mail_outbox SET status = ?, last_error = ?, finished_at = ?, text_body = '', html_body = '' WHERE id = ?",
                    [stored.status, stored.error, time.databaseSeconds, id]
                )
            }
        }
    }

    /// Where a message stands.
    public func mailState(id: String) async throws -> OutboxMailState? {
        guard StoredText.canMatch(id) else { return nil }
        return try database.read { db in try db.row("SELECT * FROM mail_outbox WHERE id = ?", [id]).map(OutboxMailState.init(stored:)) }
    }

    /// Deletes finished messages queued before `time`.
    public func purgeMail(queuedBefore time: Date, limit: Int) async throws -> Int {
        try purgeFinished(in: "mail_outbox", key: "id", before: time, limit: limit)
    }

    // MARK: - One-time codes

    /// Stores a code in place of the user's earlier one for the same purpose, when what is
    /// stored is what `replacing` names, and queues its mail.
    public func saveOneTimeCode(_ code: OneTimeCode, queueing mail: OutboxMail?, replacing: OneTimeCodeReplacement) async throws -> Bool {
        try StoredText.requireStorable(code.userID.rawValue, code.address, in: "saveOneTimeCode")
        if let mail { try StoredText.requireStorable(mail.id, mail.recipient, mail.recipientName, mail.subject, mail.text, mail.html, in: "saveOneTimeCode") }
        return try database.write { db in
            // Writes are serialized, so what is read here is what the write replaces.
            let stored = try db.row("SELECT code_hash FROM one_time_codes WHERE user_id = ? AND purpose = ?", [code.userID.rawValue, code.purpose.rawValue])
            switch replacing {
            case .any: break
            case .none: guard stored == nil else { return false }
            case .code(let hash): guard let stored, try stored.bytes("code_hash") == hash else { return false }
            }
            if let mail { try Self.insert(mail, db) }
            _ = try db.execute(
                """
                INSERT INTO one_time_codes (user_id, purpose, code_hash, address, created_at, expires_at, attempts, issued) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (user_id, purpose) DO UPDATE SET code_hash = excluded.code_hash, address = excluded.address,
                    created_at = excluded.created_at, expires_at = excluded.expires_at, attempts = excluded.attempts, issued = excluded.issued
                """,
                [code.userID.rawValue, code.purpose.rawValue, code.hash, code.address, code.createdAt.databaseSeconds, code.expiresAt.databaseSeconds,
                 Int64(code.attempts), Int64(code.issued)]
            )
            return true
        }
    }

    /// The user's code for `purpose`.
    public func oneTimeCode(userID: UserID, purpose: OneTimeCodePurpose) async throws -> OneTimeCode? {
        guard StoredText.canMatch(userID.rawValue) else { return nil }
        return try database.read { db in
            try db.row("SELECT * FROM one_time_codes WHERE user_id = ? AND purpose = ?", [userID.rawValue, purpose.rawValue]).map(OneTimeCode.init(stored:))
        }
    }

    /// Counts one guess.
    public func countOneTimeCodeAttempt(userID: UserID, purpose: OneTimeCodePurpose) async throws -> Int? {
        guard StoredText.canMatch(userID.rawValue) else { return nil }
        return try database.write { db in
            try db.row(
                "UPDATE one_time_codes SET attempts = attempts + 1 WHERE user_id = ? AND purpose = ? RETURNING attempts", [userID.rawValue, purpose.rawValue]
            ).map { Int(try $0.integer("attempts")) }
        }
    }

    /// Deletes the code if its hash is `hash`.
    public func consumeOneTimeCode(userID: UserID, purpose: OneTimeCodePurpose, hash: [UInt8]) async throws -> Bool {
        guard StoredText.canMatch(userID.rawValue) else { return false }
        return try database.write { db in
            try db.execute("DELETE FROM one_time_codes WHERE user_id = ? AND purpose = ? AND code_hash = ?", [userID.rawValue, purpose.rawValue, hash]) == 1
        }
    }

    /// Marks the email verified if it is still `email`.
    public func markEmailVerified(userID: UserID, email: String, at time: Date) async throws -> User? {
        guard StoredText.canMatch(userID.rawValue), StoredText.canMatch(email) else { return nil }
        return try database.write { db in
            try db.row(
                "UPDATE users SET email_verified_at = ?, updated_at = ? WHERE id = ? AND email = ? RETURNING *",
                [time.databaseSeconds, time.databaseSeconds, userID.rawValue, email]
            ).map { try User(stored: $0) }
        }
    }

    /// Replaces the email address, verified.
    public func changeEmail(userID: UserID, from old: String, to new: String, at time: Date) async throws -> User? {
        try StoredText.requireStorable(new, in: "changeEmail")
        guard StoredText.canMatch(userID.rawValue), StoredText.canMatch(old) else { return nil }
        return try database.write { db in
            try reportingConflicts({ $0.involves("users.email") ? .identifier : nil }) {
                try db.row(
                    "UPDATE users SET email = ?, email_verified_at = ?, updated_at = ? WHERE id = ? AND email = ? RETURNING *",
                    [new, time.databaseSeconds, time.databaseSeconds, userID.rawValue, old]
                ).map { try User(stored: $0) }
            }
        }
    }

    /// Deletes codes that expired before `time`, and counters whose window ended before it.
    public func purgeOneTimeCodes(expiredBefore time: Date) async throws -> Int {
        try database.write { db in
            try db.execute("DELETE FROM one_time_codes WHERE expires_at < ?", [time.databaseSeconds])
                + db.execute("DELETE FROM account_counters WHERE expires_at < ?", [time.databaseSeconds])
        }
    }

    // MARK: - Per-account counters

    /// Adds to a per-account counter, starting it again when its window ended.
    public func countAccountEvents(_ counter: AccountCounter, subject: UserID, adding count: Int, window: TimeInterval?, at time: Date) async throws -> Int {
        guard StoredText.canMatch(subject.rawValue) else { return count }
        let read = { (db: SQLiteConnection) throws -> Int in
            guard let row = try db.row(
                "SELECT count FROM account_counters WHERE subject = ? AND counter = ? AND (expires_at IS NULL OR expires_at > ?)",
                [subject.rawValue, counter.rawValue, time.databaseSeconds]
            ) else { return 0 }
            return Int(try row.integer("count"))
        }
        guard count != 0 else { return try database.read(read) }
        return try database.write { db in
            let current = try read(db)
            let expires = current == 0 ? window.map { time.addingTimeInterval($0).databaseSeconds } : nil
            return Int(try db.row(
                """
                INSERT INTO account_counters (subject, counter, count, expires_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (subject, counter) DO UPDATE SET
                    count = CASE WHEN ? THEN excluded.count ELSE account_counters.count + excluded.count END,
                    expires_at = CASE WHEN ? THEN excluded.expires_at ELSE account_counters.expires_at END
                RETURNING count
                """,
                [subject.rawValue, counter.rawValue, Int64(count), expires, current == 0, current == 0]
            )?.integer("count") ?? Int64(count))
        }
    }

    /// Sets a per-account counter back to zero.
    public func resetAccountCounter(_ counter: AccountCounter, subject: UserID) async throws {
        guard StoredText.canMatch(subject.rawValue) else { return }
        try database.write { db in
            _ = try db.execute("DELETE FROM account_counters WHERE subject = ? AND counter = ?", [subject.rawValue, counter.rawValue])
        }
    }

    // MARK: - Saved recovery codes

    /// Replaces the user's saved recovery codes.
    public func replaceRecoveryCodes(userID: UserID, with codes: [RecoveryCode]) async throws {
        try StoredText.requireStorable(userID.rawValue, in: "replaceRecoveryCodes")
        try database.write { db in
            _ = try db.execute("DELETE FROM recovery_codes WHERE user_id = ?", [userID.rawValue])
            for code in codes {
                _ = try db.execute(
                    "INSERT INTO recovery_codes (user_id, id, code_hash, created_at, used_at, lookup_key) VALUES (?, ?, ?, ?, ?, ?)",
                    [userID.rawValue, code.id, code.hash, code.createdAt.databaseSeconds, code.usedAt?.databaseSeconds, code.lookupKey]
                )
            }
        }
    }

    /// The user's saved recovery codes.
    public func recoveryCodes(userID: UserID) async throws -> [RecoveryCode] {
        guard StoredText.canMatch(userID.rawValue) else { return [] }
        return try database.read { db in
            try db.rows("SELECT * FROM recovery_codes WHERE user_id = ? ORDER BY length(id), id", [userID.rawValue]).map(RecoveryCode.init(stored:))
        }
    }

    /// Marks the saved recovery code with this hash used, if it was not.
    public func useRecoveryCode(userID: UserID, hash: String, at time: Date) async throws -> Bool {
        guard StoredText.canMatch(userID.rawValue), StoredText.canMatch(hash) else { return false }
        return try database.write { db in
            try db.execute(
                "UPDATE recovery_codes SET used_at = ? WHERE user_id = ? AND code_hash = ? AND used_at IS NULL", [time.databaseSeconds, userID.rawValue, hash]
            ) == 1
        }
    }
}
