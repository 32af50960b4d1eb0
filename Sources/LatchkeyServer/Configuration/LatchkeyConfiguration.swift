public import AppAssociation
public import HostedUI
public import Foundation
public import Localization
public import StoragePostgres
public import StorageSQLite
public import IdentityCore
public import WebAuthn
public import Mail

/// Everything `latchkey serve` runs with, validated. Built by ``ConfigurationLoader`` from
/// defaults, a YAML file, `LATCHKEY_*` environment variables and command-line flags, in
/// that order of increasing precedence.
public struct LatchkeyConfiguration: Sendable {
    /// Where the server listens and how it is reached.
    public struct Server: Sendable, Equatable {
        /// The address to bind.
        public var host: String
        /// The port to bind; 0 picks a free one.
        public var port: Int
        /// The URL clients use to reach the server, without a trailing slash. It names the
        /// token issuer and the My Account audience.
        public var publicURL: String
        /// How long a connection may stay silent (between requests, or in the middle of one)
        /// before it is closed.
        public var idleTimeout: TimeInterval = 30
        /// Open connections beyond which new ones are closed at once.
        public var maximumConnections = 768
        /// Open connections one client address may hold.
        public var maximumConnectionsPerAddress = 128
        /// `trusted_proxies`: peers whose `X-Forwarded-For` names the client.
        public var trustedProxies: [AddressRange] = []
    }

    /// Where data is stored.
    public enum Database: Sendable, Equatable, CustomStringConvertible {
        /// A SQLite file, and how hard a commit tries to reach the disk
        /// (`sqlite:PATH?synchronous=full`; `normal` by default).
        case sqlite(path: String, durability: SQLiteStorage.Durability = .normal)
        /// A PostgreSQL database, shared by any number of instances.
        case postgres(PostgresSettings)

        /// Never with the password.
        public var description: String {
            switch self {
            case .sqlite(let path, .normal): return "sqlite:\(path)"
            case .sqlite(let path, .full): return "sqlite:\(path)?synchronous=full"
            case .postgres(let settings): return settings.redacted
            }
        }
    }

    /// The WebAuthn relying party.
    public struct RelyingParty: Sendable, Equatable {
        /// The RP ID passkeys are scoped to.
        public var id: String
        /// The display name.
        public var name: String
        /// The origins ceremonies may come from: web origins and
        /// `android:apk-key-hash:` origins. App and related origins are added to these;
        /// see ``LatchkeyConfiguration/allowedOrigins``.
        public var origins: [String]
        /// Web origins on other domains that may use the RP ID, served in
        /// `/.well-known/webauthn`.
        public var relatedOrigins: [String]
        /// The enroll and manage pages, served in `/.well-known/passkey-endpoints`.
        public var passkeyEndpoints: PasskeyEndpoints
    }

    /// A registered application.
    public struct Client: Sendable, Equatable {
        public var id: String
        public var name: String
        public var secret: String?
        public var grantTypes: [GrantType]
        /// Where the authorization endpoint may send codes.
        public var redirectURIs: [String]
        /// The client's Apple platform app, if it has one.
        public var ios: AppleApp?
        /// The client's Android app, if it has one.
        public var android: AndroidApp?
        /// `allowed_scopes`: the scopes it may receive; `nil` allows every scope.
        public var allowedScopes: Set<String>? = nil
        /// `first_party`: the deployer's own app, served by `/authorize` without a consent page.
        public var isFirstParty: Bool = false
        /// `id_token_signed_response_alg`: `RS256` (the default), `PS256` or `ES256`.
        public var idTokenSigningAlgorithm: SigningAlgorithm = .rs256
        /// `post_logout_redirect_uris`: where RP-Initiated Logout may return.
        public var postLogoutRedirectURIs: [String] = []
        /// `allowed_logout_urls`: where Auth0's `/v2/logout` may return.
        public var allowedLogoutURLs: [String] = []
        /// `backchannel_logout_uri`: where a logout token is posted when one of its sessions ends.
        public var backchannelLogoutURI: URL? = nil
        /// `passkeys`: this application's passkey policy keys, over the global ones.
        public var passkeys: PasskeyPolicyKeys? = nil
    }

    /// Token lifetimes and API audiences.
    public struct Tokens: Sendable, Equatable {
        public var accessTokenLifetime: TimeInterval
        public var idTokenLifetime: TimeInterval
        public var refreshTokenLifetime: TimeInterval
        /// `refresh_token_absolute_lifetime`: how long refreshing can keep a session alive.
        public var refreshTokenAbsoluteLifetime: TimeInterval
        /// The relying party's own APIs that clients may request tokens for.
        public var audiences: [String]
        /// `audiences[].signing_alg`: what an API's access tokens are signed with, when not ES256.
        public var accessTokenAlgorithms: [String: SigningAlgorithm] = [:]
    }

