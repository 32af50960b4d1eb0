import ArgumentParser
import Foundation
import Hummingbird
import IdentityCore
import LatchkeyServer
import Logging
import NIOCore

/// `latchkey serve`: runs the server.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the Latchkey server.",
        discussion: """
            With no configuration it listens on 127.0.0.1:8080 with RP ID localhost, origin \
            http://localhost:8080, a SQLite file latchkey.sqlite in the working directory, and one \
            public client, demo. Flags override LATCHKEY_* environment variables, which override the \
            configuration file.
            """
    )

    @OptionGroup var options: ServerOptions

    func run() async throws {
        let configuration = try options.load()
        let format: LatchkeyLogHandler.Format = configuration.logging.format == "json" ? .json : .text
        let observability: Observability.Bootstrapped
        do {
            observability = try Observability.bootstrap(configuration, format: format)
        } catch let error as ConfigurationError {
            FileHandle.standardError.write(Data("latchkey: invalid configuration: \(error)\n".utf8))
            throw ExitCode(78)
        }
        // Log lines are written from a thread of their own; whatever is waiting goes out as
        // the command ends, however it ends.
        defer { LogLineWriter.standardOutput.flush() }
        let logger = makeLogger(label: "latchkey", level: configuration.logLevel)
        do {
            let application = try await LatchkeyApplication.build(
                configuration, logger: logger, metrics: observability.prometheus, exporters: observability.exporters
            )
            try await application.runService()
            logger.info("Latchkey stopped")
        } catch let error as ConfigurationError {
            FileHandle.standardError.write(Data("latchkey: invalid configuration: \(error)\n".utf8))
            throw ExitCode(78)
        } catch let error as LatchkeyApplication.DatabaseUnavailable {
            FileHandle.standardError.write(Data("latchkey: \(error)\n".utf8))
            throw ExitCode(74)  // EX_IOERR
        } catch let error as IOError where error.errnoCode == EADDRINUSE || error.errnoCode == EACCES || error.errnoCode == EADDRNOTAVAIL {
            var address = "\(configuration.server.host):\(configuration.server.port)"
            var names = "--port and --host, or server.port and server.host in the configuration file"
            if let metrics = configuration.metrics {
                // Either listener may be the one refused; both are named.
                address += " or the metrics address \(metrics.host):\(metrics.port)"
                names += "; metrics.host and metrics.port"
            }
            let why = switch error.errnoCode {
            case EADDRINUSE: "the port is already in use (another Latchkey, or another server); stop it, or choose another port"
            case EACCES: "ports below 1024 need privileges; choose a port of 1024 or more and put a reverse proxy in front"
            default: "this machine has no such address; use 127.0.0.1, 0.0.0.0 or one of its own addresses"
            }
            FileHandle.standardError.write(Data("latchkey: cannot listen on \(address): \(why) (\(names))\n".utf8))
            throw ExitCode(69)
        }
    }
}

/// `latchkey migrate`: applies pending database migrations and exits.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply database migrations and exit (serve also applies them at start-up)."
    )

    @OptionGroup var options: ServerOptions

    func run() async throws {
        let configuration = try options.load()
        let applied = try await LatchkeyApplication.migrate(configuration)
        if applied.isEmpty {
            print("database \(configuration.database) is up to date")
        } else {
            print("database \(configuration.database): applied \(applied.joined(separator: ", "))")
        }
    }
}

/// `latchkey keys rotate`: adds a token signing key; `latchkey keys rewrap`: seals the
/// stored keys under another key-encryption key.
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Manage token signing keys and the key that seals them.",
        subcommands: [Rotate.self, Rewrap.self]
    )

    struct Rewrap: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rewrap",
            abstract: "Seal the stored signing keys and instance secrets under a new key-encryption key.",
            discussion: """
                Opens each stored key with --old-key-file (or takes it as it is, when it is stored in \
                the clear) and seals it under --new-key-file (or stores it in the clear, without one). \
                Then configure the new key (secrets.key_encryption_key_file or \
                LATCHKEY_KEY_ENCRYPTION_KEY) and restart the servers. Each key file holds 32 bytes in \
                base64 or hex, for example from `openssl rand -base64 32`.
                """
        )

        @OptionGroup var options: ServerOptions
        @Option(help: "The file of the key the stored keys are sealed with now.") var oldKeyFile: String?
        @Option(help: "The file of the key to seal them with.") var newKeyFile: String?

        func run() async throws {
            let configuration = try options.load()
            guard oldKeyFile != nil || newKeyFile != nil else {
                throw ValidationError("give --old-key-file, --new-key-file, or both")
            }
            do {
                let old = try oldKeyFile.map { path throws(ConfigurationError) in try ConfigurationLoader.keyEncryptionKey(file: path, key: "--old-key-file") }
                let new = try newKeyFile.map { path throws(ConfigurationError) in try ConfigurationLoader.keyEncryptionKey(file: path, key: "--new-key-file") }
                let count = try await LatchkeyApplication.rewrapKeys(configuration, old: old, new: new)
                print("rewrapped \(count) stored key(s)\(new.map { " under key \($0.keyID)" } ?? " into the clear")")
            } catch let error as ConfigurationError {
                FileHandle.standardError.write(Data("latchkey: \(error)\n".utf8))
                throw ExitCode(78)
            } catch let failure as KeyEncryption.Failure {
                FileHandle.standardError.write(Data("latchkey: --old-key-file: \(failure.description)\n".utf8))
                throw ExitCode(78)
            }
        }
    }

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate",
            abstract: "Add a new signing key. Tokens signed by older keys stay valid until they expire; their keys stay in the JWKS until then."
        )

        @OptionGroup var options: ServerOptions

        @Option(help: "The algorithm whose key to replace: ES256 (access tokens, and ID tokens that ask for it), RS256 or PS256 (ID tokens).")
        var algorithm: String = "ES256"

        func validate() throws {
            guard SigningAlgorithm(rawValue: algorithm) != nil else { throw ValidationError("--algorithm must be ES256, RS256 or PS256") }
        }

        func run() async throws {
            let configuration = try options.load()
            let keyID = try await LatchkeyApplication.rotateSigningKey(configuration, algorithm: SigningAlgorithm(rawValue: algorithm) ?? .es256)
            print("new \(algorithm) signing key \(keyID); running servers pick it up within a minute")
        }
    }
}

func makeLogger(label: String, level: String) -> Logger {
    var logger = Logger(label: label)
    logger.logLevel = Logger.Level(rawValue: level) ?? .info
    return logger
}
