// swift-tools-version: 6.2
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
]

let crypto: Target.Dependency = .product(name: "Crypto", package: "swift-crypto")
let cryptoExtras: Target.Dependency = .product(name: "CryptoExtras", package: "swift-crypto")

let package = Package(
    name: "Latchkey",
    platforms: [.macOS(.v15), .iOS(.v17)],
    products: [
        .executable(name: "latchkey", targets: ["latchkey"]),
        .library(name: "CBOR", targets: ["CBOR"]),
        .library(name: "WebAuthn", targets: ["WebAuthn"]),
        .library(name: "Authenticator", targets: ["Authenticator"]),
        .library(name: "IdentityCore", targets: ["IdentityCore"]),
        .library(name: "StorageSQLite", targets: ["StorageSQLite"]),
        .library(name: "StoragePostgres", targets: ["StoragePostgres"]),
        .library(name: "LatchkeyWire", targets: ["LatchkeyWire"]),
        .library(name: "LatchkeyClient", targets: ["LatchkeyClient"]),
        .library(name: "LatchkeySoftwarePasskeys", targets: ["LatchkeySoftwarePasskeys"]),
        .library(name: "LatchkeyAuthenticationServices", targets: ["LatchkeyAuthenticationServices"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        // Hummingbird's default traits pull in swift-configuration; Latchkey reads YAML with Yams.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        // Already in the graph through Hummingbird; named for NIOEmbedded in the in-process face tests.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        // Already in the graph through Hummingbird; named for the HTTP parts the connection
        // handler of `latchkey serve` sees.
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        // Already in the graph through Hummingbird; named for the database timers.
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        // Prometheus exposition of those metrics on the `metrics:` listener (swift-atomics and
        // swift-metrics are its only dependencies, both already in the graph).
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // PostgreSQL for several instances over one database (StoragePostgres): the Swift
        // server ecosystem's maintained client, with a connection pool. Its other
        // dependencies (NIO, NIOSSL, swift-crypto, swift-log, swift-metrics, service
        // lifecycle) are already in the graph through Hummingbird and swift-crypto.
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        // The request contexts and authenticator middleware of every face (AuthRequestContext,
        // AuthenticatorMiddleware): Hummingbird's own shape for "who is calling", instead of
        // one hand-written context per credential. Adds only swift-extras-base64.
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        // TLS for the SMTP client (STARTTLS and smtps://). Already in the graph through
        // postgres-nio; named because Mail adds its handler to a connection itself.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // `swift package generate-documentation`: the SDK's DocC catalog. A command plugin,
        // built only when that command runs.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
        // The Admin API is generated from its OpenAPI document (Sources/AdminAPI/openapi.yaml),
        // so the document and the code cannot drift. The generator runs as a command plugin
        // (`scripts/generate-admin-api.sh`) and its output is committed: no build compiles the
        // generator. The runtime is small (swift-http-types is already in the graph), and the
        // Hummingbird transport is one file over the router we already use.
        .package(url: "https://github.com/apple/swift-openapi-generator.git", from: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4", traits: []),
        .package(url: "https://github.com/hummingbird-project/swift-openapi-hummingbird.git", from: "2.1.0"),
        // Webhook deliveries: it connects to the address the sender checked (dnsOverride),
        // so a name cannot be rebound between the check and the request, and it reaches IPv6
        // literals, which Foundation's URLSession cannot on Linux.
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        // Spans around requests, storage operations, verifications and deliveries. Already in
        // the graph through Hummingbird (its TracingMiddleware); named for IdentityCore and the
        // storage backends.
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        // OpenTelemetry (`telemetry:`): traces, metrics and logs over OTLP/HTTP with protobuf.
        // Only its HTTP exporter: the gRPC one (grpc-swift and its transport) would add minutes
        // to a cold build, and collectors take OTLP/HTTP on 4318 as readily as gRPC on 4317.
        // It adds swift-protobuf's runtime (its generated OTLP types are committed in the
        // package); async-http-client, NIOSSL and swift-log are already here.
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        // The WebAuthn engine and its foundations.
        .target(name: "CBOR", swiftSettings: strictSettings),
        // Every JSON shape between an app and the native API, My Account and OIDC endpoints:
        // Foundation only, so that apps link it without the verifier.
        .target(name: "LatchkeyWire", swiftSettings: strictSettings),
        .target(
            name: "WebAuthn",
            dependencies: ["LatchkeyWire", "CBOR", crypto, cryptoExtras, .product(name: "SwiftASN1", package: "swift-asn1")],
            swiftSettings: strictSettings
        ),
        .target(name: "Authenticator", dependencies: ["CBOR", "WebAuthn", crypto, cryptoExtras], swiftSettings: strictSettings),
        .target(name: "WebAuthnCorpus", dependencies: ["WebAuthn"], swiftSettings: strictSettings),

        // The identity server.
        // The words of the hosted pages and emails in ten languages: string catalogs read at
        // run time, CLDR plural rules, and the choice of a request's language.
        .target(name: "Localization", resources: [.copy("Resources/Strings")], swiftSettings: strictSettings),
        .target(
            name: "IdentityCore",
            // libxcrypt verifies imported bcrypt hashes; it is part of every glibc system.
            dependencies: [
                "LatchkeyWire", "WebAuthn", "Localization", crypto, cryptoExtras, .target(name: "CCrypt", condition: .when(platforms: [.linux])),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            // The 10,000 most common passwords (zxcvbn's frequency list, MIT), refused as new passwords.
            resources: [.copy("Resources/common-passwords.txt")],
            swiftSettings: strictSettings
        ),
        .target(
            name: "AppAssociation",
            dependencies: ["WebAuthn"],
            resources: [.copy("Resources/public_suffix_list.dat")],
            swiftSettings: strictSettings
        ),
        // The system SQLite, used directly by StorageSQLite (see SQLiteConnection for why).
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CCrypt", providers: [.apt(["libcrypt-dev"])]),
        // A VFS layer that writes each transaction's WAL frames with one system call (see its source).
        .target(name: "SQLiteWALWriter", dependencies: ["CSQLite"]),
        .target(
            name: "StorageSQLite",
            dependencies: [
                "CSQLite", "SQLiteWALWriter", "IdentityCore", "LatchkeyWire", "WebAuthn", .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "StoragePostgres",
            dependencies: [
                "IdentityCore", "LatchkeyWire", "WebAuthn",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // The frame every face stands in: request contexts, the error-rendering and origin
        // middleware, the face table, JSON and form reading. Faces depend on it, not on
        // each other.
        .target(
            name: "FaceFrame",
            dependencies: [
                "IdentityCore", "LatchkeyWire", "WebAuthn", crypto, .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
            ],
            swiftSettings: strictSettings
        ),
        // The Auth0-shaped faces: the Authentication API, My Account, OpenID Connect and the
        // well-known documents.
        .target(
            name: "HTTPAPI",
            dependencies: [
                "FaceFrame", "IdentityCore", "LatchkeyWire", "WebAuthn", crypto, .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
            ],
            swiftSettings: strictSettings
        ),
        // The Ory Kratos face.
        .target(
            name: "KratosFace",
            dependencies: [
                "FaceFrame", "IdentityCore", "LatchkeyWire", "WebAuthn", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
            ],
            resources: [.copy("Resources/webauthn.js")],
            swiftSettings: strictSettings
        ),
        // The Entrust IDaaS face.
        .target(
            name: "IDaaSFace",
            dependencies: [
                "FaceFrame", "IdentityCore", "LatchkeyWire", "WebAuthn", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
            ],
            swiftSettings: strictSettings
        ),
        // The Admin API (/admin/v1): the OpenAPI document, the code generated from it, and the
        // handlers over IdentityCore's administration service.
        .target(
            name: "AdminAPI",
            dependencies: [
                "IdentityCore", "FaceFrame", "WebAuthn", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
                .product(name: "Yams", package: "Yams"),
            ],
            // The generator's configuration is a resource only so that the command plugin finds
            // it among the target's files; nothing reads it at run time.
            resources: [.copy("openapi.yaml"), .copy("openapi-generator-config.yaml")],
            swiftSettings: strictSettings
        ),
        .target(
            name: "LatchkeyServer",
            dependencies: [
                "AdminAPI", "AppAssociation", "IdentityCore", "FaceFrame", "HTTPAPI", "KratosFace", "IDaaSFace", "HostedUI", "StorageSQLite", "StoragePostgres", "WebAuthn", "Mail", "Localization",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            // The FIDO Metadata Service's root (GlobalSign Root CA - R3), which signs the MDS3 BLOB's chain.
            resources: [.copy("Resources/passkey-provider-aaguids.json"), .copy("Resources/fido-mds-root.pem")],
            swiftSettings: strictSettings
        ),
        .target(
            name: "HostedUI",
            dependencies: [
                "FaceFrame", "IdentityCore", "Localization", "WebAuthn", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
            ],
            resources: [
                .copy("Resources/latchkey.js"), .copy("Resources/ui.js"), .copy("Resources/ui.css"), .copy("Resources/console.js"), .copy("Resources/console.css"),
            ],
            swiftSettings: strictSettings
        ),
        // The SDK apps add: the API client and the flows, on LatchkeyWire alone.
        .target(name: "LatchkeyClient", dependencies: ["LatchkeyWire"], swiftSettings: strictSettings),
        // The platform's passkeys and keychain as the SDK's provider and token store. On Linux
        // it compiles against a shim of the AuthenticationServices and Security API it uses,
        // which the tests drive.
        .target(
            name: "LatchkeyAuthenticationServices",
            dependencies: [
                "LatchkeyClient", .target(name: "AuthenticationServicesShim", condition: .when(platforms: [.linux])),
                // SymmetricKey, for PRF outputs: CryptoKit's on Apple platforms.
                .product(name: "Crypto", package: "swift-crypto", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: strictSettings
        ),
        .target(name: "AuthenticationServicesShim", dependencies: [crypto], path: "Tests/AuthenticationServicesShim"),
        // The software authenticator as the SDK's passkey provider (Linux, tests, the CLI).
        .target(name: "LatchkeySoftwarePasskeys", dependencies: ["LatchkeyClient", "Authenticator", "WebAuthn"], swiftSettings: strictSettings),
        // The SMTP client the mail outbox sends with (see SMTPClient for why it is our own).
        .target(
            name: "Mail",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strictSettings
        ),
        .target(name: "LatchkeyDoctor", dependencies: ["AppAssociation"], swiftSettings: strictSettings),
        // Throwaway PKIs and FIDO metadata BLOBs for tests, made with swift-certificates.
        .target(
            name: "PKITestSupport",
            dependencies: ["WebAuthn", crypto, .product(name: "X509", package: "swift-certificates"), .product(name: "SwiftASN1", package: "swift-asn1")],
            path: "Tests/PKITestSupport"
        ),
        .target(name: "IdentityTestSupport", dependencies: ["IdentityCore", "LatchkeyWire", "WebAuthn"], path: "Tests/IdentityTestSupport", swiftSettings: strictSettings),

        .executableTarget(
            name: "latchkey",
            dependencies: [
                "WebAuthn", "WebAuthnCorpus", "Authenticator", "IdentityCore", "LatchkeyClient", "LatchkeySoftwarePasskeys", "LatchkeyServer", "LatchkeyDoctor", "AppAssociation",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),

        .testTarget(name: "CBORTests", dependencies: ["CBOR"]),
        .testTarget(name: "AppAssociationTests", dependencies: ["AppAssociation"]),
        .testTarget(
            name: "WebAuthnTests",
            dependencies: [
                "CBOR", "WebAuthn", "Authenticator", "PKITestSupport", crypto, cryptoExtras,
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        // Child processes without Foundation's `Process.run()` (see ChildProcess for why).
        .target(name: "ProcessTestSupport", path: "Tests/ProcessTestSupport", swiftSettings: strictSettings),
        .testTarget(name: "ConformanceTests", dependencies: ["CBOR", "WebAuthn", "WebAuthnCorpus", "ProcessTestSupport", "latchkey"]),
        .testTarget(name: "StorageTests", dependencies: ["IdentityCore", "IdentityTestSupport", "StorageSQLite", "StoragePostgres"]),
        .testTarget(name: "IdentityCoreTests", dependencies: ["IdentityCore", "Localization", "IdentityTestSupport", "Authenticator", "WebAuthn", crypto, cryptoExtras]),
        // The faces in process, Hummingbird's testing style: requests go straight to the router.
        .testTarget(
            name: "FaceTests",
            dependencies: [
                "LatchkeyServer", "FaceFrame", "HTTPAPI", "KratosFace", "IDaaSFace", "HostedUI", "IdentityCore", "Authenticator", "WebAuthn", crypto,
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
        .testTarget(
            name: "ServerTests",
            dependencies: [
                "LatchkeyServer", "LatchkeyClient", "LatchkeySoftwarePasskeys", "LatchkeyAuthenticationServices", "AuthenticationServicesShim", "LatchkeyDoctor", "AppAssociation", "Authenticator", "IdentityCore", "Localization", "StorageSQLite", "StoragePostgres",
                "WebAuthn", "latchkey", "WebAuthnCorpus", "PKITestSupport", "ProcessTestSupport", "Mail", crypto, cryptoExtras, .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                // A new database for each scale-out test.
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
    ]
)