    /// The hosted sign-up, sign-in and account pages.
    public struct HostedPages: Sendable, Equatable {
        /// How long a browser stays signed in.
        public var sessionLifetime: TimeInterval
        /// `default_region`: the country (ISO 3166-1 alpha-2) whose code a phone number
        /// typed without one gets; `nil` asks for the country code.
        public var defaultRegion: String?
    }

    /// The vendor-compatible API faces.
    public struct Faces: Sendable, Equatable {
        /// The Ory Kratos face.
        public struct Kratos: Sendable, Equatable {
            /// Whether `/self-service/*` and `/sessions/whoami` are served.
            public var enabled: Bool
            /// How long a self-service flow (and its challenge) accepts submissions.
            public var flowLifespan: TimeInterval
            /// How long a session token lasts.
            public var sessionLifespan: TimeInterval
        }

        /// The Entrust IDaaS face.
        public struct IDaaS: Sendable, Equatable {
            /// An Administration API application.
            public struct AdminApplication: Sendable, Equatable {
                /// The ID it authenticates with.
                public var id: String
                /// A name for logs and audit events.
                public var name: String
                /// Its shared secret (at least 16 characters).
                public var sharedSecret: String

                /// An entry of `faces.idaas.admin_applications`, made in code.
                public init(id: String, name: String, sharedSecret: String) {
                    self.id = id
                    self.name = name
                    self.sharedSecret = sharedSecret
                }
            }

            /// Whether `/api/web/*` is served.
            public var enabled: Bool
            /// The applications that may call the Administration API.
            public var adminApplications: [AdminApplication]
            /// How long an administration token lasts.
            public var adminTokenLifespan: TimeInterval
            /// How long a signed-in user's token lasts.
            public var sessionLifespan: TimeInterval
        }

        /// The Ory Kratos face.
        public var kratos: Kratos
        /// The Entrust IDaaS face.
        public var idaas: IDaaS
    }

    /// Passkey ceremonies and verification policy.
    public struct Passkeys: Sendable {
        public var ceremonyLifetime: TimeInterval
        public var userVerification: UserVerificationRequirement
        public var signCountPolicy: SignCountPolicy
        public var signupIdentifiers: [ProfileValidation.IdentifierKind]
        public var attestationRequirement: AttestationRequirement
        /// PEM files of trust anchors, per attestation format.
        public var trustAnchorFiles: [AttestationFormat: [String]]
        /// `attestation.crl_files`: revocation lists (PEM or DER) applied to attestation paths.
        public var revocationListFiles: [String]
        /// Whether RS1 from legacy TPMs is accepted.
        public var allowsLegacyRS1: Bool
        /// `allowed_aaguids`: when set, only these models may register.
        public var allowedAAGUIDs: Set<AAGUID>?
        /// `denied_aaguids`: models that may not register.
        public var deniedAAGUIDs: Set<AAGUID>
        /// `require_device_bound`: refuse backup-eligible (synced) passkeys.
        public var requiresDeviceBound: Bool
        /// `sensitive_action_max_age`: how recent a sign-in adding or removing a way to sign
        /// in needs.
        public var sensitiveActionMaxAge: TimeInterval = 15 * 60
        /// `attestation.metadata`: the FIDO Metadata Service, when `blob` is set.
        public var metadata: Metadata?
        /// The passkey policy of an application without `passkeys` of its own: `accept`,
        /// `aaguids_allowed`, `aaguids_blocked`, `user_verification`, `resident_key`,
        /// `algorithms` and `hints`, started from the older `require_device_bound`,
        /// `allowed_aaguids` and `denied_aaguids`.
        public var policy = PasskeyPolicy()

        /// Whether creation options ask for `direct` attestation: when registrations are judged
        /// by it (browsers strip attestation and zero the AAGUID under the default `none`).
        public var asksForAttestation: Bool {
            attestationRequirement == .trusted || metadata != nil || allowedAAGUIDs != nil || !deniedAAGUIDs.isEmpty
        }

        /// Where the FIDO metadata BLOB comes from and what it refuses.
        public struct Metadata: Sendable {
            /// `blob`: a file path or an https URL.
            public var source: String
            /// `root_certificate`: a PEM file replacing the bundled FIDO root.
            public var rootCertificateFile: String?
            /// `refresh`: how often the BLOB is fetched again.
            public var refresh: TimeInterval
            /// `refuse_statuses`.
            public var refusedStatuses: Set<String>

