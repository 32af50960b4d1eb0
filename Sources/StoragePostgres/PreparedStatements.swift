import IdentityCore
import PostgresNIO
import WebAuthn

// The statements every login runs, prepared once per connection (postgres-nio keeps them
// by name on each connection): the server parses and plans each once, not per request. Each
// names itself: the protocol's default name is the type's reflected name, a string built
// anew on every execution.

/// A passkey with its owner, by credential ID: the first read of every login.
struct CredentialWithOwnerStatement: PostgresPreparedStatement {
    static let name = "latchkey_credential_with_owner"
    static let sql = "SELECT c.*, \(User.prefixedColumns) FROM credentials c JOIN users u ON u.id = c.user_id WHERE c.id = $1"
    typealias Row = PostgresRandomAccessRow

    let credentialID: [UInt8]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(credentialID.bytea)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row { row.makeRandomAccess() }
}

extension PostgresConnection {
    /// Runs a statement and collects its rows: prepared once per connection, or, through a
    /// transaction-mode pooler (`pooler=transaction`), sent whole each time as an unnamed
    /// statement, because the server connection under this one changes between transactions
    /// and a statement prepared on one is unknown on the next.
    func rows<Statement: PostgresPreparedStatement>(_ statement: Statement, prepared: Bool, logger: Logger) async throws -> [Statement.Row] {
        var rows: [Statement.Row] = []
        if prepared {
            for try await row in try await execute(statement, logger: logger) {
                rows.append(row)
            }
        } else {
            for try await row in try await query(PostgresQuery(unsafeSQL: Statement.sql, binds: try statement.makeBindings()), logger: logger) {
                rows.append(try statement.decodeRow(row))
            }
        }
        return rows
    }
}

/// A passkey sign-in's completion (its one audit event, the passkey's use checked against
/// what was verified, at most a token session) in one prepared statement: the failed-finish
/// check, the ceremony's claim (its audit event carries its key, which is unique), the
/// passkey's use and the session with its first refresh token. It answers `NULL` when the
/// failed-finish limit refuses, `false` when the key was finished without events, and `true`
/// when it wrote the login; it fails when the ceremony was claimed before (see below), and
/// raises `LK001` (``StaleRead``) when the passkey or its owner changed since the login was
/// verified. A failure rolls the whole statement back.
///
/// One statement rather than a call of `latchkey_finish_login` (migration v6, kept for older
/// instances): PL/pgSQL runs each of its statements through the executor on its own (start,
/// plan-cache check, locks, end), ten or so per login. A login with more than one event (a
/// security event beside it, which is rare) finishes statement by statement instead, so that
/// this statement inserts into `audit_events` once: each insert opens the table's indexes
/// and builds its defaults anew on every execution.
///
/// The session is written only with the passkey's use, which proves its user exists when the
/// statement commits (deleting a user deletes their passkeys, and the two wait for each
/// other): this is why it needs no foreign key's check (migration v9).
///
/// The claim and the statement's snapshot: a concurrent claim of the same key with events
/// waits on the unique index and then fails on it. A completion without events
/// (`finished_ceremonies`) cannot race one with events for the same key, because a
/// ceremony's completions all have the same shape: the services give every passkey
/// completion its event, and a completion without events never takes this path.
///
/// Its two inserts are plain ones, not `ON CONFLICT DO NOTHING`: a speculative insert checks
/// its unique index once more and writes one more WAL record to confirm the row. So a
/// ceremony claimed before fails the claim's insert on `audit_events_ceremony_key` (answered
/// `false`, ``CeremonyClaimedBefore``), and a session whose family already exists (a rotation
/// onto a saved family, never a login today) fails on the family's key, after which the
/// caller finishes statement by statement (``FinishStatementByStatement``). Either failure
/// rolls back the whole statement, and PostgreSQL's log shows it as an error.
struct LoginFinish: PostgresPreparedStatement {
    static let name = "latchkey_login_finish"
    // Every parameter is cast: a prepared statement's parameter types are the server's
    // inference from the first execution's text (a NULL pins nothing), and the bindings are
    // sent in binary. The failed-finish check reads both windows' counts in one index scan:
    // this window's count plus the previous one's, weighted and rounded up.
    static let sql = """
        WITH origin AS MATERIALIZED (
            SELECT set_config('latchkey.origin', $34::text, true) AS value
        ), gate AS MATERIALIZED (
            SELECT $16::text IS NULL OR COALESCE((
                SELECT sum(CASE WHEN window_index = $17::bigint THEN count ELSE ceil(count * $18::double precision) END)
                FROM request_counts WHERE key = $16::text AND window_index IN ($17::bigint, $17::bigint - 1)
            ), 0) < $19::bigint AS open
            FROM origin
        ), claim AS (
            INSERT INTO audit_events (time, kind, user_id, client_id, credential_id, detail, ceremony_key)
            SELECT $10::double precision, $11::text, $12::text, $13::text, $14::text, $15::text, $1::bytea
            FROM gate
            WHERE gate.open AND NOT EXISTS (SELECT FROM finished_ceremonies WHERE key = $1::bytea)
            RETURNING 1
        ), used AS (
            UPDATE credentials SET
                sign_count = $3::bigint, backed_up = $4::boolean, user_verified = (user_verified OR $5::boolean),
                last_used_at = $6::double precision, sign_count_regressed = (sign_count_regressed OR $7::boolean)
            WHERE id = $2::bytea AND EXISTS (SELECT FROM claim) AND sign_count = $8::bigint AND NOT disabled
                AND (SELECT updated_at FROM users WHERE users.id = credentials.user_id) = $9::double precision
            RETURNING 1
        ), family AS (
            INSERT INTO refresh_token_families (
                id, user_id, client_id, created_at, revoked_at, credential_id, method,
                token_hash, scopes, audience, authenticated_at, user_verified, password_sign_in, issued_at, expires_at, used_at
            )
            SELECT $20::text, $21::text, $22::text, $23::double precision, NULL, $24::bytea, $25::text,
                $26::bytea, CASE WHEN $26::bytea IS NOT NULL THEN $27::text[] END, $28::text, $29::double precision, $30::boolean,
                $31::boolean, $32::double precision, $33::double precision, NULL
            FROM used WHERE $20::text IS NOT NULL
        )
        SELECT CASE
            WHEN NOT (SELECT open FROM gate) THEN NULL
            WHEN NOT EXISTS (SELECT FROM claim) THEN false
            WHEN NOT EXISTS (SELECT FROM used) THEN latchkey_refuse('LK001', 'the passkey changed since the login was verified')
            ELSE true
        END
        """
    typealias Row = Bool?

