import IdentityCore
import PostgresNIO

/// One passkey sign-in's completion as a row of a ``LoginFinishBatch``: its one audit event,
/// the passkey's use checked against what was verified, its failed-finish check and at most
/// a token session.
struct LoginFinishRow: Sendable {
    let key: CeremonyKey
    let credentialID: [UInt8]
    let use: CredentialUse
    let usedAt: Double
    let verified: CeremonyCompletion.VerifiedState
    let event: AuditEvent
    let check: FailureCheck?
    let start: TokenSessionStart?

    /// `nil` for any other shape of completion: a sign-up, an enrollment, a refused use, a
    /// browser session or a flow, or a login with more than one event (a security event
    /// beside it, which is rare), each finished statement by statement.
    init?(_ completion: CeremonyCompletion, check: FailureCheck?) {
        guard completion.newAccount == nil, completion.newCredential == nil, completion.events.count == 1,
            let update = completion.credentialUse, let usedAt = update.use.usedAt, let verified = update.verifiedAgainst,
            let tail = FinishTail(completion, check: check)
        else { return nil }
        start = tail.start
        key = completion.key
        credentialID = update.credentialID
        use = update.use
        self.usedAt = usedAt.seconds
        self.verified = verified
        event = completion.events[0]
        self.check = check
    }
}

/// How a row of a ``LoginFinishBatch`` ended.
enum LoginFinishOutcome: Sendable, Equatable {
    /// Written: the ceremony claimed, the passkey's use and the session stored.
    case finished
    /// The ceremony was finished before (by another request, here or on another instance):
    /// nothing written.
    case claimedBefore
    /// The passkey or its owner changed since the login was verified (or another sign-in
    /// with the same passkey in the same batch went first): nothing written, and the
    /// caller verifies again (``StaleRead``).
    case stale
    /// The failed-finish limit refused it before anything was written.
    case refused
}

