public import Foundation
public import IdentityCore
import PostgresNIO

extension PostgresStorage {
    /// Finishes a ceremony in one statement or one transaction: the ceremony is claimed first
    /// (`latchkey_claim_ceremony`: its first audit event carries its key, which is unique, or
    /// a completion without events writes the key alone), and a ceremony claimed before (by
    /// another request, on this instance or another) ends it with nothing written; the
    /// concurrent claim of the same key waits for the first to commit or roll back, so exactly
    /// one wins. Then the account or passkey, the passkey's use and the session.
    ///
    /// A login's finish is a row of one statement, with the concurrent logins' (``LoginFinishBatch``,
    /// batched by ``loginFinishes``), and a sign-up's one function call, each of which also
    /// makes the request's failed-finish check (``FailureCheck``); anything else (an
    /// enrollment, a browser session) goes statement by statement, its check made before.
    public func completeCeremony(_ completion: CeremonyCompletion) async throws -> Bool {
        if let account = completion.newAccount { try Self.requireAccount(account.user, credential: account.credential) }
        if let credential = completion.newCredential { try credential.requireStorable() }
        if let flow = completion.finishedFlow { try StoredText.requireStorable(flow.id, in: "completeCeremony") }
        if case .tokens(let start)? = completion.session { try Self.requireStorable(start) }
        // Claimed here, so that the statement below makes the check (and nothing else does).
        let check = completion.failureCheck.flatMap { $0.claim() ? $0 : nil }
        let completed: Bool?
        if let login = LoginFinishRow(completion, check: check) {
            completed = try await finishLogin(login, completion)
        } else if let signup = SignupFinish(completion, check: check) {
            completed = try await autocommit { db in try await db.rows(signup, prepared: self.prepares, logger: self.logger).first ?? false }
        } else {
            completed = try await completeInTransaction(completion, check: check)
        }
        guard let completed else { throw check?.refuse() ?? PostgresStorageError(.invalidArgument, "a ceremony was refused without a check") }
        if completed { securityEvents.announce(completion.events) }
        return completed
    }

    /// A login's finish, in a batch with the logins finishing beside it: `true` written,
    /// `false` claimed before, `nil` refused by its failed-finish check.
    /// - Throws: ``StaleRead`` when the passkey or its owner changed since it was verified.
    private func finishLogin(_ login: LoginFinishRow, _ completion: CeremonyCompletion) async throws -> Bool? {
        let outcome: LoginFinishOutcome
        do {
            do {
                outcome = try await loginFinishes.write(login, with: writeLogins)
            } catch let failed as LoginFinishes.BatchFailed {
                // Its batch wrote nothing. Alone, the error (if any) is its own.
                guard failed.size > 1 else { throw failed.underlying }
                outcome = try await writeLogins([login])[0]
            }
        } catch is FinishStatementByStatement {
            // The statement wrote nothing, and what its check read counts for nothing.
            return try await completeInTransaction(completion, check: login.check)
        }
        switch outcome {
        case .finished: return true
        case .claimedBefore: return false
        case .refused: return nil
        case .stale: throw StaleRead()
        }
    }

    /// Writes a batch of login finishes in one statement: the batch's, or for a login alone,
    /// the cheaper statement of one (``LoginFinish``).
    @Sendable private func writeLogins(_ logins: [LoginFinishRow]) async throws -> [LoginFinishOutcome] {
        if logins.count == 1 { return [try await writeLogin(logins[0])] }
        return try await autocommit(operation: "completeCeremony") { db in
            let answers = try await db.rows(LoginFinishBatch(rows: logins), prepared: self.prepares, logger: self.logger)
            return try LoginFinishBatch.outcomes(answers, count: logins.count)
        }
    }

    private func writeLogin(_ login: LoginFinishRow) async throws -> LoginFinishOutcome {
        let statement = LoginFinish(login)
        let written: Bool?
        do {
            written = try await autocommit(operation: "completeCeremony") { db in
                // A deadlock with a batch finishing the same ceremony (see ``LoginFinish``)
                // wrote nothing: once more, and the other has committed or rolled back.
                do {
                    return try await db.rows(statement, prepared: self.prepares, logger: self.logger).first ?? false
                } catch where PostgresFailure.isRetryable(error) {
                    return try await db.rows(statement, prepared: self.prepares, logger: self.logger).first ?? false
                }
            }
        } catch is CeremonyClaimedBefore {
            return .claimedBefore
        } catch is StaleRead {
            return .stale
        }
        switch written {
        case true?: return .finished
        case false?: return .claimedBefore
        case nil: return .refused
        }
    }

    /// Any completion, statement by statement in one transaction, after the request's
    /// failed-finish check, if it owes one.
    private func completeInTransaction(_ completion: CeremonyCompletion, check: FailureCheck?) async throws -> Bool {
        if let check { try await makeFailureCheck(check) }
        return try await transaction { db in
            guard try await db.rows(CeremonyClaim(key: completion.key, events: completion.events), prepared: self.prepares, logger: self.logger).first == true else {
                return false
            }
            if let account = completion.newAccount {
                try await self.insertAccount(account.user, credential: account.credential, db)
            }
            if let credential = completion.newCredential {
                try await self.insertCredential(credential, db)
            }
            if let update = completion.credentialUse {
                try await self.recordUse(update, db)
            }
            switch completion.session {
            case .tokens(let start)?: _ = try await db.rows(SessionStart(start), prepared: self.prepares, logger: self.logger)
            case .browser(let session)?: try await self.insert(session, db)
            case nil: break
            }
            if let flow = completion.finishedFlow {
                _ = try await db.rows(
                    "UPDATE interactive_flows SET completed_at = \(flow.at.seconds) WHERE id = \(flow.id) AND completed_at IS NULL RETURNING 1", logger: self.logger)
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
