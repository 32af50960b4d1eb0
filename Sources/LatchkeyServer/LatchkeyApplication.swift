import AppAssociation
public import FaceFrame
import Foundation
import HTTPAPI
import HostedUI
import Mail
import NIOCore
import StoragePostgres
import StorageSQLite
import WebAuthn
public import AdminAPI
public import Hummingbird
public import IdentityCore
public import Logging
public import Prometheus
public import ServiceLifecycle

/// The composition root: the only place that names concrete types. It opens storage,
/// loads keys and trust anchors, builds the services and the router, and returns the
/// Hummingbird application.
public enum LatchkeyApplication {
    /// A database that cannot be opened, said for an operator: which setting named it, and
    /// what to check.
    public struct DatabaseUnavailable: Error, CustomStringConvertible {
        /// The message.
        public let description: String
    }

    /// Opens the configured database, running migrations.
    /// - Throws: ``DatabaseUnavailable`` naming the setting (`--database`,
    ///   `LATCHKEY_DATABASE` or `database`) when it cannot be opened.
    public static func openStorage(_ configuration: LatchkeyConfiguration, logger: Logger = Logger(label: "latchkey")) async throws -> any ServerStorage {
        switch configuration.database {
        case .sqlite(let path, let durability):
            do {
                return try SQLiteStorage(path: path, durability: durability)
            } catch {
                let reason = (error as? SQLiteStorageError)?.reason ?? "\(error)"
                let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
                throw DatabaseUnavailable(
                    description: "cannot open the database sqlite:\(path) (from \(configuration.databaseSource)): \(reason); check that \(directory) exists and is writable by this user, or choose another file"
                )
            }
        case .postgres(let settings):
            do {
                return try await PostgresStorage(settings, logger: logger)
            } catch {
                let reason = (error as? PostgresStorageError)?.reason ?? "\(error)"
                throw DatabaseUnavailable(
                    description: "cannot open the database (from \(configuration.databaseSource)): \(reason); check that PostgreSQL runs at \(settings.host):\(settings.port), that the user, password and database in the URL are right, and its sslmode"
                )
            }
        }
    }

    /// Applies pending migrations to the configured database.
    /// - Returns: The names of the migrations applied now.
    public static func migrate(_ configuration: LatchkeyConfiguration) async throws -> [String] {
        switch configuration.database {
        case .sqlite(let path, _): return try SQLiteStorage.migrate(path: path)
        case .postgres(let settings): return try await PostgresStorage.migrate(settings)
        }
    }

