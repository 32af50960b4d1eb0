import Foundation
public import IdentityCore
public import Logging
import PostgresNIO
import Synchronization

/// IdentityCore's storage in PostgreSQL, shared by any number of instances.
///
/// Everything that makes an instance stateful lives in the database: finished ceremonies,
/// sessions, refresh families, codes, signing keys, instance secrets and the rate-limit
/// counters. Each operation that must be atomic is one transaction; each single-use thing
/// (a ceremony, a code, a refresh token, a flow) is consumed by one conditional statement,
/// so under any interleaving of instances exactly one request wins. Connections come from a
/// pool of `pool_size`; an operation that cannot get an answer within the statement timeout
/// (plus the time to connect) fails with ``StorageUnavailable``, which the faces answer
/// with 503 and `Retry-After`.
///
/// Once a connection to the server has been lost (or none can be made), the store knows
/// the server is gone: each later operation first tries one direct connection for at most a
/// second (one at a time; the others answer at once), so a request during an outage gets
/// its 503 within a second instead of the full deadline; and the first connection that
/// succeeds replaces the pool, whose own retries back off to a minute, so the first request
/// after the server is back succeeds.
public final class PostgresStorage: IdentityStorage, Sendable {
    let logger: Logger
    let settings: PostgresSettings
    /// How long an operation may take, waiting for a connection included.
    let deadline: Duration
    /// Whether statements are prepared by name on each connection (not through a
    /// transaction-mode pooler).
    let prepares: Bool
    /// The pool and the task that runs it; replaced when the server comes back.
    private let pool: Mutex<Pool>
    private let configuration: PostgresClient.Configuration
    private let backgroundLogger: Logger
    /// Set while the server is known to be gone: since when, and whether an operation is
    /// trying a connection now.
    private let outage = Mutex<Outage?>(nil)
    /// How long a connection attempt during an outage may take.
    static let outageProbeTimeout: Duration = .seconds(1)

    private struct Pool: Sendable {
        let client: PostgresClient
        let runner: Task<Void, Never>
    }

    private struct Outage: Sendable {
        var reason: String
        var isProbing = false
    }

    /// The connection pool in use.
    var client: PostgresClient { pool.withLock { $0.client } }
    /// Where the audit events this store commits are announced, after their commit.
    public let securityEvents = SecurityEventFeed()
    /// The login finishes in flight, written in batches (``LoginFinishBatch``).
    let loginFinishes: LoginFinishes
    typealias LoginFinishes = GroupCommit<LoginFinishRow, LoginFinishOutcome>
    /// The refresh-token rotations in flight, written in batches (``RefreshRotationBatch``).
    let refreshRotations: RefreshRotations
    typealias RefreshRotations = GroupCommit<RefreshRotation, RefreshTokenRecord?>

    /// What opening does about the schema.
    private enum SchemaPreparation {
        case migrate, requireCurrent, none
    }

    /// Connects to the database and brings its schema up to date (or, with
    /// `runsMigrations: false`, checks that it is).
    /// - Throws: ``PostgresStorageError`` (`.unreachable` with what PostgreSQL or the
    ///   network said, `.schemaOutOfDate`), never with the password.
    public convenience init(_ settings: PostgresSettings, runsMigrations: Bool = true, logger: Logger = Logger(label: "latchkey.postgres")) async throws {
        try await self.init(settings, schema: runsMigrations ? .migrate : .requireCurrent, logger: logger)
    }