    private let bindings: PostgresBindings

    /// `nil` for any other shape of completion.
    init?(_ completion: CeremonyCompletion, check: FailureCheck?) {
        guard completion.newAccount == nil, completion.newCredential == nil, let update = completion.credentialUse, let usedAt = update.use.usedAt,
            completion.events.count == 1, let verified = update.verifiedAgainst, let tail = FinishTail(completion, check: check)
        else { return nil }
        let use = update.use
        var bindings = PostgresBindings(capacity: 34)
        bindings.append(completion.key.bytes.bytea)
        bindings.append(update.credentialID.bytea)
        bindings.append(Int64(use.signCount))
        bindings.append(use.isBackedUp)
        bindings.append(use.isUserVerified)
        bindings.append(usedAt.seconds)
        bindings.append(use.signCountRegressed)
        bindings.append(Int64(verified.signCount))
        bindings.append(verified.ownerUpdatedAt.seconds)
        // The one event as values, not the one-element arrays the functions take: an array
        // costs both sides more to encode and decode than its element.
        bindings.appendColumns(of: completion.events[0])
        CeremonyClaim.appendCheck(check, to: &bindings)
        SessionStart.append(tail.start, to: &bindings)
        bindings.append(RequestOriginSetting.value(completion.events))
        self.bindings = bindings
    }

    func makeBindings() throws -> PostgresBindings { bindings }

    func decodeRow(_ row: PostgresRow) throws -> Bool? { try row.decode(Bool?.self) }
}

/// A passkey sign-up's completion (the account, its first passkey, events, at most a token
/// session), as one call of `latchkey_finish_signup` (migration v6), answering as
/// ``LoginFinish`` does.
struct SignupFinish: PostgresPreparedStatement {
    static let name = "latchkey_signup_finish"
    static let sql = "SELECT latchkey_finish_signup(" + (1...59).map { "$\($0)" }.joined(separator: ", ") + ") " + RequestOriginSetting.from(60)
    typealias Row = Bool?

    private let bindings: PostgresBindings