    /// Builds the application.
    /// - Parameters:
    ///   - configuration: The validated configuration.
    ///   - clock: The clock every expiry is judged by.
    ///   - random: The random source for challenges, IDs and keys.
    ///   - logger: Where start-up and request logs go.
    ///   - metrics: The Prometheus registry to serve, with `metrics:`.
    ///   - exporters: The OpenTelemetry exporters' work (``Observability``), run with the server.
    ///   - onRunning: Called with the bound port once the server listens.
    public static func build(
        _ configuration: LatchkeyConfiguration,
        clock: any WallClock = SystemClock(),
        random: any RandomSource = SystemRandom(),
        logger: Logger,
        metrics: PrometheusCollectorRegistry? = nil,
        exporters: [any Service] = [],
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws -> some ApplicationProtocol {
        // Measured for Prometheus, for OTLP, or both (the same metrics go to each).
        let measured = metrics != nil || configuration.telemetry != nil
        let routes = try await buildRoutes(configuration, clock: clock, random: random, logger: logger, measured: measured)
        if measured { MetricsListener.count(routes.storage.securityEvents) }
        SecurityEventLog.attach(routes.storage.securityEvents, to: logger)
        var services: [any Service] = exporters
        services.append(PurgeService(
            storage: routes.storage, clock: clock, interval: PurgeService.interval(ceremonyLifetime: configuration.passkeys.ceremonyLifetime),
            auditRetention: configuration.auditRetention, familyLifetime: configuration.tokens.refreshTokenAbsoluteLifetime, logger: logger
        ))
        if let source = routes.metadata { services.append(MetadataRefreshService(source: source, logger: logger)) }
        services.append(StatsRollupService(stats: routes.stats, interval: .seconds(30), logger: logger))
        services.append(DecoyCensusService(passkeys: routes.passkeys, interval: .seconds(600), logger: logger))
        services.append(MailSenderService(
            outbox: routes.storage, transport: routes.mail.transport, sealing: routes.mail.sealing, clock: clock, wakeUps: routes.mail.wakeUps, logger: logger,
            lease: Double(configuration.email.smtp?.timeout.components.seconds ?? 30) + 5
        ))
        services.append(AccountMailService(
            events: AccountMailService.stream(from: routes.storage.securityEvents), storage: routes.storage, mailer: routes.mail.mailer,
            recovery: routes.recovery, names: routes.authenticatorNames, logger: logger
        ))
        // Without endpoints nothing is written to the outbox, and nothing polls it.
        if !configuration.webhooks.endpoints.isEmpty { services.append(WebhookSenderService(
            store: routes.storage, endpoints: Dictionary(configuration.webhooks.endpoints.map { ($0.id, $0) }) { first, _ in first },
            policy: WebhookAddressPolicy(allowed: configuration.webhooks.allowPrivateNetworks), clock: clock,
            wakeUps: OutboxPump.wakeUps(from: routes.storage.securityEvents, kinds: configuration.webhooks.endpoints.reduce(into: []) { $0.formUnion($1.auditKinds) }),
            logger: logger
        )) }
        // Always: streams come and go through the API, on any instance.
        services.append(SignalSenderService(
            store: routes.storage, signals: routes.signals, policy: WebhookAddressPolicy(allowed: configuration.webhooks.allowPrivateNetworks), clock: clock,
            // Woken by what a stream may report (and a verification's request), not by every login.
            wakeUps: OutboxPump.wakeUps(from: routes.storage.securityEvents, kinds: SignalEventType.auditKinds.union([.adminRequest])), logger: logger
        ))
        let toldOfLogouts = routes.clients.all.filter { $0.backchannelLogoutURI != nil }
        if !toldOfLogouts.isEmpty { services.append(BackchannelLogoutSenderService(
            store: routes.storage, clients: routes.clients, tokens: routes.tokens,
            policy: WebhookAddressPolicy(allowed: configuration.webhooks.allowPrivateNetworks), clock: clock, logger: logger,
            wakeUps: OutboxPump.wakeUps(from: routes.storage.securityEvents, kinds: BackchannelLogoutSenderService.sessionEnds)
        )) }
        if let listener = configuration.admin.listener {
            services.append(try adminListener(routes.admin, console: routes.console, host: listener.host, port: listener.port, configuration: configuration, logger: logger))
        }
        if let metrics, let listener = configuration.metrics {
            services.append(MetricsListener.application(registry: metrics, host: listener.host, port: listener.port, logger: logger))
        }
        logStartup(configuration, names: routes.authenticatorNames, logger: logger)
        logger.info("email: \(routes.mail.transport.summary)")
        let host = configuration.server.host
        let connections = ConnectionLimiter(
            maximum: configuration.server.maximumConnections, maximumPerAddress: configuration.server.maximumConnectionsPerAddress,
            ipv6PrefixLength: configuration.rateLimits.ipv6PrefixLength
        )
        return Application(
            router: routes.router,
            server: .http1(configuration: .init(
                additionalChannelHandlers: [
                    connections.handler(), ConnectionCloseHandler(), ClientAddressHandler(trustedProxies: configuration.server.trustedProxies),
                ],
                // Also bounds a request whose head or body stops arriving: the timer restarts
                // with every part received, and closes a connection silent for this long.
                idleTimeout: .nanoseconds(Int64(configuration.server.idleTimeout * 1_000_000_000))
            )),
            configuration: .init(address: .hostname(host, port: configuration.server.port), serverName: "Latchkey"),
            services: services,
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuration.server.port
                logger.info("Latchkey listening on http://\(host):\(port) (public URL \(configuration.server.publicURL))")
                await onRunning(port)
            },
            logger: logger
        )
    }

    /// Builds every face's routes over the configured database, without a server: what
    /// ``build(_:clock:random:logger:onRunning:)`` serves, and what in-process tests drive.
    public static func buildRoutes(
        _ configuration: LatchkeyConfiguration,
        clock: any WallClock = SystemClock(),
        random: any RandomSource = SystemRandom(),
        logger: Logger = Logger(label: "latchkey"),
        measured: Bool = false
    ) async throws -> Routes {
        let services = try await LatchkeyServices.make(configuration, clock: clock, random: random, logger: logger, measured: measured)
        // HEAD answers on every GET route, as the GET without its body (RFC 9110 §9.3.2),
        // except where a GET creates something (see StateCreatingRoutesMiddleware).
        let router = Router(context: FaceRequestContext.self, options: .autoGenerateHeadEndpoints)
        let (admin, console) = try router.addFaces(services, configuration: configuration, measured: measured)
        return Routes(
            router: router, storage: services.storage, authenticatorNames: services.names, metadata: services.metadata, passkeys: services.passkeys,
            mail: services.mail, recovery: services.recovery, admin: admin, tokens: services.tokens, clients: services.clients,
            stats: services.stats, console: console, signals: services.signals
        )
    }

