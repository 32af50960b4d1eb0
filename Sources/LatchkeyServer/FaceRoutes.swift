import AdminAPI
import FaceFrame
import HTTPAPI
import HostedUI
import Hummingbird
import IDaaSFace
import IdentityCore
import KratosFace
import NIOCore

extension Router where Context == FaceRequestContext {
    /// Adds every configured face over the services, with the middleware every request
    /// passes, and the health and readiness probes.
    /// - Returns: The Admin API's services and the operator console, served here or on a
    ///   listener of their own.
    func addFaces(_ services: LatchkeyServices, configuration: LatchkeyConfiguration, measured: Bool) throws -> (admin: AdminAPIServices, console: OperatorConsole) {
        let hostedPages = HostedPages(
            passkeys: services.passkeys, accounts: services.accounts, accountCenter: services.accountCenter, passwords: services.passwords,
            authorization: services.authorization,
            logout: LogoutService(clients: services.clients, tokens: services.tokens), recovery: services.recovery, authenticatorNames: services.names,
            publicURL: configuration.server.publicURL, maximumBodyBytes: configuration.maximumBodyBytes,
            sessions: services.browserSessions(lifetime: configuration.hostedPages.sessionLifetime),
            relyingPartyID: configuration.relyingParty.id,
            relyingPartyName: configuration.relyingParty.name,
            signupIdentifiers: Set(configuration.passkeys.signupIdentifiers),
            defaultRegion: configuration.hostedPages.defaultRegion,
            branding: configuration.branding,
            catalog: configuration.strings,
            publicOrigin: ConfigurationLoader.originOf(configuration.server.publicURL),
            random: services.random
        )
        let faces = Self.faces(configuration)
        let envelopes = FaceEnvelopes(faces)
        // First, so that every other middleware's work (and every refusal) is in the span.
        if configuration.telemetry != nil { add(middleware: RequestTracingMiddleware()) }
        add(middleware: HostRequiredMiddleware(envelopes: envelopes))
        add(middleware: RequestOriginMiddleware(faces: faces))
        add(middleware: NotFoundMiddleware(pages: hostedPages, envelopes: envelopes))
        if measured { add(middleware: MetricsMiddleware()) }
        if configuration.logging.logsRequests { add(middleware: RequestLogMiddleware()) }
        add(middleware: CORSMiddleware(allowedOrigins: configuration.corsOrigins, credentialedOrigins: configuration.browserFlowOrigins))
        addAuthenticationAPI(AuthenticationAPIServices(
            passkeys: services.passkeys, tokens: services.tokens, clients: services.clients, authorization: services.authorization,
            passwords: services.passwords, recovery: services.recovery, maximumBodyBytes: configuration.maximumBodyBytes
        ))
        addOpenIDConnect(OpenIDConnectServices(tokens: services.tokens, accounts: services.accounts))
        addMyAccountAPI(MyAccountServices(
            passkeys: services.passkeys, accounts: services.accounts, passwords: services.passwords, recovery: services.recovery, tokens: services.tokens,
            authenticatorNames: services.names, publicURL: configuration.server.publicURL, maximumBodyBytes: configuration.maximumBodyBytes
        ))
        if configuration.faces.kratos.enabled { addKratosFace(services, configuration: configuration) }
        if configuration.faces.idaas.enabled { addIDaaSFace(services, configuration: configuration) }
        let admin = AdminAPIServices(
            admin: AdminService(storage: services.storage, clock: services.clock, random: services.random), recovery: services.recovery,
            importer: LatchkeyApplication.importer(configuration, storage: services.storage, clock: services.clock, random: services.random),
            publicURL: configuration.server.publicURL, clients: services.clients, authenticatorNames: services.names,
            isPublic: configuration.admin.isPublic, webhookEndpoints: configuration.webhooks.endpoints,
            metadata: services.metadata.map { ($0.settings.source, $0.metadata) }, stats: services.stats
        )
        let console = OperatorConsole(
            admin: admin.admin, stats: services.stats, passkeys: services.passkeys,
            sessions: services.browserSessions(
                lifetime: OperatorConsole.sessionLifetime, tokenFormat: .prefixedAlphanumeric(OperatorConsole.tokenPrefix), clientID: OAuthClient.console.clientID
            ),
            recovery: services.recovery, names: services.names, webhookEndpoints: configuration.webhooks.endpoints,
            metadata: services.metadata.map { ($0.settings.source, $0.metadata) }, publicURL: configuration.server.publicURL,
            siteName: configuration.branding.name ?? configuration.relyingParty.name, isPublic: configuration.admin.isPublic,
            sensitiveActions: SensitiveActions(maximumAge: configuration.passkeys.sensitiveActionMaxAge, clock: services.clock),
            maximumBodyBytes: configuration.maximumBodyBytes, clock: services.clock, random: services.random
        )
        // On a listener of their own when configured (see adminListener), else here.
        if configuration.admin.listener == nil {
            try addAdminAPI(admin)
            addConsole(console)
        }
        // Receivers are other services, wherever they are: on this listener, with their keys.
        addSharedSignals(SharedSignalsServices(signals: services.signals, admin: admin.admin, maximumBodyBytes: configuration.maximumBodyBytes))
        addWellKnownDocuments(WellKnownDocumentsBuilder.build(configuration))
        addHostedPages(hostedPages)
        let storage = services.storage
        get("/health") { _, _ in Response(status: .ok, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: "ok\n"))) }
        get("/ready") { _, _ in await Readiness.check(keys: storage) }
        return (admin, console)
    }

    /// The faces this server serves: which names a request's face in the audit trail, and
    /// which answers a request that reaches no face's routes, by the paths each serves.
    private static func faces(_ configuration: LatchkeyConfiguration) -> [Face] {
        var faces: [Face] = [.authenticationAPI, .openIDConnect, .myAccount, .hostedPages, .adminAPI, .sharedSignals]
        if configuration.faces.kratos.enabled { faces.append(.kratos) }
        if configuration.faces.idaas.enabled { faces.append(.idaas) }
        return faces
    }

    private func addKratosFace(_ services: LatchkeyServices, configuration: LatchkeyConfiguration) {
        let kratos = configuration.faces.kratos
        addKratosAPI(KratosServices(
            flows: InteractiveFlowService(
                passkeys: services.passkeys, accounts: services.accounts, store: services.storage, clock: services.clock, random: services.random,
                lifespan: kratos.flowLifespan
            ),
            sessions: services.browserSessions(
                lifetime: kratos.sessionLifespan, tokenFormat: .prefixedAlphanumeric("ory_st_"), clientID: OAuthClient.selfService.clientID
            ),
            accounts: services.accounts, recovery: services.recovery, authenticatorNames: services.names,
            publicURL: configuration.server.publicURL, browserOrigins: configuration.browserFlowOrigins, random: services.random,
            maximumBodyBytes: configuration.maximumBodyBytes
        ))
    }

    private func addIDaaSFace(_ services: LatchkeyServices, configuration: LatchkeyConfiguration) {
        let idaas = configuration.faces.idaas
        addIDaaS(IDaaSServices(
            passkeys: services.passkeys, accounts: services.accounts,
            administration: AdministrationService(
                applications: idaas.adminApplications.map { AdminApplication(id: $0.id, name: $0.name, sharedSecret: $0.sharedSecret) },
                store: services.storage, audit: services.storage, clock: services.clock, random: services.random, tokenLifetime: idaas.adminTokenLifespan
            ),
            sessions: services.browserSessions(
                lifetime: idaas.sessionLifespan, tokenFormat: .prefixedAlphanumeric(IDaaSServices.sessionTokenPrefix), clientID: "latchkey:idaas"
            ),
            clients: services.clients, relyingPartyID: configuration.relyingParty.id, authenticatorNames: services.names, clock: services.clock,
            maximumBodyBytes: configuration.maximumBodyBytes
        ))
    }
}
