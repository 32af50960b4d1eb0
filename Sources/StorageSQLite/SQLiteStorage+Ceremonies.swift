public import Foundation
public import IdentityCore

extension SQLiteStorage {
    /// Finishes a ceremony in one transaction, shared with concurrent completions
    /// (``CommitQueue``): its key is inserted first, so a key already there ends its part
    /// with nothing written; then the account or passkey, the passkey's use, the events,
    /// the session and the flow it finishes. Any failure rolls its part back, the key included.
    public func completeCeremony(_ completion: CeremonyCompletion) async throws -> Bool {
        let completed = try await completions.write { db in
            guard try db.execute("INSERT INTO finished_ceremonies (key) VALUES (?) ON CONFLICT (key) DO NOTHING", [completion.key.bytes]) == 1 else {
                return false
            }
            if let account = completion.newAccount {
                try Self.insertAccount(account.user, credential: account.credential, db)
            }
            if let credential = completion.newCredential {
                try credential.requireStorable()
                try Self.insertCredential(credential, db)
            }
            if let update = completion.credentialUse {
                try Self.recordUse(update, db)
            }
            for event in completion.events {
                try Self.record(event, db)
            }
            switch completion.session {
            case .tokens(let start)?: try Self.startSession(start, db)
            case .browser(let session)?: try Self.insert(session, db)
            case nil: break
            }
            if let flow = completion.finishedFlow {
                try db.execute("UPDATE interactive_flows SET completed_at = ? WHERE id = ? AND completed_at IS NULL", [flow.at.databaseSeconds, flow.id])
            }
            return true
        }
        if completed { securityEvents.announce(completion.events) }
        return completed
    }

    /// Deletes the keys of ceremonies that expired before `time`: one range at the low end
    /// of the key order (``CeremonyKey``).
    public func purgeCeremonies(expiredBefore time: Date) async throws -> Int {
        try database.write { db in
            try db.execute("DELETE FROM finished_ceremonies WHERE key < ?", [CeremonyKey.purgeBound(expiredBefore: time)])
        }
    }
}