    /// Every face's routes and what they write to.
    public struct Routes {
        /// The router with every face.
        public let router: Router<FaceRequestContext>
        /// The database the faces write to.
        public let storage: any ServerStorage
        /// Provider names by AAGUID, as loaded.
        public let authenticatorNames: AuthenticatorNames
        /// The FIDO metadata source, when configured.
        public let metadata: MetadataSource?
        /// The passkey ceremonies every face runs.
        public let passkeys: PasskeyService
        /// The outbox's mailer, its transport and the sender's wake-ups.
        let mail: MailSetup
        /// Verification and recovery.
        public let recovery: AccountRecoveryService
        /// The Admin API's services.
        public let admin: AdminAPIServices
        /// The tokens' keys, which also sign logout tokens.
        let tokens: TokenService
        /// The registered clients.
        let clients: ClientRegistry
        /// The daily rollups.
        public let stats: StatsService
        /// The operator console.
        let console: OperatorConsole
        /// The Shared Signals transmitter.
        let signals: SharedSignalsService
    }

    /// The Admin API and the console on a listener of their own (`admin.host`, `admin.port`),
    /// so that they can stay off the public internet; the same address rule and keys apply.
    private static func adminListener(
        _ services: AdminAPIServices, console: OperatorConsole, host: String, port: Int, configuration: LatchkeyConfiguration, logger: Logger
    ) throws -> some ApplicationProtocol {
        let router = Router(context: FaceRequestContext.self)
        var envelopes = FaceEnvelopes(fallback: AdminAPIErrors())
        envelopes.claim("/", AdminAPIErrors())
        if configuration.telemetry != nil { router.add(middleware: RequestTracingMiddleware()) }
        router.add(middleware: HostRequiredMiddleware(envelopes: envelopes))
        router.add(middleware: RequestOriginMiddleware(faces: [.adminAPI]))
        // The router's own 404 for any other path, in the Admin API's envelope.
        router.add(middleware: ErrorRenderingMiddleware(AdminAPIErrors()))
        try router.addAdminAPI(services)
        router.addConsole(console)
        // The main listener's bounds: a connection limit of its own (a caller can hold open
        // only as many as the main listener allows), and the same idle timeout.
        let connections = ConnectionLimiter(
            maximum: configuration.server.maximumConnections, maximumPerAddress: configuration.server.maximumConnectionsPerAddress,
            ipv6PrefixLength: configuration.rateLimits.ipv6PrefixLength
        )
        return Application(
            router: router,
            server: .http1(configuration: .init(
                additionalChannelHandlers: [
                    connections.handler(), ConnectionCloseHandler(), ClientAddressHandler(trustedProxies: configuration.server.trustedProxies),
                ],
                idleTimeout: .nanoseconds(Int64(configuration.server.idleTimeout * 1_000_000_000))
            )),
            configuration: .init(address: .hostname(host, port: port), serverName: "Latchkey admin"),
            onServerRunning: { channel in
                logger.info("Admin API on http://\(host):\(channel.localAddress?.port ?? port)/admin/v1/")
            },
            logger: logger
        )
    }

    /// Says where everything is, so a newcomer knows what is running.
    private static func logStartup(_ configuration: LatchkeyConfiguration, names: AuthenticatorNames, logger: Logger) {
        logger.info("configuration from \(configuration.sources.joined(separator: ", "))")
        switch configuration.database {
        case .sqlite(let path, let durability):
            let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
            logger.info("database: SQLite at \(absolute) (synchronous=\(durability == .full ? "full" : "normal"))")
        case .postgres(let settings):
            logger.info("database: PostgreSQL at \(settings.redacted) (sslmode \(settings.tls.rawValue), pool \(settings.poolSize), statement timeout \(settings.statementTimeout) ms)")
        }
        logger.info("relying party: id \(configuration.relyingParty.id), origins \(configuration.relyingParty.origins.joined(separator: ", "))")
        for derived in configuration.association.derivedOrigins {
            logger.info("origin \(derived.origin) (\(derived.source))")
        }
        for warning in configuration.warnings {
            logger.warning("\(warning)")
        }
        for client in configuration.clients {
            let kind = client.secret == nil ? "public" : "confidential"
            logger.info("client \(client.id) (\(kind)): grants \(client.grantTypes.map(\.rawValue).joined(separator: ", "))")
        }
        let issuer = configuration.server.publicURL
        logger.info("hosted pages: \(issuer)/ (sign up at \(issuer)/signup, sign in at \(issuer)/login)")
        logger.info("OpenID discovery: \(issuer)/.well-known/openid-configuration")
        let documents = WellKnownDocumentsBuilder.build(configuration)
        for path in documents.served.keys.sorted() {
            logger.info("serving \(issuer)\(path)")
        }
        let publicHost = URL(string: issuer)?.host ?? issuer
        if publicHost != configuration.relyingParty.id {
            logger.notice(
                "apps and password managers fetch these from https://\(configuration.relyingParty.id)/.well-known/, not from \(publicHost); serve or proxy them there and check with latchkey doctor"
            )
        }
        logger.info("passkey provider names: \(names.count) AAGUIDs")
        let passkeys = configuration.passkeys
        if let metadata = passkeys.metadata {
            logger.info("FIDO metadata from \(metadata.source), refreshed every \(Int(metadata.refresh)) s; refusing \(metadata.refusedStatuses.sorted().joined(separator: ", "))")
        }
        if passkeys.asksForAttestation {
            logger.info("registrations ask for direct attestation (requirement \(passkeys.attestationRequirement), allowed_aaguids \(passkeys.allowedAAGUIDs?.count ?? 0), denied_aaguids \(passkeys.deniedAAGUIDs.count), require_device_bound \(passkeys.requiresDeviceBound))")
        }
    }
}

