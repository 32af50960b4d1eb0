import ArgumentParser

/// The `latchkey` command: the passkey server and its tools.

struct Latchkey: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "latchkey",
        abstract: "A self-hosted, passkey-first identity server.",
        version: LatchkeyVersion.current,
        subcommands: [ServeCommand.self, MigrateCommand.self, KeysCommand.self, MetadataCommand.self, DoctorCommand.self, WebAuthnCommand.self, AuthenticatorCommand.self, AdminCommand.self]
    )

    /// Runs the command line. In an async context `main()` resolves to the asynchronous entry
    /// point that the async subcommands need; top-level code would pick the synchronous one.
    static func runAsync() async {
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