    private init(_ settings: PostgresSettings, schema: SchemaPreparation, logger: Logger) async throws {
        self.settings = settings
        self.logger = logger
        deadline = .milliseconds(settings.statementTimeout) + .seconds(settings.connectTimeout)
        prepares = !settings.throughTransactionPooler
        loginFinishes = LoginFinishes(maxSize: settings.batchSize, concurrency: settings.batchConcurrency)
        refreshRotations = RefreshRotations(maxSize: settings.batchSize, concurrency: settings.batchConcurrency)
        var configuration = PostgresClient.Configuration(
            host: settings.host, port: settings.port, username: settings.username, password: settings.password, database: settings.database,
            tls: Self.tls(settings)
        )
        configuration.options.maximumConnections = settings.poolSize
        configuration.options.minimumConnections = 0
        configuration.options.connectTimeout = .seconds(settings.connectTimeout)
        configuration.options.additionalStartupParameters = Self.startupParameters(settings)
        // The pool logs every failed reconnection attempt at info, twice a second while the
        // database is down; this store says it once, as a warning (see `run`).
        var background = logger
        background.logLevel = max(logger.logLevel, .warning)
        self.configuration = configuration
        self.backgroundLogger = background
        pool = Mutex(await Self.startPool(configuration, logger: background))
        do {
            // Reachable at all, within the deadline (the pool would otherwise keep a request
            // waiting while it retries); the migrations themselves may then take their time.
            _ = try await autocommit { db in try await db.rows("SELECT 1", logger: logger).count }
            switch schema {
            case .migrate:
                try await migrate()
            case .requireCurrent:
                guard try await appliedMigrations().starts(with: Self.knownMigrations) else {
                    throw PostgresStorageError(.schemaOutOfDate, "the database schema is behind this build; run `latchkey migrate`")
                }
            case .none:
                _ = try await appliedMigrations()
            }
        } catch {
            close()
            if let known = error as? PostgresStorageError { throw known }
            var reason = (error as? StorageUnavailable)?.reason ?? Self.describe(error)
            if error is StorageUnavailable, let why = await Self.connectionFailure(settings, logger: logger) { reason = why }
            throw PostgresStorageError(.unreachable, "cannot use \(settings.redacted): \(reason)")
        }
    }

    /// What each connection asks of the server as it starts. The server cancels a statement
    /// that runs longer than the timeout, so a stuck query cannot hold a connection (and the
    /// request) for ever; through a transaction-mode pooler, which refuses startup parameters
    /// it does not know, the role's setting applies instead.
    private static func startupParameters(_ settings: PostgresSettings) -> [(String, String)] {
        var parameters = settings.throughTransactionPooler ? [] : [("statement_timeout", "\(settings.statementTimeout)")]
        if let schema = settings.schema { parameters.append(("search_path", PostgresMigrations.quotedIdentifier(schema))) }
        return parameters
    }

    /// A new pool, running: it takes requests only once `run()` has begun (before, it logs a
    /// warning and holds them), so the new task gets a moment to get there.
    private static func startPool(_ configuration: PostgresClient.Configuration, logger: Logger) async -> Pool {
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        let runner = Task { await client.run() }
        try? await Task.sleep(for: .milliseconds(5))
        return Pool(client: client, runner: runner)
    }

    /// Why one connection of its own cannot be made, or `nil` when it can. The pool keeps
    /// retrying a failed connection (a refused certificate, a wrong password) until the
    /// deadline and then reports only the timeout; at start-up the operator needs the cause.
    /// - Parameter timeout: How long connecting may take; the configured `connect_timeout`
    ///   when `nil`.
    private static func connectionFailure(_ settings: PostgresSettings, logger: Logger, timeout: Duration? = nil) async -> String? {
        do {
            var tls = PostgresConnection.Configuration.TLS.disable
            if let configuration = tlsConfiguration(settings) {
                let context = try NIOSSLContext(configuration: configuration)
                tls = settings.tls == .prefer ? .prefer(context) : .require(context)
            }
            var configuration = PostgresConnection.Configuration(
                host: settings.host, port: settings.port, username: settings.username, password: settings.password, database: settings.database, tls: tls
            )
            configuration.options.additionalStartupParameters = startupParameters(settings)
            configuration.options.connectTimeout = timeout.map { TimeAmount.nanoseconds(Int64($0.components.seconds * 1_000_000_000 + $0.components.attoseconds / 1_000_000_000)) }
                ?? .seconds(Int64(settings.connectTimeout))
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
            try? await connection.close()
            return nil
        } catch {
            let reason = describe(error)
            guard reason.contains("unsupported startup parameter") else { return reason }
            return reason + " (is this a pooler in transaction mode, such as PgBouncer? add pooler=transaction to the URL)"
        }
    }

