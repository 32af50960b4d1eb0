import AppAssociation
import FaceFrame
import Foundation
import HostedUI
import IdentityCore
import Logging
import WebAuthn

/// Every core service, made once over the configured database: what the faces are thin
/// adapters over, and what the background services read. Made by ``make(_:clock:random:logger:measured:)``,
/// in the order each needs the others.
struct LatchkeyServices {
    let storage: any ServerStorage
    let names: AuthenticatorNames
    let metadata: MetadataSource?
    let tokens: TokenService
    let clients: ClientRegistry
    let passkeys: PasskeyService
    let accounts: AccountService
    /// Where an account is signed in and what happened to it, for its owner.
    let accountCenter: AccountCenter
    let authorization: AuthorizationService
    let passwords: PasswordService
    let mail: MailSetup
    let recovery: AccountRecoveryService
    /// The daily rollups of the console's overview and `GET /admin/v1/stats`.
    let stats: StatsService
    /// The Shared Signals transmitter.
    let signals: SharedSignalsService
    let clock: any WallClock
    let random: any RandomSource

    /// Opens the database and makes every service.
    static func make(
        _ configuration: LatchkeyConfiguration, clock: any WallClock, random: any RandomSource, logger: Logger, measured: Bool
    ) async throws -> LatchkeyServices {
        let storage = try await LatchkeyApplication.openStorage(configuration, logger: logger)
        // From now on each subscribed event writes its deliveries in its own transaction.
        try await storage.replaceWebhookSubscriptions(Dictionary(configuration.webhooks.endpoints.map { ($0.id, $0.auditKinds) }) { first, _ in first })
        let verifier = try makeVerifier(configuration)
        // The FIDO metadata BLOB, validated before anything is served (exit 78 when it fails).
        let metadata = try configuration.passkeys.metadata.map { settings throws(ConfigurationError) in
            try MetadataSource.make(settings, storage: storage, clock: clock)
        }
        try await metadata?.start(logger: logger)
        var names = try AuthenticatorNamesLoader.load(file: configuration.authenticatorNamesFile)
        if let metadata { names = names.consulting(metadata.metadata) }

        let keyStore = try await LatchkeyApplication.keyStore(configuration, storage: storage, random: random, logger: logger)
        let tokens = try await makeTokens(configuration, storage: storage, keyStore: keyStore, clock: clock, random: random)
        // Adding or removing a way to sign in needs a recent sign-in; the services that do
        // it hold the rule, for every face.
        let sensitiveActions = SensitiveActions(maximumAge: configuration.passkeys.sensitiveActionMaxAge, clock: clock)
        let limits = configuration.rateLimits
        let rateLimits = RateLimits(
            startsPerWindow: limits.startsPerMinute, finishesPerWindow: limits.finishesPerMinute,
            identifierAttemptsPerWindow: limits.identifierAttemptsPerMinute, failuresPerWindow: limits.failuresPerMinute,
            ipv6PrefixLength: limits.ipv6PrefixLength, store: storage, clock: clock,
            refused: measured ? MetricsListener.rateLimitRefusals() : nil
        )
        // Read once, at start-up, so that no request reads them.
        let secrets = try await InstanceSecrets.load(from: keyStore, random: random)
        let ceremonyStarts = CeremonyStarts()
        let passkeys = PasskeyService(
            configuration: PasskeyConfiguration(
                relyingPartyID: configuration.relyingParty.id,
                relyingPartyName: configuration.relyingParty.name,
                ceremonyLifetime: configuration.passkeys.ceremonyLifetime,
                signupIdentifiers: Set(configuration.passkeys.signupIdentifiers),
                attestationConveyance: configuration.passkeys.asksForAttestation ? "direct" : nil,
                defaultPolicy: configuration.passkeys.policy,
                clientPolicies: Dictionary(
                    configuration.clients.compactMap { client in client.passkeys.map { (client.id, $0.applied(to: configuration.passkeys.policy)) } },
                    uniquingKeysWith: { first, _ in first }
                )
            ),
            verifier: verifier, storage: storage, tokens: tokens,
            secrets: secrets, clock: clock, random: random,
            metadata: metadata?.metadata,
            openCeremonies: measured ? MetricsListener.openCeremonies() : nil,
            rateLimits: rateLimits,
            sensitiveActions: sensitiveActions,
            ceremonyStarts: ceremonyStarts
        )
        try await passkeys.refreshDecoys()
        let clients = makeClients(configuration)
        // From now on a session of these clients that ends writes a notice in its own transaction.
        try await storage.replaceBackchannelLogoutClients(Set(clients.all.filter { $0.backchannelLogoutURI != nil }.map(\.clientID)))
        var email = configuration.email
        let branding = configuration.branding
        email.templates.branding = MailBranding(
            logoURL: branding.logoURL(publicURL: PublicURL.trimmed(configuration.server.publicURL)), primaryColor: branding.primaryColor?.hex,
            supportURL: branding.supportURL, supportEmail: branding.supportEmail
        )
        email.templates.catalog = configuration.strings
        email.templates.defaultLanguage = branding.defaultLanguage
        let mail = MailSetup(
            email, storage: storage, serviceName: branding.name ?? configuration.relyingParty.name, sealing: configuration.secrets.keyEncryption, clock: clock,
            random: random, logger: logger
        )
        return LatchkeyServices(
            storage: storage, names: names, metadata: metadata, tokens: tokens, clients: clients, passkeys: passkeys,
            accounts: AccountService(storage: storage, clock: clock, sensitiveActions: sensitiveActions),
            accountCenter: AccountCenter(storage: storage, clock: clock, sensitiveActions: sensitiveActions),
            authorization: AuthorizationService(clients: clients, tokens: tokens, storage: storage, clock: clock, random: random),
            passwords: PasswordService(storage: storage, clock: clock, random: random, rateLimits: rateLimits, sensitiveActions: sensitiveActions),
            mail: mail,
            recovery: AccountRecoveryService(
                storage: storage, mailer: mail.mailer, secrets: secrets, settings: configuration.verification, clock: clock, random: random,
                rateLimits: rateLimits, sensitiveActions: sensitiveActions
            ),
            stats: StatsService(store: storage, clock: clock, starts: ceremonyStarts),
            signals: SharedSignalsService(storage: storage, tokens: tokens, clock: clock, random: random, issuer: tokens.issuer),
            clock: clock, random: random
        )
    }

