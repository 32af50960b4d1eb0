import IdentityCore
import PostgresNIO

/// A passkey sign-in's completion written alone (a batch of one: see ``LoginFinishBatch``):
/// its one audit event, the passkey's use checked against what was verified, at most a token
/// session, in one prepared statement of scalar parameters. It makes the failed-finish check,
/// the ceremony's claim (its audit event carries its key, which is unique), the passkey's use
/// and the session with its first refresh token. It answers `NULL` when the failed-finish
/// limit refuses, `false` when the key was finished without events, and `true` when it wrote
/// the login; it fails when the ceremony was claimed before (see below), and raises `LK001`
/// (``StaleRead``) when the passkey or its owner changed since the login was verified. A
/// failure rolls the whole statement back.
///
/// Why a statement of its own for one login: PostgreSQL plans a batch's statement anew on
/// each execution, and planning it costs more than running it (measured: 0.80 ms of database
/// CPU for a login written alone by the batch's statement, 0.21 ms by this one). A batch of
/// many pays that once; a lone login would pay it whole.
///
/// One statement rather than a call of `latchkey_finish_login` (migration v6, kept for older
/// instances): PL/pgSQL runs each of its statements through the executor on its own (start,
/// plan-cache check, locks, end), ten or so per login.
///
/// It claims the ceremony before it locks the passkey, where a batch locks first: a batch and
/// a lone finish of the same ceremony at the same moment (a replay race) can wait for each
/// other, which PostgreSQL breaks by failing one (a deadlock, `40P01`). Either one wrote
/// nothing then: a batch's rows are each written alone, and a lone finish is tried once more.
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

    init(_ login: LoginFinishRow) {
        var bindings = PostgresBindings(capacity: 34)
        bindings.append(login.key.bytes.bytea)
        bindings.append(login.credentialID.bytea)
        bindings.append(Int64(login.use.signCount))
        bindings.append(login.use.isBackedUp)
        bindings.append(login.use.isUserVerified)
        bindings.append(login.usedAt)
        bindings.append(login.use.signCountRegressed)
        bindings.append(Int64(login.verified.signCount))
        bindings.append(login.verified.ownerUpdatedAt.seconds)
        // The one event as values, not the one-element arrays the functions take: an array
        // costs both sides more to encode and decode than its element.
        bindings.appendColumns(of: login.event)
        CeremonyClaim.appendCheck(login.check, to: &bindings)
        SessionStart.append(login.start, to: &bindings)
        bindings.append(RequestOriginSetting.value([login.event]))
        self.bindings = bindings
    }

    func makeBindings() throws -> PostgresBindings { bindings }

    func decodeRow(_ row: PostgresRow) throws -> Bool? { try row.decode(Bool?.self) }
}

/// A passkey sign-up's completion (the account, its first passkey, events, at most a token
/// session), as one call of `latchkey_finish_signup` (migration v6), answering as