            /// Settings made outside a configuration file: `latchkey metadata --blob` with none configured.
            public init(source: String, rootCertificateFile: String?, refresh: TimeInterval, refusedStatuses: Set<String>) {
                self.source = source
                self.rootCertificateFile = rootCertificateFile
                self.refresh = refresh
                self.refusedStatuses = refusedStatuses
            }

            /// Whether the source is downloaded rather than read from a file.
            public var isURL: Bool { source.hasPrefix("https://") || source.hasPrefix("http://") }
        }
    }

    public var server: Server
    public var database: Database
    public var relyingParty: RelyingParty
    public var clients: [Client]
    public var tokens: Tokens
    public var passkeys: Passkeys
    /// The largest request body accepted, in bytes.
    public var maximumBodyBytes: Int
    /// `limits`: ceremony starts and finishes per client address per minute.
    public var rateLimits: RateLimits

    /// Per-address request limits; 0 turns one off.
    public struct RateLimits: Sendable {
        /// `ceremony_starts_per_minute`.
        public var startsPerMinute: Int
        /// `ceremony_finishes_per_minute`.
        public var finishesPerMinute: Int
        /// `identifier_attempts_per_minute`: sign-up starts, logins started for a username and
        /// password sign-ins naming one identifier, from any address.
        public var identifierAttemptsPerMinute: Int
        /// `ceremony_failures_per_minute`: failed finishes per client address before its
        /// finishes are refused for the rest of the window.
        public var failuresPerMinute: Int
        /// `ipv6_prefix_length`: how many leading bits of an IPv6 address are one client, for
        /// these limits and `server.max_connections_per_ip` (64: one host commonly holds a /64).
        public var ipv6PrefixLength: Int = 64
    }
    /// The `Cache-Control` of the association files and other well-known documents.
    public var wellKnownCacheControl: String
    /// The log level: trace, debug, info, notice, warning, error or critical.
    public var logLevel: String
    /// `logging`: the level, the line format and the request log.
    public var logging: Logging
    /// `audit.retention`: how long audit events are kept.
    public var auditRetention: TimeInterval = 90 * 86400
    /// `metrics`: where Prometheus metrics are served; `nil` (the key absent) turns them off.
    public var metrics: Metrics?

    /// `admin`: who may reach the Admin API (`/admin/v1/`).
    public var admin = Admin()

    /// `telemetry`: where traces, metrics and logs go over OTLP; `nil` turns them off.
    public var telemetry: Telemetry?

    /// OpenTelemetry's exporter.
    public struct Telemetry: Sendable {
        /// `otlp_endpoint`: the collector's OTLP/HTTP base address (each signal's path,
        /// `/v1/traces`, `/v1/metrics`, `/v1/logs`, is added), without a trailing slash.
        public var otlpEndpoint: String
        /// `service_name`, default `latchkey`: the resource's `service.name`.
        public var serviceName: String
        /// `sample_ratio`, from 0 to 1, default 1: the share of traces started here that are
        /// recorded. A request that arrives with a `traceparent` follows its caller's choice.
        public var sampleRatio: Double
        /// `headers`: sent with every export (a collector's API key, for example).
        public var headers: [(String, String)]
    }

    /// `webhooks`: where events are posted.
    public var webhooks = Webhooks()
    /// `branding`: the operator's name, images, colours and links on the hosted pages and
    /// in emails.
    public var branding = Branding()
    /// The words of the hosted pages and emails: the built-in languages, with
    /// `branding.strings_dir` laid over them.
    public var strings = StringCatalog.shared

    /// The webhooks' endpoints.
    public struct Webhooks: Sendable {
        /// `endpoints`.
        public var endpoints: [WebhookEndpoint] = []
        /// `allow_private_networks`: ranges of loopback, link-local or private addresses that
        /// deliveries may reach after all.
        public var allowPrivateNetworks: [AddressRange] = []

        /// No webhooks.
        public init() {}
    }

    /// Where the Admin API answers.
    public struct Admin: Sendable {
        /// `public`: admit callers on any address (the key still decides); otherwise only
        /// loopback addresses.
        public var isPublic = false
        /// `host` and `port`: a listener of the Admin API's own, instead of the server's.
        public var listener: Metrics?

        /// The defaults: the server's listener, loopback callers only.
        public init() {}
    }

    /// The metrics listener.
    public struct Metrics: Sendable {
        /// `host`, default 127.0.0.1.
        public var host: String
        /// `port`, default 9464; 0 picks a free one.
        public var port: Int
    }

