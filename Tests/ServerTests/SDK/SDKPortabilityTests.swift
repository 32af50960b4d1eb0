import Foundation
import Testing

/// What an app links: `LatchkeyClient` and `LatchkeyWire` import Foundation and each other
/// only (no swift-crypto, swift-asn1, NIO or Hummingbird), and whatever exists on Linux alone
/// is imported under `#if canImport`.
@Suite("SDK: what apps link")
struct SDKPortabilityTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Modules a file may import, and those it may import only under `#if canImport`.
    static let allowed: [String: Set<String>] = [
        "LatchkeyWire": ["Foundation"],
        "LatchkeyClient": ["Foundation", "LatchkeyWire"],
    ]
    static let platformOnly: Set<String> = ["FoundationNetworking", "Glibc", "Darwin", "Musl"]

    @Test(arguments: ["LatchkeyWire", "LatchkeyClient"])
    func importsFoundationOnly(_ target: String) throws {
        let directory = Self.root.appendingPathComponent("Sources/\(target)")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".swift") }
        #expect(!files.isEmpty)
        for file in files {
            let lines = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8).components(separatedBy: "\n")
            var conditions: [String] = []
            for line in lines.map({ $0.trimmingCharacters(in: .whitespaces) }) {
                if line.hasPrefix("#if") { conditions.append(line) } else if line.hasPrefix("#elseif") {
                    conditions[conditions.count - 1] = line
                } else if line.hasPrefix("#endif") { conditions.removeLast() }
                let words = line.split(separator: " ").map(String.init)
                guard let index = words.firstIndex(of: "import"), words[..<index].allSatisfy({ $0.hasPrefix("@") || ["public", "package", "internal"].contains($0) }),
                    index + 1 < words.count
                else { continue }
                let module = words[index + 1]
                if Self.platformOnly.contains(module) {
                    #expect(conditions.last == "#if canImport(\(module))" || conditions.last == "#elseif canImport(\(module))", "\(target)/\(file) imports \(module) outside #if canImport")
                } else {
                    #expect(Self.allowed[target]?.contains(module) == true, "\(target)/\(file) imports \(module)")
                }
            }
        }
    }

    @Test func theManifestGivesThemNoOtherDependencies() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(manifest.contains(#".target(name: "LatchkeyWire", swiftSettings: strictSettings)"#))
        #expect(manifest.contains(#".target(name: "LatchkeyClient", dependencies: ["LatchkeyWire"], swiftSettings: strictSettings)"#))
        // Apps on iOS 17 and macOS 15.
        #expect(manifest.contains("platforms: [.macOS(.v15), .iOS(.v17)]"))
    }
}
