public import Foundation
public import IdentityCore
import PostgresNIO

extension PostgresStorage {
    /// Finishes a ceremony in one transaction: its key is inserted first, and a key already
    /// there (another request, on this instance or another, finished it) ends the
    /// transaction with nothing written; the concurrent insert of the same key waits for
    /// the first to commit or roll back, so exactly one wins. Then the account or passkey,
    /// the passkey's use, the events and the session.
    public func completeCeremony(_ completion: CeremonyCompletion) async throws -> Bool {
        if let account = completion.newAccount { try Self.requireAccount(account.user, credential: account.credential) }
        if let credential = completion.newCredential { try credential.requireStorable() }
        if case .tokens(let start)? = completion.session { try Self.requireStorable(start) }
        let completed: Bool
        // A login's and a sign-up's finish are one function call each; anything else (an
        // enrollment, a browser session) goes statement by statement.
        if let login = LoginFinish(completion) {
            completed = try await autocommit { db in
                try await db.rows(login, logger: self.logger).first ?? false
            }
        } else if let signup = SignupFinish(completion) {
            completed = try await autocommit { db in
                try await db.rows(signup, logger: self.logger).first ?? false
            }
        } else {
            completed = try await completeInTransaction(completion)
        }
        if completed { securityEvents.announce(completion.events) }
        return completed
    }

    /// Any completion, statement by statement in one transaction.
    private func completeInTransaction(_ completion: CeremonyCompletion) async throws -> Bool {
        try await transaction { db in
            guard
                try await !db.rows(
                    "INSERT INTO finished_ceremonies (key) VALUES (\(completion.key.bytes.bytea)) ON CONFLICT (key) DO NOTHING RETURNING 1",
                    logger: self.logger
                ).isEmpty
            else { return false }
            if let account = completion.newAccount {
                try await self.insertAccount(account.user, credential: account.credential, db)
            }
            if let credential = completion.newCredential {
                try await self.insertCredential(credential, db)
            }
            if let update = completion.credentialUse {
                try await self.recordUse(update, db)
            }
            try await self.record(completion.events, db)
            switch completion.session {
            case .tokens(let start)?: try await self.startSession(start, db)
            case .browser(let session)?: try await self.insert(session, db)
            case nil: break
            }
            return true
        }
    }

    /// Deletes the keys of ceremonies that expired before `time`: one range at the low end
    /// of the key order (``CeremonyKey``).
    public func purgeCeremonies(expiredBefore time: Date) async throws -> Int {
        let bound = CeremonyKey.purgeBound(expiredBefore: time)
        return try await autocommit { db in
            try await db.rows("DELETE FROM finished_ceremonies WHERE key < \(bound.bytea) RETURNING 1", logger: self.logger).count
        }
    }
}