    /// How the server logs.
    public struct Logging: Sendable {
        /// `level`.
        public var level: String
        /// `format`: `text` (swift-log's lines) or `json` (one object per line).
        public var format: String
        /// `requests`: one line per request at info level (otherwise at debug).
        public var logsRequests: Bool
    }
    /// A replacement for the bundled passkey provider names (AAGUID → name) file.
    public var authenticatorNamesFile: String?
    /// The hosted pages.
    public var hostedPages: HostedPages
    /// The vendor-compatible API faces.
    public var faces: Faces
    /// Where the configuration came from, for the start-up log.
    public var sources: [String]
    /// Values that work but are probably not what the operator meant, for the start-up log.
    public var warnings: [String]
    /// Where the database setting came from (`--database`, `LATCHKEY_DATABASE` or
    /// `database`), so that a database that cannot be opened is blamed on the right one.
    public var databaseSource: String = "database"
    /// `secrets`: the key-encryption key that seals the signing keys and instance secrets
    /// in the database, when one is configured.
    public var secrets = Secrets()
    /// `email`: how mail leaves; without `email.smtp_url` messages go to the log.
    public var email = Email()
    /// `verification`: the lifetimes and limits of emailed codes.
    public var verification = VerificationSettings()

    /// Outgoing mail.
    public struct Email: Sendable {
        /// The relay (`smtp_url`, `starttls`, `timeout`, `ca_file`); `nil` logs messages
        /// instead of sending them (the development mailer).
        public var smtp: SMTPSettings?
        /// `from`: the sender, `Name <address>`.
        public var from: MailAddress
        /// `reply_to`.
        public var replyTo: MailAddress?
        /// The templates, with any in `templates` (a directory) in place of the defaults.
        public var templates = MailTemplates()
        /// `templates`, for the start-up log.
        public var templatesDirectory: String?

        /// No relay: the development mailer, from `Latchkey <no-reply@localhost>`.
        public init() {
            // A literal address that passes MailAddress's check.
            from = (try? MailAddress("no-reply@localhost", name: "Latchkey"))!
        }
    }

    /// Keys kept outside the database.
    public struct Secrets: Sendable {
        /// The key-encryption key (`secrets.key_encryption_key_file` or
        /// `LATCHKEY_KEY_ENCRYPTION_KEY`); `nil` stores keys in the clear.
        public var keyEncryption: KeyEncryption?
        /// Which of the two gave it, for errors that name it.
        public var source = "secrets.key_encryption_key_file"

        /// No key-encryption key.
        public init() {}

        /// A key-encryption key from `source`.
        public init(keyEncryption: KeyEncryption, source: String) {
            self.keyEncryption = keyEncryption
            self.source = source
        }
    }
}

extension LatchkeyConfiguration {
    /// The apps, related origins and passkey endpoints, from which the association files
    /// and the app origins are derived.
    public var association: AssociationSettings {
        AssociationSettings(
            relyingPartyID: relyingParty.id,
            appleApps: clients.compactMap(\.ios),
            androidApps: clients.compactMap(\.android),
            relatedOrigins: relyingParty.relatedOrigins,
            passkeyEndpoints: relyingParty.passkeyEndpoints
        )
    }

    /// Every origin a ceremony may come from: the configured origins, then those derived
    /// from the apps and related origins.
    public var allowedOrigins: [String] {
        var seen: Set<String> = []
        return (relyingParty.origins + association.derivedOrigins.map(\.origin)).filter { seen.insert($0).inserted }
    }

    /// The web origins that may call the JSON APIs from a browser (CORS): the relying
    /// party's web origins, related origins, and the origins of registered redirect URIs.
    public var corsOrigins: Set<String> {
        var origins = Set((relyingParty.origins + relyingParty.relatedOrigins).filter { $0.hasPrefix("https://") || $0.hasPrefix("http://") })
        // Browsers send origins in lowercase.
        for uri in clients.flatMap(\.redirectURIs) where uri.lowercased().hasPrefix("https://") || uri.lowercased().hasPrefix("http://") {
            origins.insert(ConfigurationLoader.originOf(uri).lowercased())
        }
        return origins
    }

    /// The web origins whose pages may run the Kratos face's browser flows with cookies:
    /// the relying party's own web origins and the public URL's.
    public var browserFlowOrigins: Set<String> {
        var origins = Set(relyingParty.origins.filter { $0.hasPrefix("https://") || $0.hasPrefix("http://") }.map { $0.lowercased() })
        origins.insert(ConfigurationLoader.originOf(server.publicURL).lowercased())
        return origins
    }

    /// Where allowed origins come from, for the error a rejected origin gets.
    static let originSourceDescription =
        "relying_party.origins, relying_party.related_origins, https://<rp id> for the apps in clients[].ios, "
        + "and android:apk-key-hash:<fingerprint> for each of clients[].android.sha256_cert_fingerprints"
}