/// Passkey sign-in completions, any number of them, in one statement: one round trip, one
/// commit and one WAL flush for the lot, each row deciding its own outcome
/// (``LoginFinishOutcome``), so that a stale passkey, a replayed ceremony or a failed-finish
/// limit refuses its own request and never a neighbour's. No savepoints: every decision is
/// made per row inside the statement. A login alone is written by ``LoginFinish``, which costs
/// less to plan.
///
/// The order of its parts (data-modifying CTEs see one snapshot and each other's results
/// only through `RETURNING`):
/// 1. `gated`: each row's failed-finish check, read before anything is written.
/// 2. `locked`: each open row's passkey, locked (`FOR NO KEY UPDATE`) in credential-ID order,
///    so two batches wait for each other in one order and never deadlock (a lone finish can:
///    see ``LoginFinish``), with the passkey
///    and its owner compared with what was verified. The lock reads the latest committed
///    version of the row (READ COMMITTED re-checks it), so a passkey a concurrent login just
///    changed is found stale here, before anything is written.
/// 3. `chosen`: at most one row per passkey and per ceremony key. A second sign-in with the
///    same passkey in the batch is answered stale and verified again by its caller; a second
///    finish of the same ceremony is answered claimed before.
/// 4. `claim`: the chosen rows' audit events, which carry the ceremony key (unique). A key
///    claimed by a concurrent transaction waits for it and is then skipped (`ON CONFLICT DO
///    NOTHING`), not an error: that would roll back the neighbours too. So exactly one
///    finish of a ceremony wins, across instances.
/// 5. `used` and `family`: the passkey's use and the session, only for claimed rows. Their
///    passkeys are locked by this statement, so nothing can make the update miss.
///
/// The session is written only with the passkey's use, which proves its user exists when the
/// statement commits (deleting a user deletes their passkeys, and the two wait for each
/// other): this is why it needs no foreign key's check (migration v9). A session whose family
/// exists already (a rotation onto a saved family, never a login today) fails the whole
/// statement on the family's key; the caller then finishes each row on its own.
///
/// The event's request (address, user agent, face) is written in its columns, not through the
/// transaction's `latchkey.origin` setting, which the rows of a batch cannot share.
struct LoginFinishBatch: PostgresPreparedStatement {
    static let name = "latchkey_login_finish_batch"
    // Each column is one array parameter, unnested together with each row's position. Every
    // parameter is cast: a prepared statement's parameter types are the server's inference
    // from the first execution's text, and the bindings are sent in binary. The failed-finish
    // check reads both windows' counts in one index scan: this window's count plus the
    // previous one's, weighted and rounded up. A session's scopes are a slice of one flat
    // array, `$38` (`scope_first` to `scope_last`, empty when the first is past the last):
    // arrays of arrays cannot be unnested a row at a time.
    static let sql = """
        WITH batch AS MATERIALIZED (
            SELECT * FROM unnest(
                $1::bytea[], $2::bytea[], $3::bigint[], $4::boolean[], $5::boolean[], $6::double precision[], $7::boolean[],
                $8::bigint[], $9::double precision[],
                $10::double precision[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[], $17::text[], $18::text[],
                $19::text[], $20::bigint[], $21::double precision[], $22::bigint[],
                $23::text[], $24::text[], $25::text[], $26::double precision[], $27::bytea[], $28::text[], $29::bytea[], $30::integer[],
                $31::integer[], $32::text[], $33::double precision[], $34::boolean[], $35::boolean[], $36::double precision[],
                $37::double precision[]
            ) WITH ORDINALITY AS b(
                key, credential_id, sign_count, backed_up, user_verified, used_at, regressed,
                verified_count, owner_updated_at,
                event_time, kind, event_user, event_client, event_credential, detail, ip, user_agent, face,
                gate_key, gate_window, gate_weight, gate_limit,
                family_id, session_user_id, session_client, started_at, session_credential, method, token_hash, scope_first,
                scope_last, audience, authenticated_at, token_user_verified, password_sign_in, issued_at,
                expires_at, i
            )
        ), gated AS MATERIALIZED (
            SELECT b.i, b.gate_key IS NULL OR COALESCE((
                SELECT sum(CASE WHEN r.window_index = b.gate_window THEN r.count ELSE ceil(r.count * b.gate_weight) END)
                FROM request_counts r WHERE r.key = b.gate_key AND r.window_index IN (b.gate_window, b.gate_window - 1)
            ), 0) < b.gate_limit AS open
            FROM batch b
        ), locked AS MATERIALIZED (
            SELECT b.i, c.id FROM batch b JOIN gated g ON g.i = b.i JOIN credentials c ON c.id = b.credential_id
            WHERE g.open AND c.sign_count = b.verified_count AND NOT c.disabled
                AND (SELECT updated_at FROM users u WHERE u.id = c.user_id) = b.owner_updated_at
            ORDER BY c.id
            FOR NO KEY UPDATE OF c
        ), chosen AS MATERIALIZED (
            SELECT DISTINCT ON (b.key) b.i, b.key
            FROM (SELECT DISTINCT ON (id) i FROM locked ORDER BY id, i) l JOIN batch b ON b.i = l.i
            ORDER BY b.key, b.i
        ), claim AS (
            INSERT INTO audit_events (time, kind, user_id, client_id, credential_id, detail, ip, user_agent, face, ceremony_key)
            SELECT b.event_time, b.kind, b.event_user, b.event_client, b.event_credential, b.detail, b.ip, b.user_agent, b.face, b.key
            FROM batch b JOIN chosen ON chosen.i = b.i
            WHERE NOT EXISTS (SELECT FROM finished_ceremonies f WHERE f.key = b.key)
            ORDER BY b.i
            ON CONFLICT (ceremony_key) DO NOTHING
            RETURNING ceremony_key
        ), used AS (
            UPDATE credentials c SET
                sign_count = b.sign_count, backed_up = b.backed_up, user_verified = (c.user_verified OR b.user_verified),
                last_used_at = b.used_at, sign_count_regressed = (c.sign_count_regressed OR b.regressed)
            FROM batch b JOIN chosen ON chosen.i = b.i
            WHERE c.id = b.credential_id AND b.key IN (SELECT ceremony_key FROM claim)
            RETURNING b.i
        ), family AS (
            INSERT INTO refresh_token_families (
                id, user_id, client_id, created_at, revoked_at, credential_id, method,
                token_hash, scopes, audience, authenticated_at, user_verified, password_sign_in, issued_at, expires_at, used_at
            )
            SELECT b.family_id, b.session_user_id, b.session_client, b.started_at, NULL, b.session_credential, b.method,
                b.token_hash, CASE WHEN b.token_hash IS NOT NULL THEN ($38::text[])[b.scope_first:b.scope_last] END, b.audience,
                b.authenticated_at, b.token_user_verified, b.password_sign_in, b.issued_at, b.expires_at, NULL
            FROM batch b JOIN used ON used.i = b.i WHERE b.family_id IS NOT NULL
        )
        SELECT b.i, CASE
            WHEN NOT g.open THEN NULL
            WHEN b.i IN (SELECT i FROM used) THEN 1
            WHEN b.key IN (SELECT key FROM chosen)
                OR EXISTS (SELECT FROM audit_events a WHERE a.ceremony_key = b.key)
                OR EXISTS (SELECT FROM finished_ceremonies f WHERE f.key = b.key) THEN 0
            ELSE 2
        END
        FROM batch b JOIN gated g ON g.i = b.i
        """
    typealias Row = (Int64, Int32?)

