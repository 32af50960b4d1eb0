// swift-tools-version: 6.1
import PackageDescription

// Benchmarks live in their own package so that the main build stays lean.
// Run: swift run -c release --package-path Benchmarks WebAuthnBenchmarks
//      scripts/bench-server.sh   (builds the release server and runs ServerBenchmark against it)
//      swift run -c release --package-path Benchmarks PostgresBenchmark postgres://…   (against pgbench)
//      swift run -c release --package-path Benchmarks StatsBenchmark --postgres postgres://…   (the console's overview on 10M events)
let package = Package(
    name: "LatchkeyBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
    ],
    targets: [
        .executableTarget(
            name: "WebAuthnBenchmarks",
            dependencies: [
                .product(name: "WebAuthn", package: "main"),
                .product(name: "Authenticator", package: "main"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .executableTarget(
            name: "ServerBenchmark",
            dependencies: [
                .product(name: "WebAuthn", package: "main"),
                .product(name: "Authenticator", package: "main"),
                .product(name: "IdentityCore", package: "main"),
                .product(name: "StorageSQLite", package: "main"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .executableTarget(
            name: "StatsBenchmark",
            dependencies: [
                .product(name: "IdentityCore", package: "main"),
                .product(name: "StorageSQLite", package: "main"),
                .product(name: "StoragePostgres", package: "main"),
            ]
        ),
        .executableTarget(
            name: "PostgresBenchmark",
            dependencies: [
                .product(name: "WebAuthn", package: "main"),
                .product(name: "IdentityCore", package: "main"),
                .product(name: "StoragePostgres", package: "main"),
            ]
        ),
    ]
)
