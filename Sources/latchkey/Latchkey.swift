import ArgumentParser
import Foundation

/// The `latchkey` command: the passkey server and its tools.

struct Latchkey: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "latchkey",
        abstract: "A self-hosted, passkey-first identity server.",
        version: LatchkeyVersion.current,
        subcommands: [ServeCommand.self, MigrateCommand.self, KeysCommand.self, MetadataCommand.self, DoctorCommand.self, WebAuthnCommand.self, AuthenticatorCommand.self, AdminCommand.self, ImportCommand.self]
    )

    /// Runs the command line. In an async context `main()` resolves to the asynchronous entry
    /// point that the async subcommands need; top-level code would pick the synchronous one.
    static func runAsync() async {
        if let hint = DashLedArgument.hint(for: Array(CommandLine.arguments.dropFirst())) {
            // A dash-led ID either fails the parse or, when it holds an "h", reads as `-h`
            // and parses as the help screen (ArgumentParser's internal `HelpCommand`).
            let parsed = try? parseAsRoot()
            if parsed.map({ "\(type(of: $0))" == "HelpCommand" }) ?? true {
                FileHandle.standardError.write(Data((hint + "\n").utf8))
            }
        }
        await main()
    }
}

/// `latchkey webauthn …`: the verification engine on its own.
struct WebAuthnCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webauthn",
        abstract: "Run the WebAuthn verification engine directly.",
        subcommands: [VerifyCorpusCommand.self]
    )
}