    let rows: [LoginFinishRow]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 38)
        bindings.append(rows.map { ByteBuffer(bytes: $0.key.bytes) })
        bindings.append(rows.map { ByteBuffer(bytes: $0.credentialID) })
        bindings.append(rows.map { Int64($0.use.signCount) })
        bindings.append(rows.map(\.use.isBackedUp))
        bindings.append(rows.map(\.use.isUserVerified))
        bindings.append(rows.map(\.usedAt))
        bindings.append(rows.map(\.use.signCountRegressed))
        bindings.append(rows.map { Int64($0.verified.signCount) })
        bindings.append(rows.map(\.verified.ownerUpdatedAt.seconds))

        let events = rows.map(\.event)
        bindings.append(events.map(\.time.seconds))
        bindings.append(events.map(\.kind.rawValue))
        bindings.append(NullableArray(events.map { $0.userID.map { StoredText.sanitized($0.rawValue) } }))
        bindings.append(NullableArray(events.map { $0.clientID.map(StoredText.sanitized) }))
        bindings.append(NullableArray(events.map { $0.credentialID.map(StoredText.sanitized) }))
        bindings.append(events.map { StoredText.sanitized($0.detail) })
        // As the columns' defaults read the setting: an empty part is NULL.
        func part(_ text: String?) -> String? { text.flatMap { $0.isEmpty ? nil : StoredText.sanitized($0) } }
        bindings.append(NullableArray(events.map { part($0.origin?.ip) }))
        bindings.append(NullableArray(events.map { part($0.origin?.userAgent) }))
        bindings.append(NullableArray(events.map { part($0.origin?.face) }))

        bindings.append(NullableArray(rows.map { $0.check.map { StoredText.sanitized($0.key) } }))
        bindings.append(NullableArray(rows.map { $0.check?.window.index }))
        bindings.append(NullableArray(rows.map { $0.check?.window.previousWeight }))
        bindings.append(NullableArray(rows.map { $0.check.map { Int64($0.limit) } }))

        let starts = rows.map(\.start)
        bindings.append(NullableArray(starts.map { $0?.familyID }))
        bindings.append(NullableArray(starts.map { $0?.userID.rawValue }))
        bindings.append(NullableArray(starts.map { $0?.clientID }))
        bindings.append(NullableArray(starts.map { $0?.startedAt.seconds }))
        bindings.append(NullableArray(starts.map { $0?.credentialID.map { ByteBuffer(bytes: $0) } }))
        bindings.append(NullableArray(starts.map { $0?.method.rawValue }))
        let tokens = starts.map { $0?.refreshToken }
        bindings.append(NullableArray(tokens.map { $0.map { ByteBuffer(bytes: $0.tokenHash) } }))
        var scopes: [String] = [], firsts: [Int32] = [], lasts: [Int32] = []
        for token in tokens {
            firsts.append(Int32(scopes.count + 1))
            scopes += token?.scopes ?? []
            lasts.append(Int32(scopes.count))
        }
        bindings.append(firsts)
        bindings.append(lasts)
        bindings.append(NullableArray(tokens.map { $0?.audience }))
        bindings.append(NullableArray(tokens.map { $0?.authenticatedAt.seconds }))
        bindings.append(NullableArray(tokens.map { $0?.userVerified }))
        bindings.append(NullableArray(tokens.map { $0?.isPasswordSignIn }))
        bindings.append(NullableArray(tokens.map { $0?.issuedAt.seconds }))
        bindings.append(NullableArray(tokens.map { $0?.expiresAt.seconds }))
        // Not unnested: its length is the scopes', not the rows'.
        bindings.append(scopes)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode((Int64, Int32?).self) }

    /// Each row's outcome, in the rows' order.
    static func outcomes(_ answers: [Row], count: Int) throws -> [LoginFinishOutcome] {
        var outcomes = [LoginFinishOutcome?](repeating: nil, count: count)
        for (position, code) in answers {
            guard position >= 1, position <= count else { throw PostgresStorageError(.unreadableRow, "a login batch answered for row \(position) of \(count)") }
            switch code {
            case nil: outcomes[Int(position) - 1] = .refused
            case 1?: outcomes[Int(position) - 1] = .finished
            case 0?: outcomes[Int(position) - 1] = .claimedBefore
            default: outcomes[Int(position) - 1] = .stale
            }
        }
        return try outcomes.map { outcome in
            guard let outcome else { throw PostgresStorageError(.unreadableRow, "a login batch left a row unanswered") }
            return outcome
        }
    }
}