extension LatchkeyApplication {
    /// The signing keys and instance secrets of `storage`, sealed under the configured
    /// key-encryption key. With one, keys still stored in the clear are sealed now; without
    /// one, keys that are sealed stop start-up. A key that does not open them stops start-up
    /// too, naming the setting (a ``ConfigurationError``, exit 78).
    static func keyStore(_ configuration: LatchkeyConfiguration, storage: any ServerStorage, random: any RandomSource, logger: Logger) async throws -> SealedKeyStore {
        let encryption = configuration.secrets.keyEncryption
        do {
            let sealed = try await SealedKeyStore.reseal(storage, from: encryption, to: encryption, secretNames: InstanceSecrets.names, random: random)
            if let encryption, sealed > 0 { logger.notice("sealed \(sealed) stored key(s) under key-encryption key \(encryption.keyID)") }
        } catch let failure as KeyEncryption.Failure {
            throw ConfigurationError(key: configuration.secrets.source, failure.description)
        }
        return SealedKeyStore(storage, encryption: encryption)
    }

    /// Seals the stored signing keys and instance secrets again: opened with `old` (or taken
    /// as they are, when stored in the clear), sealed under `new` (or stored in the clear,
    /// when `nil`): `latchkey keys rewrap`.
    /// - Returns: How many values were rewritten.
    public static func rewrapKeys(_ configuration: LatchkeyConfiguration, old: KeyEncryption?, new: KeyEncryption?, random: any RandomSource = SystemRandom()) async throws -> Int {
        let storage = try await openStorage(configuration)
        return try await SealedKeyStore.reseal(storage, from: old, to: new, secretNames: InstanceSecrets.names, random: random)
    }

    /// The administration service over the configured database, and the provider names the
    /// server would show: `latchkey admin`.
    public static func administration(_ configuration: LatchkeyConfiguration) async throws -> (admin: AdminService, names: AuthenticatorNames) {
        let storage = try await openStorage(configuration)
        let names = try AuthenticatorNamesLoader.load(file: configuration.authenticatorNamesFile)
        return (AdminService(storage: storage, clock: SystemClock(), random: SystemRandom()), names)
    }

    /// The importer for the configured database and relying party (`latchkey import`).
    public static func importer(_ configuration: LatchkeyConfiguration) async throws -> AccountImporter {
        importer(configuration, storage: try await openStorage(configuration), clock: SystemClock(), random: SystemRandom())
    }

    /// The importer for `storage` and the configured relying party (also the Admin API's).
    static func importer(_ configuration: LatchkeyConfiguration, storage: any ServerStorage, clock: any WallClock, random: any RandomSource) -> AccountImporter {
        AccountImporter(
            storage: storage, relyingPartyID: configuration.relyingParty.id,
            keyPolicy: KeyPolicy(allowsLegacyRS1ForTPM: configuration.passkeys.allowsLegacyRS1), clock: clock, random: random
        )
    }

    /// Adds a token signing key to the configured database and returns its key ID.
    public static func rotateSigningKey(
        _ configuration: LatchkeyConfiguration, algorithm: SigningAlgorithm = .es256, clock: any WallClock = SystemClock(), random: any RandomSource = SystemRandom()
    ) async throws -> String {
        let storage = try await openStorage(configuration)
        let keys = SigningKeyRing(
            store: try await keyStore(configuration, storage: storage, random: random, logger: Logger(label: "latchkey")), clock: clock, random: random,
            publicationGrace: max(configuration.tokens.accessTokenLifetime, configuration.tokens.idTokenLifetime)
        )
        return try await keys.rotate(algorithm)
    }
}