    /// The one WebAuthn verifier every face's ceremonies go through, with the trust anchors
    /// and revocation lists loaded.
    private static func makeVerifier(_ configuration: LatchkeyConfiguration) throws -> WebAuthnVerifier {
        WebAuthnVerifier(policy: RelyingPartyPolicy(
            relyingPartyIDs: [configuration.relyingParty.id],
            origins: OriginPolicy(
                configuration.allowedOrigins,
                androidPackageNames: configuration.association.androidPackagesByOrigin,
                sourceDescription: LatchkeyConfiguration.originSourceDescription
            ),
            keyPolicy: KeyPolicy(allowsLegacyRS1ForTPM: configuration.passkeys.allowsLegacyRS1),
            attestation: AttestationPolicy(
                trustAnchors: try TrustAnchorLoader.load(configuration.passkeys.trustAnchorFiles),
                revocationLists: try TrustAnchorLoader.loadRevocationLists(configuration.passkeys.revocationListFiles),
                requirement: configuration.passkeys.attestationRequirement
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
    }

    /// The token service, its signing keys ready (the first ones made on a new database).
    private static func makeTokens(
        _ configuration: LatchkeyConfiguration, storage: any ServerStorage, keyStore: SealedKeyStore, clock: any WallClock, random: any RandomSource
    ) async throws -> TokenService {
        let tokenConfiguration = TokenConfiguration(
            issuer: configuration.server.publicURL,
            accessTokenLifetime: configuration.tokens.accessTokenLifetime,
            idTokenLifetime: configuration.tokens.idTokenLifetime,
            refreshTokenLifetime: configuration.tokens.refreshTokenLifetime,
            refreshTokenAbsoluteLifetime: configuration.tokens.refreshTokenAbsoluteLifetime,
            apiAudiences: configuration.tokens.audiences,
            accessTokenAlgorithms: configuration.tokens.accessTokenAlgorithms
        )
        let keys = SigningKeyRing(store: keyStore, clock: clock, random: random, publicationGrace: tokenConfiguration.longestSignedTokenLifetime)
        try await keys.prepare()
        return TokenService(
            configuration: tokenConfiguration, keys: keys, users: storage, refreshTokens: storage, audit: storage, clock: clock, random: random,
            securityEvents: storage.securityEvents
        )
    }

    /// The configured clients.
    private static func makeClients(_ configuration: LatchkeyConfiguration) -> ClientRegistry {
        ClientRegistry(configuration.clients.map {
            OAuthClient(
                clientID: $0.id, name: $0.name, secret: $0.secret, grantTypes: Set($0.grantTypes), redirectURIs: $0.redirectURIs,
                allowedScopes: $0.allowedScopes, isFirstParty: $0.isFirstParty, idTokenSigningAlgorithm: $0.idTokenSigningAlgorithm,
                postLogoutRedirectURIs: $0.postLogoutRedirectURIs, allowedLogoutURLs: $0.allowedLogoutURLs, backchannelLogoutURI: $0.backchannelLogoutURI
            )
        })
    }

    /// A session service for one kind of session: the hosted pages' cookie, or a face's
    /// session tokens.
    func browserSessions(lifetime: TimeInterval, tokenFormat: BrowserSessionService.TokenFormat = .base64URL, clientID: String = OAuthClient.hostedPages.clientID)
        -> BrowserSessionService
    {
        BrowserSessionService(store: storage, audit: storage, clock: clock, random: random, lifetime: lifetime, tokenFormat: tokenFormat, clientID: clientID)
    }
}
