import IdentityCore
import PostgresNIO
import WebAuthn

// The statements every login runs, prepared once per connection (postgres-nio keeps them
// by name on each connection): the server parses and plans each once, not per request.

/// A passkey with its owner, by credential ID: the first read of every login.
struct CredentialWithOwnerStatement: PostgresPreparedStatement {
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
    /// Runs a prepared statement and collects its rows.
    func rows<Statement: PostgresPreparedStatement>(_ statement: Statement, logger: Logger) async throws -> [Statement.Row] {
        var rows: [Statement.Row] = []
        for try await row in try await execute(statement, logger: logger) {
            rows.append(row)
        }
        return rows
    }
}

/// A passkey sign-in's completion (a use of the passkey, events, at most a token session),
/// as one call of `latchkey_finish_login` (migration v2): one round trip instead of one per
/// statement.
struct LoginFinish: PostgresPreparedStatement {
    static let sql = "SELECT latchkey_finish_login(" + (1...29).map { "$\($0)" }.joined(separator: ", ") + ")"
    typealias Row = Bool

    private let bindings: PostgresBindings

    /// `nil` for any other shape of completion.
    init?(_ completion: CeremonyCompletion) {
        guard completion.newAccount == nil, completion.newCredential == nil, let update = completion.credentialUse, let usedAt = update.use.usedAt,
            let tail = FinishTail(completion)
        else { return nil }
        let use = update.use
        var bindings = PostgresBindings(capacity: 29)
        bindings.append(completion.key.bytes.bytea)
        bindings.append(update.credentialID.bytea)
        bindings.append(Int64(use.signCount))
        bindings.append(use.isBackedUp)
        bindings.append(use.isUserVerified)
        bindings.append(usedAt.seconds)
        bindings.append(use.signCountRegressed)
        bindings.append(update.verifiedAgainst != nil)
        bindings.append(Int64(update.verifiedAgainst?.signCount ?? 0))
        bindings.append(update.verifiedAgainst?.ownerUpdatedAt.seconds ?? 0)
        tail.append(to: &bindings)
        self.bindings = bindings
    }

    func makeBindings() throws -> PostgresBindings { bindings }

    func decodeRow(_ row: PostgresRow) throws -> Bool { try row.decode(Bool.self) }
}

/// A passkey sign-up's completion (the account, its first passkey, events, at most a token
/// session), as one call of `latchkey_finish_signup` (migration v3).
struct SignupFinish: PostgresPreparedStatement {
    static let sql = "SELECT latchkey_finish_signup(" + (1...54).map { "$\($0)" }.joined(separator: ", ") + ")"
    typealias Row = Bool

    private let bindings: PostgresBindings

    /// `nil` for any other shape of completion.
    init?(_ completion: CeremonyCompletion) {
        guard let account = completion.newAccount, completion.newCredential == nil, completion.credentialUse == nil,
            let tail = FinishTail(completion)
        else { return nil }
        let user = account.user, profile = user.profile, credential = account.credential
        let metadata = credential.attestationMetadata
        var bindings = PostgresBindings(capacity: 54)
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
        self.bindings = bindings
    }

    func makeBindings() throws -> PostgresBindings { bindings }

    func decodeRow(_ row: PostgresRow) throws -> Bool { try row.decode(Bool.self) }
}

/// What every finish function takes last, for `latchkey_record_finish`: the audit events
/// as parallel arrays, then the token session (all NULL when there is none).
private struct FinishTail {
    let events: [AuditEvent]
    let start: TokenSessionStart?

    /// `nil` when the completion starts a browser session, or a session a passkey did not
    /// start, which the functions do not write.
    init?(_ completion: CeremonyCompletion) {
        switch completion.session {
        // The functions write the family's sign-in method as its default, a passkey's.
        case .tokens(let tokens)? where tokens.method == .passkey: start = tokens
        case .tokens?: return nil
        case nil: start = nil
        case .browser?: return nil
        }
        events = completion.events
    }

    /// Appends the 19 parameters.
    func append(to bindings: inout PostgresBindings) {
        let token = start?.refreshToken
        // NULL travels as the empty string in the text arrays (see the function).
        func texts(_ values: [String?]) -> [String] { values.map { $0.map(StoredText.sanitized) ?? "" } }
        bindings.append(events.map(\.time.seconds))
        bindings.append(events.map(\.kind.rawValue))
        bindings.append(texts(events.map { $0.userID?.rawValue }))
        bindings.append(texts(events.map(\.clientID)))
        bindings.append(texts(events.map(\.credentialID)))
        bindings.append(texts(events.map(\.detail)))
        bindings.append(start?.familyID)
        bindings.append(start?.userID.rawValue)
        bindings.append(start?.clientID)
        bindings.append(start?.startedAt.seconds)
        bindings.append(start?.credentialID?.bytea)
        bindings.append(token?.tokenHash.bytea)
        bindings.append(token?.scopes ?? [])
        bindings.append(token?.audience)
        bindings.append(token?.authenticatedAt.seconds)
        bindings.append(token?.userVerified)
        bindings.append(token?.isPasswordSignIn)
        bindings.append(token?.issuedAt.seconds)
        bindings.append(token?.expiresAt.seconds)
    }
}

/// A rate-limit count: this window's row counted up (by 0 to only read), the previous
/// window's read, in one statement.
struct RequestCountStatement: PostgresPreparedStatement {
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
