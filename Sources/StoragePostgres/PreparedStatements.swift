import IdentityCore
import PostgresNIO
import WebAuthn

// The statements every login runs, prepared once per connection (postgres-nio keeps them
// by name on each connection): the server parses and plans each once, not per request. Each
// names itself: the protocol's default name is the type's reflected name, a string built
// anew on every execution.

/// A read by one key whose rows are read by column name (``StoredRow``), prepared once per
/// connection.
protocol KeyedRead: PostgresPreparedStatement where Row == PostgresRandomAccessRow {
    associatedtype Key: PostgresNonThrowingEncodable
    var key: Key { get }
}

extension KeyedRead {
    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(key)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> PostgresRandomAccessRow { row.makeRandomAccess() }
}

/// A passkey with its owner, by credential ID: the first read of every login on an instance
/// that has not cached the passkey.
struct CredentialWithOwnerStatement: KeyedRead {
    static let name = "latchkey_credential_with_owner"
    static let sql = "SELECT c.*, \(User.prefixedColumns) FROM credentials c JOIN users u ON u.id = c.user_id WHERE c.id = $1"
    typealias Row = PostgresRandomAccessRow

    let key: ByteBuffer

    init(credentialID: [UInt8]) { key = credentialID.bytea }
}

/// A user by ID: read by every refresh, after its rotation.
struct UserByIDStatement: KeyedRead {
    static let name = "latchkey_user_by_id"
    static let sql = "SELECT * FROM users WHERE id = $1"
    typealias Row = PostgresRandomAccessRow

    let key: String
}

/// A refresh token's stored grant, by its hash: read by every refresh, before its rotation.
struct RefreshTokenRecordStatement: KeyedRead {
    static let name = "latchkey_refresh_token_record"
    static let sql = "SELECT * FROM refresh_token_records WHERE token_hash = $1"
    typealias Row = PostgresRandomAccessRow

    let key: ByteBuffer

    init(hash: [UInt8]) { key = hash.bytea }
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

/// A passkey sign-up's completion (the account, its first passkey, events, at most a token
/// session), as one call of `latchkey_finish_signup` (migration v6). It answers `NULL` when
/// the failed-finish limit refuses, `false` when the ceremony was claimed before, and `true`
/// when it wrote the account.
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
struct FinishTail {
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