    /// Connects, migrates and disconnects: what `latchkey migrate` runs.
    /// - Returns: The migrations applied now; empty when the schema was current.
    public static func migrate(_ settings: PostgresSettings) async throws -> [String] {
        let storage = try await PostgresStorage(settings, schema: .none, logger: Logger(label: "latchkey.postgres"))
        defer { storage.close() }
        return try await storage.migrate()
    }

    /// Every migration this build knows, in the order they apply.
    public static var knownMigrations: [String] { PostgresMigrations.all.map(\.name) }

    /// Applies the migrations the database has not seen, under an advisory lock, so that
    /// instances starting together take turns. Running it again does nothing.
    @discardableResult
    public func migrate() async throws -> [String] {
        try await client.withConnection { connection in
            try await PostgresMigrations.migrate(connection, schema: self.settings.schema, logger: self.logger)
        }
    }

    /// The names of the applied migrations in the order they are defined, then any this
    /// build does not know, sorted.
    public func appliedMigrations() async throws -> [String] {
        try await client.withConnection { connection in
            try await PostgresMigrations.applied(connection, logger: self.logger)
        }
    }

    /// Closes the pool. Later operations fail.
    public func close() {
        pool.withLock { $0.runner.cancel() }
    }

    /// Space is returned by PostgreSQL's autovacuum; nothing to do here.
    public func reclaimSpace(pages: Int) async throws -> Int { 0 }

    // MARK: - Running operations

