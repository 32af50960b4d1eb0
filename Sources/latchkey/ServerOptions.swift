import ArgumentParser
import Foundation
import LatchkeyServer

/// The options `serve`, `migrate` and `keys` share: where the configuration and the
/// database are, and what overrides them.
struct ServerOptions: ParsableArguments {
    @Option(name: .long, help: "A YAML configuration file (LATCHKEY_CONFIG).")
    var config: String?

    @Option(name: .long, help: "The address to listen on (LATCHKEY_HOST). Default 127.0.0.1.")
    var host: String?

    @Option(name: .long, help: "The port to listen on; 0 picks a free one (LATCHKEY_PORT). Default 8080.")
    var port: Int?

    @Option(name: .long, help: "The database: sqlite:PATH or postgres://user:password@host:port/database (LATCHKEY_DATABASE). Default sqlite:latchkey.sqlite.")
    var database: String?

    @Option(name: .customLong("rp-id"), help: "The WebAuthn RP ID (LATCHKEY_RP_ID). Default localhost.")
    var relyingPartyID: String?

    @Option(name: .customLong("origin"), help: "An allowed origin; repeatable (LATCHKEY_ORIGINS, comma-separated).")
    var origins: [String] = []

    @Option(name: .customLong("public-url"), help: "The URL clients reach the server at (LATCHKEY_PUBLIC_URL).")
    var publicURL: String?

    /// Loads and validates the configuration; on failure prints the key at fault and exits
    /// non-zero.
    func load() throws -> LatchkeyConfiguration {
        let overrides = ConfigurationOverrides(
            configFile: config, host: host, port: port, database: database, relyingPartyID: relyingPartyID, origins: origins, publicURL: publicURL
        )
        do {
            return try ConfigurationLoader.load(overrides: overrides, environment: ProcessInfo.processInfo.environment)
        } catch {
            FileHandle.standardError.write(Data("latchkey: invalid configuration: \(error)\n".utf8))
            throw ExitCode(78)  // EX_CONFIG
        }
    }
}
