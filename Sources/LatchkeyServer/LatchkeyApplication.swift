import AppAssociation
import Foundation
public import AdminAPI
import HTTPAPI
import HostedUI
public import Hummingbird
public import IdentityCore
import Mail
public import Logging
public import Prometheus
import ServiceLifecycle
import NIOCore
import StorageSQLite
import StoragePostgres
import WebAuthn

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
    ///   - onRunning: Called with the bound port once the server listens.
    public static func build(
        _ configuration: LatchkeyConfiguration,
        clock: any WallClock = SystemClock(),
        random: any RandomSource = SystemRandom(),
        logger: Logger,
        metrics: PrometheusCollectorRegistry? = nil,
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws -> some ApplicationProtocol {
        let routes = try await buildRoutes(configuration, clock: clock, random: random, logger: logger, measured: metrics != nil)
        SecurityEventLog.attach(routes.storage.securityEvents, to: logger)
        var services: [any Service] = [PurgeService(
            storage: routes.storage, clock: clock, interval: PurgeService.interval(ceremonyLifetime: configuration.passkeys.ceremonyLifetime),
            auditRetention: configuration.auditRetention, familyLifetime: configuration.tokens.refreshTokenAbsoluteLifetime, logger: logger
        )]
        if let source = routes.metadata { services.append(MetadataRefreshService(source: source, logger: logger)) }
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
        let toldOfLogouts = routes.clients.all.filter { $0.backchannelLogoutURI != nil }
        if !toldOfLogouts.isEmpty { services.append(BackchannelLogoutSenderService(
            store: routes.storage, clients: routes.clients, tokens: routes.tokens,
            policy: WebhookAddressPolicy(allowed: configuration.webhooks.allowPrivateNetworks), clock: clock, logger: logger,
            wakeUps: OutboxPump.wakeUps(from: routes.storage.securityEvents, kinds: BackchannelLogoutSenderService.sessionEnds)
        )) }
        if let listener = configuration.admin.listener {
            services.append(try adminListener(routes.admin, host: listener.host, port: listener.port, configuration: configuration, logger: logger))
        }
        if let metrics, let listener = configuration.metrics {
            MetricsListener.count(routes.storage.securityEvents)
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
        let storage = try await openStorage(configuration, logger: logger)
        // From now on each subscribed event writes its deliveries in its own transaction.
        try await storage.replaceWebhookSubscriptions(Dictionary(configuration.webhooks.endpoints.map { ($0.id, $0.auditKinds) }) { first, _ in first })
        let anchors = try TrustAnchorLoader.load(configuration.passkeys.trustAnchorFiles)
        let revocationLists = try TrustAnchorLoader.loadRevocationLists(configuration.passkeys.revocationListFiles)
        // The FIDO metadata BLOB, validated before anything is served (exit 78 when it fails).
        let metadata = try configuration.passkeys.metadata.map { settings throws(ConfigurationError) in
            try MetadataSource.make(settings, storage: storage, clock: clock)
        }
        try await metadata?.start(logger: logger)
        var names = try AuthenticatorNamesLoader.load(file: configuration.authenticatorNamesFile)
        if let metadata { names = names.consulting(metadata.metadata) }

        let verifier = WebAuthnVerifier(policy: RelyingPartyPolicy(
            relyingPartyIDs: [configuration.relyingParty.id],
            origins: OriginPolicy(
                configuration.allowedOrigins,
                androidPackageNames: configuration.association.androidPackagesByOrigin,
                sourceDescription: LatchkeyConfiguration.originSourceDescription
            ),
            keyPolicy: KeyPolicy(allowsLegacyRS1ForTPM: configuration.passkeys.allowsLegacyRS1),
            attestation: AttestationPolicy(
                trustAnchors: anchors, revocationLists: revocationLists, requirement: configuration.passkeys.attestationRequirement
            ),
            // The verifier decides what a counter that did not increase means (its one owner);
            // IdentityCore records the regression either way.
            signCountPolicy: configuration.passkeys.signCountPolicy,
            registration: RegistrationPolicy(
                allowedAAGUIDs: configuration.passkeys.allowedAAGUIDs,
                deniedAAGUIDs: configuration.passkeys.deniedAAGUIDs,
                requiresDeviceBound: configuration.passkeys.requiresDeviceBound
            )
        ))
        let tokenConfiguration = TokenConfiguration(
            issuer: configuration.server.publicURL,
            accessTokenLifetime: configuration.tokens.accessTokenLifetime,
            idTokenLifetime: configuration.tokens.idTokenLifetime,
            refreshTokenLifetime: configuration.tokens.refreshTokenLifetime,
            refreshTokenAbsoluteLifetime: configuration.tokens.refreshTokenAbsoluteLifetime,
            apiAudiences: configuration.tokens.audiences,
            accessTokenAlgorithms: configuration.tokens.accessTokenAlgorithms
        )
        let keyStore = try await keyStore(configuration, storage: storage, random: random, logger: logger)
        let keys = SigningKeyRing(store: keyStore, clock: clock, random: random, publicationGrace: tokenConfiguration.longestSignedTokenLifetime)
        try await keys.prepare()
        let tokens = TokenService(
            configuration: tokenConfiguration, keys: keys, users: storage, refreshTokens: storage, audit: storage, clock: clock, random: random,
            securityEvents: storage.securityEvents
        )
        let limits = configuration.rateLimits
        // Adding or removing a way to sign in needs a recent sign-in; the services that do
        // it hold the rule, for every face.
        let sensitiveActions = SensitiveActions(maximumAge: configuration.passkeys.sensitiveActionMaxAge, clock: clock)
        let rateLimits = RateLimits(
            startsPerWindow: limits.startsPerMinute, finishesPerWindow: limits.finishesPerMinute,
            identifierAttemptsPerWindow: limits.identifierAttemptsPerMinute, failuresPerWindow: limits.failuresPerMinute,
            ipv6PrefixLength: limits.ipv6PrefixLength, store: storage, clock: clock,
            refused: measured ? MetricsListener.rateLimitRefusals() : nil
        )
        // Read once, at start-up, so that no request reads them.
        let secrets = try await InstanceSecrets.load(from: keyStore, random: random)
        let passkeys = PasskeyService(
            configuration: PasskeyConfiguration(
                relyingPartyID: configuration.relyingParty.id,
                relyingPartyName: configuration.relyingParty.name,
                ceremonyLifetime: configuration.passkeys.ceremonyLifetime,
                userVerification: configuration.passkeys.userVerification,
                signupIdentifiers: Set(configuration.passkeys.signupIdentifiers),
                attestationConveyance: configuration.passkeys.asksForAttestation ? "direct" : nil
            ),
            verifier: verifier, storage: storage, tokens: tokens,
            secrets: secrets, clock: clock, random: random,
            metadata: metadata?.metadata,
            openCeremonies: measured ? MetricsListener.openCeremonies() : nil,
            rateLimits: rateLimits,
            sensitiveActions: sensitiveActions
        )
        try await passkeys.refreshDecoys()
        let clients = ClientRegistry(configuration.clients.map {
            OAuthClient(
                clientID: $0.id, name: $0.name, secret: $0.secret, grantTypes: Set($0.grantTypes), redirectURIs: $0.redirectURIs,
                allowedScopes: $0.allowedScopes, isFirstParty: $0.isFirstParty, idTokenSigningAlgorithm: $0.idTokenSigningAlgorithm,
                postLogoutRedirectURIs: $0.postLogoutRedirectURIs, allowedLogoutURLs: $0.allowedLogoutURLs, backchannelLogoutURI: $0.backchannelLogoutURI
            )
        })
        // From now on a session of these clients that ends writes a notice in its own transaction.
        try await storage.replaceBackchannelLogoutClients(Set(clients.all.filter { $0.backchannelLogoutURI != nil }.map(\.clientID)))
        let accounts = AccountService(storage: storage, clock: clock, sensitiveActions: sensitiveActions)
        let authorization = AuthorizationService(clients: clients, tokens: tokens, storage: storage, clock: clock, random: random)
        let passwords = PasswordService(storage: storage, clock: clock, random: random, rateLimits: rateLimits, sensitiveActions: sensitiveActions)
        let mail = MailSetup(
            configuration.email, storage: storage, serviceName: configuration.relyingParty.name, sealing: configuration.secrets.keyEncryption, clock: clock,
            random: random, logger: logger
        )
        let recovery = AccountRecoveryService(
            storage: storage, mailer: mail.mailer, secrets: secrets, settings: configuration.verification, clock: clock, random: random, rateLimits: rateLimits,
            sensitiveActions: sensitiveActions
        )
        let hostedPages = HostedPages(
            passkeys: passkeys, accounts: accounts, passwords: passwords, authorization: authorization,
            logout: LogoutService(clients: clients, tokens: tokens), recovery: recovery, authenticatorNames: names,
            publicURL: configuration.server.publicURL, maximumBodyBytes: configuration.maximumBodyBytes,
            sessions: BrowserSessionService(store: storage, audit: storage, clock: clock, random: random, lifetime: configuration.hostedPages.sessionLifetime),
            relyingPartyID: configuration.relyingParty.id,
            relyingPartyName: configuration.relyingParty.name,
            signupIdentifiers: Set(configuration.passkeys.signupIdentifiers),
            defaultRegion: configuration.hostedPages.defaultRegion,
            publicOrigin: ConfigurationLoader.originOf(configuration.server.publicURL),
            random: random
        )

        // Which face answers a request that reaches no face's routes, by the paths each serves.
        var envelopes = FaceEnvelopes()
        envelopes.claim("/me/v1/", MyAccountErrors())
        envelopes.claim("/ui/", HostedPageErrors())
        if configuration.faces.kratos.enabled {
            envelopes.claim("/self-service/", KratosErrors())
            envelopes.claim("/sessions", KratosErrors())
        }
        if configuration.faces.idaas.enabled { envelopes.claim("/api/web/", IDaaSErrors()) }
        envelopes.claim("/admin/v1/", AdminAPIErrors())

        // HEAD answers on every GET route, as the GET without its body (RFC 9110 §9.3.2),
        // except where a GET creates something (see StateCreatingRoutesMiddleware).
        let router = Router(options: .autoGenerateHeadEndpoints)
        router.add(middleware: HostRequiredMiddleware(envelopes: envelopes))
        router.add(middleware: RequestOriginMiddleware())
        router.add(middleware: NotFoundMiddleware(pages: hostedPages, envelopes: envelopes))
        if measured { router.add(middleware: MetricsMiddleware()) }
        if configuration.logging.logsRequests { router.add(middleware: RequestLogMiddleware()) }
        router.add(middleware: CORSMiddleware(allowedOrigins: configuration.corsOrigins, credentialedOrigins: configuration.browserFlowOrigins))
        router.addAuthenticationAPI(AuthenticationAPIServices(
            passkeys: passkeys, tokens: tokens, clients: clients, authorization: authorization, passwords: passwords, recovery: recovery,
            maximumBodyBytes: configuration.maximumBodyBytes
        ))
        router.addOpenIDConnect(OpenIDConnectServices(tokens: tokens, accounts: accounts))
        router.addMyAccountAPI(MyAccountServices(
            passkeys: passkeys, accounts: accounts, passwords: passwords, recovery: recovery, tokens: tokens, authenticatorNames: names,
            publicURL: configuration.server.publicURL, maximumBodyBytes: configuration.maximumBodyBytes
        ))
        if configuration.faces.kratos.enabled {
            let flows = InteractiveFlowService(
                passkeys: passkeys, accounts: accounts, store: storage, clock: clock, random: random, lifespan: configuration.faces.kratos.flowLifespan
            )
            let sessions = BrowserSessionService(
                store: storage, audit: storage, clock: clock, random: random, lifetime: configuration.faces.kratos.sessionLifespan,
                tokenFormat: .prefixedAlphanumeric("ory_st_"), clientID: OAuthClient.selfService.clientID
            )
            router.addKratosAPI(KratosServices(
                flows: flows, sessions: sessions, accounts: accounts, recovery: recovery, authenticatorNames: names,
                publicURL: configuration.server.publicURL, browserOrigins: configuration.browserFlowOrigins, random: random,
                maximumBodyBytes: configuration.maximumBodyBytes
            ))
        }
        if configuration.faces.idaas.enabled {
            let idaas = configuration.faces.idaas
            router.addIDaaS(IDaaSServices(
                passkeys: passkeys, accounts: accounts,
                administration: AdministrationService(
                    applications: idaas.adminApplications.map { AdminApplication(id: $0.id, name: $0.name, sharedSecret: $0.sharedSecret) },
                    store: storage, audit: storage, clock: clock, random: random, tokenLifetime: idaas.adminTokenLifespan
                ),
                sessions: BrowserSessionService(
                    store: storage, audit: storage, clock: clock, random: random, lifetime: idaas.sessionLifespan,
                    tokenFormat: .prefixedAlphanumeric(IDaaSServices.sessionTokenPrefix), clientID: "latchkey:idaas"
                ),
                clients: clients, relyingPartyID: configuration.relyingParty.id, authenticatorNames: names, clock: clock,
                maximumBodyBytes: configuration.maximumBodyBytes
            ))
        }
        let admin = AdminAPIServices(
            admin: AdminService(storage: storage, clock: clock, random: random), recovery: recovery, publicURL: configuration.server.publicURL,
            clients: clients, authenticatorNames: names,
            isPublic: configuration.admin.isPublic, webhookEndpoints: configuration.webhooks.endpoints,
            metadata: metadata.map { ($0.settings.source, $0.metadata) }
        )
        // On a listener of its own when configured (see adminListener), else here.
        if configuration.admin.listener == nil { try router.addAdminAPI(admin) }
        router.addWellKnownDocuments(WellKnownDocumentsBuilder.build(configuration))
        router.addHostedPages(hostedPages)
        router.get("/health") { _, _ in Response(status: .ok, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: "ok\n"))) }
        router.get("/ready") { _, _ in await Readiness.check(keys: storage) }

        return Routes(
            router: router, storage: storage, authenticatorNames: names, metadata: metadata, passkeys: passkeys, mail: mail, recovery: recovery, admin: admin,
            tokens: tokens, clients: clients
        )
    }

    /// Every face's routes and what they write to.
    public struct Routes {
        /// The router with every face.
        public let router: Router<BasicRequestContext>
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
    }

    /// The Admin API on a listener of its own (`admin.host`, `admin.port`), so that it can
    /// stay off the public internet; the same address rule and keys apply.
    private static func adminListener(
        _ services: AdminAPIServices, host: String, port: Int, configuration: LatchkeyConfiguration, logger: Logger
    ) throws -> some ApplicationProtocol {
        let router = Router()
        var envelopes = FaceEnvelopes(fallback: AdminAPIErrors())
        envelopes.claim("/", AdminAPIErrors())
        router.add(middleware: HostRequiredMiddleware(envelopes: envelopes))
        router.add(middleware: RequestOriginMiddleware())
        // The router's own 404 for any other path, in the Admin API's envelope.
        router.add(middleware: ErrorRenderingMiddleware(AdminAPIErrors()))
        try router.addAdminAPI(services)
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
