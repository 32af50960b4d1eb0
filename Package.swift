// swift-tools-version: 6.1
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "Latchkey",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "latchkey", targets: ["latchkey"]),
        .library(name: "CBOR", targets: ["CBOR"]),
        .library(name: "WebAuthn", targets: ["WebAuthn"]),
        .library(name: "Authenticator", targets: ["Authenticator"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
    ],
    targets: [
        .target(name: "CBOR", swiftSettings: strictSettings),
        .target(
            name: "WebAuthn",
            dependencies: [
                "CBOR",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "Authenticator",
            dependencies: [
                "CBOR",
                "WebAuthn",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        .target(name: "WebAuthnCorpus", dependencies: ["WebAuthn"], swiftSettings: strictSettings),
        .executableTarget(
            name: "latchkey",
            dependencies: [
                "WebAuthn",
                "WebAuthnCorpus",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(name: "CBORTests", dependencies: ["CBOR"]),
        .testTarget(
            name: "WebAuthnTests",
            dependencies: [
                "CBOR",
                "WebAuthn",
                "Authenticator",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        .testTarget(name: "ConformanceTests", dependencies: ["CBOR", "WebAuthn", "WebAuthnCorpus", "latchkey"]),
    ]
)
