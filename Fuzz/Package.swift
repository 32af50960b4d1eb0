// swift-tools-version: 6.1
import PackageDescription

// libFuzzer targets for the parsers that read untrusted bytes. Build and run them with
// scripts/fuzz.sh, which adds -sanitize=fuzzer,address and seeds from the conformance corpus.
let package = Package(
    name: "LatchkeyFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "..")],
    targets: [
        .executableTarget(
            name: "FuzzParsers",
            dependencies: [
                .product(name: "CBOR", package: "main"),
                .product(name: "WebAuthn", package: "main"),
            ]
        )
    ]
)