    /// Runs `work` on a pooled connection without a transaction: for reads, and for writes
    /// of one statement, which PostgreSQL makes atomic by itself (no `BEGIN` and `COMMIT`,
    /// two round trips fewer).
    /// - Parameter operation: The storage method asking, which names its span.
    func autocommit<T: Sendable>(operation: StaticString = #function, _ work: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await Spans.storage("postgresql", operation) {
            try await run { try await self.client.withConnection(work) }
        }
    }

    /// Runs `work` in one transaction: committed when it returns, rolled back when it
    /// throws. A transaction that lost a serialization race or a deadlock runs again.
    /// - Parameter operation: The storage method asking, which names its span.
    func transaction<T: Sendable>(operation: StaticString = #function, _ work: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await Spans.storage("postgresql", operation) { try await transactionWithRetries(work) }
    }

    private func transactionWithRetries<T: Sendable>(_ work: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await run {
            try await self.client.withConnection { connection in
                var attempt = 1
                while true {
                    do {
                        return try await connection.transaction(logger: self.logger, work)
                    } catch where attempt < 3 && PostgresFailure.isRetryable(error) {
                        attempt += 1
                    }
                }
            }
        }
    }

    /// Runs an operation within the deadline, translating what the database said. During an
    /// outage, the operation runs only once a connection attempt of its own succeeds.
    private func run<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        if let reason = outage.withLock({ $0?.reason }) {
            guard await reconnected() else {
                throw StorageUnavailable("PostgreSQL at \(settings.redacted) is unavailable (\(reason)); answering at once until it is back")
            }
        }
        do {
            return try await withDeadline(operation)
        } catch is NoAnswer {
            let failure = StorageUnavailable("PostgreSQL at \(settings.redacted) gave no answer within \(deadline)")
            await checkForOutage(failure)
            throw failure
        } catch {
            let translated = PostgresFailure.translate(error)
            if let failure = translated as? StorageUnavailable, PostgresFailure.isConnectionLoss(error) { await checkForOutage(failure) }
            throw translated
        }
    }

    /// An operation that got no answer within the deadline.
    private struct NoAnswer: Error {}

    /// Runs `operation`, or answers ``NoAnswer`` when the deadline passes first (once the
    /// cancelled operation has stopped). The deadline is a timer on an event loop (NIO's
    /// `any()` is the caller's own when it runs on one), cancelled with the operation: a child
    /// task sleeping with `Task.sleep` instead left a dispatch timer queued until the deadline
    /// after every operation, thousands of them under load.
    private func withDeadline<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let nanoseconds = deadline.components.seconds * 1_000_000_000 + deadline.components.attoseconds / 1_000_000_000
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                let timer = PostgresClient.defaultEventLoopGroup.any().scheduleTask(in: .nanoseconds(nanoseconds)) {}
                try await withTaskCancellationHandler { try await timer.futureResult.get() } onCancel: { timer.cancel() }
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else { throw NoAnswer() }
            return value
        }
    }

    /// After an operation got no answer or lost its connection: the server is gone when a
    /// connection of its own cannot be made either (a busy pool or a slow server is not an
    /// outage: the pool keeps its connections). Logged once.
    private func checkForOutage(_ failure: StorageUnavailable) async {
        guard outage.withLock({ $0 == nil }) else { return }
        guard let reason = await Self.connectionFailure(settings, logger: logger, timeout: Self.outageProbeTimeout) else { return }
        let began = outage.withLock { state in
            guard state == nil else { return false }
            state = Outage(reason: reason)
            return true
        }
        if began { logger.warning("database unavailable, answering 503 until it is back: \(failure.reason) (\(reason))") }
    }

    /// Whether the server answers again, found by one direct connection within a second.
    /// One operation tries at a time; the others answer at once. When it answers, a fresh
    /// pool replaces the one whose retries have backed off, and the outage ends.
    private func reconnected() async -> Bool {
        let tries = outage.withLock { state -> Bool in
            guard state != nil, state?.isProbing == false else { return state == nil }
            state?.isProbing = true
            return true
        }
        guard tries else { return false }
        guard outage.withLock({ $0 != nil }) else { return true }
        if let failure = await Self.connectionFailure(settings, logger: logger, timeout: Self.outageProbeTimeout) {
            outage.withLock { $0?.isProbing = false }
            logger.debug("database still unavailable: \(failure)")
            return false
        }
        let fresh = await Self.startPool(configuration, logger: backgroundLogger)
        let previous = pool.withLock { pool in
            defer { pool = fresh }
            return pool
        }
        previous.runner.cancel()
        outage.withLock { $0 = nil }
        logger.notice("database available again at \(settings.redacted)")
        return true
    }

    private static func tls(_ settings: PostgresSettings) -> PostgresClient.Configuration.TLS {
        guard let configuration = tlsConfiguration(settings) else { return .disable }
        return settings.tls == .prefer ? .prefer(configuration) : .require(configuration)
    }

    /// NIOSSL's configuration for libpq's `sslmode`, `nil` for `disable`.
    private static func tlsConfiguration(_ settings: PostgresSettings) -> TLSConfiguration? {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let file = settings.rootCertificateFile {
            configuration.trustRoots = .file(file)
        }
        switch settings.tls {
        case .disable:
            return nil
        case .prefer, .require:
            configuration.certificateVerification = .none
        case .verifyCA:
            configuration.certificateVerification = .noHostnameVerification
        case .verifyFull:
            configuration.certificateVerification = .fullVerification
        }
        return configuration
    }

    /// A connection failure in words, without the query's binds.
    static func describe(_ error: any Error) -> String {
        if let psql = error as? PSQLError {
            if let message = psql.serverInfo?[.message] { return message }
            if let underlying = psql.underlying { return "\(psql.code): \(underlying)" }
            return "\(psql.code)"
        }
        return "\(error)"
    }
}
