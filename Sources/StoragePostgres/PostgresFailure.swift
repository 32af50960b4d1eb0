import IdentityCore
import PostgresNIO
import _ConnectionPoolModule

/// What a PostgreSQL error means to IdentityCore.
enum PostgresFailure {
    /// The uniqueness rule a constraint stands for, by the constraint's name (see the
    /// migrations, which name every one the model cares about).
    static let conflicts: [String: StoreConflict.Kind] = [
        "users_email_key": .identifier,
        "users_phone_number_key": .identifier,
        "users_username_key": .identifier,
        // The user handle is random, but reporting its collision like a taken identifier
        // lets the caller retry sign-up.
        "users_user_handle_key": .identifier,
        // An imported account keeps its source's ID, which can meet an account made here.
        "users_pkey": .identifier,
        "credentials_pkey": .credentialID,
        // A record ID is random (or derived from the credential ID): a collision is a
        // duplicate credential.
        "credentials_record_id_key": .credentialID,
        "credentials_user_id_name_key": .credentialName,
    ]

    /// SQLSTATEs worth one more try: the transaction lost a race, nothing was written.
    static func isRetryable(_ error: any Error) -> Bool {
        guard let state = sqlState(error) else { return false }
        return state == "40001" || state == "40P01"
    }

    /// The error IdentityCore should see: a ``StoreConflict`` for a named uniqueness
    /// violation, ``StorageUnavailable`` when the database cannot do the work now (gone,
    /// restarting, out of connections or space, too slow), anything else unchanged.
    static func translate(_ error: any Error) -> any Error {
        if error is StoreConflict || error is StorageUnavailable || error is StaleRead || error is FinishStatementByStatement
            || error is CeremonyClaimedBefore
        {
            return error
        }
        if let psql = error as? PSQLError {
            guard psql.code == .server, let state = psql.serverInfo?[.sqlState] else {
                // Connection lost, refused, closed, TLS failed: nothing the request did.
                return StorageUnavailable("PostgreSQL connection: \(psql.code)\(psql.underlying.map { ": \($0)" } ?? "")")
            }
            if state == "23505", let constraint = psql.serverInfo?[.constraintName] {
                if let kind = conflicts[constraint] { return StoreConflict(kind) }
                // Only the logins' statements (``LoginFinish``, ``LoginFinishBatch``) insert
                // these without `ON CONFLICT`: the ceremony was claimed before (a lone login),
                // or a session's family exists already.
                if constraint == "audit_events_ceremony_key" { return CeremonyClaimedBefore() }
                if constraint == "refresh_token_families_pkey" { return FinishStatementByStatement() }
            }
            // Raised by a lone login's statement (``LoginFinish``), and by
            // `latchkey_finish_login` (migration v6), which older instances call.
            if state == "LK001" { return StaleRead() }
            if state == "LK002" { return PostgresStorageError(.invalidArgument, psql.serverInfo?[.message] ?? "refresh token family of another user or client") }
            let message = psql.serverInfo?[.message] ?? ""
            switch state.prefix(2) {
            // Connection exceptions, the login refused or the database missing (an
            // operator's change), insufficient resources (disk full, too many connections),
            // operator intervention (shutting down, statement timeout), system errors,
            // transaction rollbacks that outlived their retries.
            case "08", "28", "3D", "53", "57", "58", "40":
                return StorageUnavailable("PostgreSQL \(state): \(message)")
            default:
                return error
            }
        }
        if error is ConnectionPoolError || error is CancellationError {
            return StorageUnavailable("PostgreSQL connection pool: \(error)")
        }
        return error
    }

    /// Whether the error is the connection's, not the server's answer: lost, refused, closed,
    /// TLS failed, or the pool giving up on making one. The server is then gone, as far as
    /// this instance can tell.
    static func isConnectionLoss(_ error: any Error) -> Bool {
        if let psql = error as? PSQLError { return psql.code != .server }
        return error is ConnectionPoolError
    }

    private static func sqlState(_ error: any Error) -> String? {
        guard let psql = error as? PSQLError, psql.code == .server else { return nil }
        return psql.serverInfo?[.sqlState]
    }
}

/// The lone login's statement found its ceremony claimed before: nothing was written.
struct CeremonyClaimedBefore: Error {}

/// The logins' statement declined a completion it does not write (a session whose family
/// exists): nothing was written, and the caller finishes it statement by statement.
struct FinishStatementByStatement: Error {}