    /// `nil` for any other shape of completion.
    init?(_ completion: CeremonyCompletion, check: FailureCheck?) {
        guard let account = completion.newAccount, completion.newCredential == nil, completion.credentialUse == nil,
            let tail = FinishTail(completion, check: check)
        else { return nil }
        let user = account.user, profile = user.profile, credential = account.credential
        let metadata = credential.attestationMetadata
        var bindings = PostgresBindings(capacity: 60)
        bindings.append(completion.key.bytes.bytea)
        bindings.append(user.id.rawValue)
        bindings.append(user.userHandle.bytea)
        for text in [profile.email, profile.phoneNumber, profile.username, profile.name, profile.givenName, profile.familyName, profile.nickname, profile.picture] {
            bindings.append(text)
        }
        bindings.append(user.createdAt.seconds)
        bindings.append(user.updatedAt.seconds)
        bindings.append(credential.credentialID.bytea)
        bindings.append(credential.publicKey.bytea)
        bindings.append(credential.algorithm.rawValue)
        bindings.append(Int64(credential.signCount))
        bindings.append(credential.isBackupEligible)
        bindings.append(credential.isBackedUp)
        bindings.append(credential.isUserVerified)
        bindings.append(credential.transports)
        bindings.append(credential.aaguid.uuidString)
        bindings.append(credential.attestationFormat)
        bindings.append(credential.isAttestationTrusted)
        bindings.append(credential.relyingPartyID)
        bindings.append(credential.name)
        bindings.append(credential.createdAt.seconds)
        bindings.append(credential.lastUsedAt?.seconds)
        bindings.append(credential.hasSignCountRegressed)
        bindings.append(credential.recordID)
        bindings.append(credential.isDisabled)
        bindings.append(credential.origin)
        bindings.append(metadata?.entry)
        bindings.append(metadata?.description)
        bindings.append(metadata?.status)
        tail.append(to: &bindings)
        bindings.append(RequestOriginSetting.value(completion.events))
        self.bindings = bindings
    }

    func makeBindings() throws -> PostgresBindings { bindings }

    func decodeRow(_ row: PostgresRow) throws -> Bool? { try row.decode(Bool?.self) }
}

/// What every finish function takes last: the audit events and the failed-finish check, as
/// `latchkey_claim_ceremony` takes them, then the token session, as `latchkey_start_session`
/// takes it.
private struct FinishTail {
    let events: [AuditEvent]
    let check: FailureCheck?
    let start: TokenSessionStart?

    /// `nil` when the completion starts a browser session or finishes a flow, which the
    /// functions do not write.
    init?(_ completion: CeremonyCompletion, check: FailureCheck?) {
        guard completion.finishedFlow == nil else { return nil }
        switch completion.session {
        case .tokens(let tokens)?: start = tokens
        case nil: start = nil
        case .browser?: return nil
        }
        events = completion.events
        self.check = check
    }

    /// Appends the 24 parameters.
    func append(to bindings: inout PostgresBindings) {
        CeremonyClaim.appendEvents(events, check: check, to: &bindings)
        SessionStart.append(start, to: &bindings)
    }
}

/// A completion's claim on its ceremony, with its audit events, for the completions written
/// statement by statement: `latchkey_claim_ceremony` (migration v6).
struct CeremonyClaim: PostgresPreparedStatement {
    static let name = "latchkey_ceremony_claim"
    static let sql = "SELECT latchkey_claim_ceremony(" + (1...11).map { "$\($0)" }.joined(separator: ", ") + ") " + RequestOriginSetting.from(12)
    typealias Row = Bool?

    private let bindings: PostgresBindings

    init(key: CeremonyKey, events: [AuditEvent]) {
        var bindings = PostgresBindings(capacity: 12)
        bindings.append(key.bytes.bytea)
        Self.appendEvents(events, check: nil, to: &bindings)
        bindings.append(RequestOriginSetting.value(events))
        self.bindings = bindings
    }

    /// The events as parallel arrays (NULL travels as the empty string in the text arrays,
    /// see the function), then the failed-finish check (all NULL without one): 10 parameters.
    static func appendEvents(_ events: [AuditEvent], check: FailureCheck?, to bindings: inout PostgresBindings) {
        func texts(_ values: [String?]) -> [String] { values.map { $0.map(StoredText.sanitized) ?? "" } }
        bindings.append(events.map(\.time.seconds))
        bindings.append(events.map(\.kind.rawValue))
        bindings.append(texts(events.map { $0.userID?.rawValue }))
        bindings.append(texts(events.map(\.clientID)))
        bindings.append(texts(events.map(\.credentialID)))
        bindings.append(events.map { StoredText.sanitized($0.detail) })
        appendCheck(check, to: &bindings)
    }

    /// The failed-finish check (all NULL without one): 4 parameters.
    static func appendCheck(_ check: FailureCheck?, to bindings: inout PostgresBindings) {
        bindings.append(check.map { StoredText.sanitized($0.key) })
        bindings.append(check?.window.index)
        bindings.append(check?.window.previousWeight)
        bindings.append(check.map { Int64($0.limit) })
    }

    func makeBindings() throws -> PostgresBindings { bindings }

    func decodeRow(_ row: PostgresRow) throws -> Bool? { try row.decode(Bool?.self) }
}

/// A session's start with its first refresh token, if any: `latchkey_start_session`
/// (migration v6), which keeps the first token in the family's row.
struct SessionStart: PostgresPreparedStatement {
    static let name = "latchkey_session_start"
    static let sql = "SELECT latchkey_start_session(" + (1...14).map { "$\($0)" }.joined(separator: ", ") + ")"
    typealias Row = PostgresRandomAccessRow

    private let bindings: PostgresBindings

    /// A session's start.
    init(_ start: TokenSessionStart) {
        var bindings = PostgresBindings(capacity: 14)
        Self.append(start, to: &bindings)
        self.bindings = bindings
    }

    /// A token issued to a family that may exist already (a rotation, a saved token).
    init(_ record: RefreshTokenRecord, credentialID: [UInt8]?) {
        self.init(TokenSessionStart(
            familyID: record.familyID, userID: record.userID, clientID: record.clientID, startedAt: record.issuedAt, refreshToken: record,
            credentialID: credentialID, method: record.method
        ))
    }

    /// The 14 parameters; all NULL without a session.
    static func append(_ start: TokenSessionStart?, to bindings: inout PostgresBindings) {
        let token = start?.refreshToken
        bindings.append(start?.familyID)
        bindings.append(start?.userID.rawValue)
        bindings.append(start?.clientID)
        bindings.append(start?.startedAt.seconds)
        bindings.append(start?.credentialID?.bytea)
        bindings.append(start?.method.rawValue)
        bindings.append(token?.tokenHash.bytea)
        bindings.append(token?.scopes ?? [])
        bindings.append(token?.audience)
        bindings.append(token?.authenticatedAt.seconds)
        bindings.append(token?.userVerified)
        bindings.append(token?.isPasswordSignIn)
        bindings.append(token?.issuedAt.seconds)
        bindings.append(token?.expiresAt.seconds)
    }

    func makeBindings() throws -> PostgresBindings { bindings }

    func decodeRow(_ row: PostgresRow) throws -> Row { row.makeRandomAccess() }
}

/// A rate-limit count: this window's row counted up (by 0 to only read), the previous
/// window's read, in one statement.
struct RequestCountStatement: PostgresPreparedStatement {
    static let name = "latchkey_request_count"
    static let sql = """
        WITH counted AS (
            INSERT INTO request_counts (key, window_index, count, window_end) VALUES ($1, $2, $4, $3)
            ON CONFLICT (key, window_index) DO UPDATE SET count = request_counts.count + $4
            RETURNING count
        )
        SELECT counted.count::bigint, COALESCE((SELECT count FROM request_counts WHERE key = $1 AND window_index = $2 - 1), 0)::bigint
        FROM counted
        """
    typealias Row = (Int64, Int64)

    let key: String
    let window: Int64
    let windowEnd: Double
    let adding: Int64

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 4)
        bindings.append(key)
        bindings.append(window)
        bindings.append(windowEnd)
        bindings.append(adding)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode((Int64, Int64).self) }
}

/// A rate-limit count read without counting: this window's and the previous window's.
struct RequestCountReadStatement: PostgresPreparedStatement {
    static let name = "latchkey_request_count_read"
    static let sql = """
        SELECT COALESCE((SELECT count FROM request_counts WHERE key = $1 AND window_index = $2), 0)::bigint,
            COALESCE((SELECT count FROM request_counts WHERE key = $1 AND window_index = $2 - 1), 0)::bigint
        """
    typealias Row = (Int64, Int64)

    let key: String
    let window: Int64

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(key)
        bindings.append(window)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode((Int64, Int64).self) }
}

/// The request an audit event comes from, for the finish functions, whose events take it from
/// the `audit_events` columns' defaults: the statement first sets the transaction's
/// `latchkey.origin` (a subquery in `FROM`, with a volatile function, runs before the
/// function in the select list), so the functions keep their parameters and a login its
/// one round trip.
enum RequestOriginSetting {
    /// `FROM (SELECT set_config('latchkey.origin', $n, true)) AS origin`.
    static func from(_ parameter: Int) -> String {
        "FROM (SELECT set_config('latchkey.origin', $\(parameter), true)) AS origin"
    }

    /// The setting for a completion's events: one request's, so the first event's.
    static func value(_ events: [AuditEvent]) -> String {
        events.first?.origin.map { StoredText.sanitized($0.setting) } ?? ""
    }
}

extension PostgresBindings {
    /// An audit event's own columns: `time, kind, user_id, client_id, credential_id, detail`.
    mutating func appendColumns(of event: AuditEvent) {
        append(event.time.seconds)
        append(event.kind.rawValue)
        append(event.userID.map { StoredText.sanitized($0.rawValue) })
        append(event.clientID.map(StoredText.sanitized))
        append(event.credentialID.map(StoredText.sanitized))
        append(StoredText.sanitized(event.detail))
    }
}
