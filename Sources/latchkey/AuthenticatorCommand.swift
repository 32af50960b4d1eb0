import ArgumentParser
import Authenticator
import Foundation
import LatchkeyClient
import LatchkeySoftwarePasskeys
import WebAuthn

/// `latchkey authenticator …`: a software passkey authenticator that signs up, logs in and
/// manages passkeys against a Latchkey server through its native API, the way a native app
/// would.
struct AuthenticatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "authenticator",
        abstract: "Use a software passkey authenticator against a Latchkey server.",
        discussion: """
            The credentials' private keys and the last tokens are kept in the --store file, in \
            the clear, readable by its owner only. Use it for development and testing, never \
            for a real account.
            """,
        subcommands: [
            AuthenticatorSignupCommand.self, AuthenticatorLoginCommand.self,
            AuthenticatorEnrollCommand.self, AuthenticatorListCommand.self,
        ]
    )
}

/// Options every `authenticator` subcommand takes.
struct AuthenticatorOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The server's public URL. (default: $LATCHKEY_SERVER, else http://localhost:8080)", valueName: "url"))
    var server: String?

    @Option(name: .customLong("client-id"), help: ArgumentHelp("The OAuth client ID.", valueName: "id"))
    var clientID = "demo"

    @Option(name: .customLong("client-secret"), help: ArgumentHelp("The client secret of a confidential client.", valueName: "secret"))
    var clientSecret: String?

    @Option(help: ArgumentHelp("The origin written into clientDataJSON. (default: the server URL's origin)", valueName: "origin"))
    var origin: String?

    @Option(name: .customLong("android-app"), help: ArgumentHelp("Act as this Android app (package name), as Credential Manager reports it; needs --signing-certificate.", valueName: "package"))
    var androidApp: String?

    @Option(name: .customLong("signing-certificate"), help: ArgumentHelp("The Android app's SHA-256 signing-certificate fingerprint.", valueName: "fingerprint"))
    var signingCertificate: String?

    @Flag(name: .customLong("apple-app"), help: "Act as an Apple platform app with the webcredentials associated domain (origin https://<rp id>).")
    var appleApp = false

    @Option(help: ArgumentHelp(
        "The file holding the software credentials and the last tokens. (default: $XDG_CONFIG_HOME/latchkey/authenticator.json, else ~/.config/latchkey/authenticator.json)",
        valueName: "file"
    ))
    var store: String?

    /// `--store`, else the user's configuration directory: private keys never land in the
    /// working directory, where they are easily committed.
    var resolvedStore: URL {
        if let store { return URL(fileURLWithPath: store).standardizedFileURL }
        let environment = ProcessInfo.processInfo.environment
        let configuration = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: environment["HOME"] ?? NSHomeDirectory()).appendingPathComponent(".config")
        return configuration.appendingPathComponent("latchkey").appendingPathComponent("authenticator.json")
    }

    /// `--server`, else `LATCHKEY_SERVER`, else the local default; without a trailing slash.
    var resolvedServer: String {
        var server = server ?? ProcessInfo.processInfo.environment["LATCHKEY_SERVER"] ?? "http://localhost:8080"
        while server.hasSuffix("/") { server.removeLast() }
        return server
    }
}

/// Options for the commands that create a credential.
struct CredentialCreationOptions: ParsableArguments {
    /// The key algorithms the CLI offers.
    enum Algorithm: String, ExpressibleByArgument, CaseIterable {
        case es256, eddsa, rs256

        var identifier: COSEAlgorithmIdentifier {
            switch self {
            case .es256: return .es256
            case .eddsa: return .edDSA
            case .rs256: return .rs256
            }
        }
    }

    /// The attestation statements the CLI can produce.
    enum Attestation: String, ExpressibleByArgument, CaseIterable {
        case none, packed
    }

    @Option(help: "The credential's key algorithm.")
    var algorithm: Algorithm = .es256

    @Option(help: "The attestation statement: none, or packed self attestation.")
    var attestation: Attestation = .none

    @Flag(help: "Create a synced passkey (BE and BS set, counter always 0) rather than a device-bound one.")
    var synced = false

    /// The authenticator these options describe.
    var authenticator: SoftwareAuthenticator {
        SoftwareAuthenticator(attestation: attestation == .packed ? .packedSelf : .none, createsSyncedCredentials: synced)
    }
}

/// `latchkey authenticator signup`.
struct AuthenticatorSignupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signup",
        abstract: "Create an account with a new passkey (POST /passkey/register, then /oauth/token)."
    )

    @OptionGroup var options: AuthenticatorOptions
    @OptionGroup var creation: CredentialCreationOptions

    @Option(help: "The account's email address.")
    var email: String

    @Option(help: "The account holder's full name.")
    var name: String?

    @Option(help: "The account's phone number, in E.164 form.")
    var phone: String?

    @Option(help: "The account's username.")
    var username: String?

    func run() async throws {
        try await reportingFailures {
            let session = try AuthenticatorSession(
                options, contact: .email(email), authenticator: creation.authenticator, algorithm: creation.algorithm.identifier
            )
            let profile = SignupProfile(email: email, phoneNumber: phone, username: username, name: name)
            let account = try await session.latchkey.signUp(profile: profile)
            print("Signed up \(account.email ?? email) (user \(account.userID))")
            if let credential = session.passkeys.credentials.last { printCredential(credential) }
            try printTokens(session)
        }
    }
}

/// `latchkey authenticator login`.
struct AuthenticatorLoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Sign in with a stored passkey (POST /passkey/challenge, then /oauth/token)."
    )

    @OptionGroup var options: AuthenticatorOptions

    @Option(help: "An account identifier, to log in with allowCredentials instead of a discoverable passkey.")
    var username: String?

    func run() async throws {
        try await reportingFailures {
            let session = try AuthenticatorSession(options)
            let before = session.passkeys.credentials
            let account = try await session.latchkey.signIn(username: username, mode: .modal)
            print("Logged in as \(account.email ?? account.name ?? account.userID) (user \(account.userID))")
            // The passkey whose counter moved, else (a synced one) the newest for this account.
            let used = zip(before, session.passkeys.credentials).first { $0.signCount != $1.signCount }?.1
                ?? session.passkeys.credentials.last { $0.userName == account.email } ?? session.passkeys.credentials.last
            if let used { printCredential(used) }
            try printTokens(session)
        }
    }
}

/// `latchkey authenticator enroll`.
struct AuthenticatorEnrollCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enroll",
        abstract: "Add another passkey to the signed-in account (My Account API).",
        discussion: "Uses the stored access token; refreshes it, or logs in with a stored passkey, when it has expired or is refused."
    )

    @OptionGroup var options: AuthenticatorOptions
    @OptionGroup var creation: CredentialCreationOptions

    func run() async throws {
        try await reportingFailures {
            let session = try AuthenticatorSession(options, authenticator: creation.authenticator, algorithm: creation.algorithm.identifier)
            let passkey = try await session.signedIn { () async throws(LatchkeyAPIError) in try await session.latchkey.addPasskey() }
            print("Enrolled \(passkey.id)")
            print("  name         \(passkey.name)\(passkey.providerName.map { " (\($0))" } ?? "")")
            if let credential = session.passkeys.credentials.last { printCredential(credential) }
            print("  created      \(passkey.createdAt.map(timestamp) ?? "-")")
        }
    }
}

/// `latchkey authenticator list`.
struct AuthenticatorListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the signed-in account's passkeys (My Account API).",
        discussion: "Passkeys whose private key is in the store are marked with *."
    )

    @OptionGroup var options: AuthenticatorOptions

    func run() async throws {
        try await reportingFailures {
            let session = try AuthenticatorSession(options)
            let passkeys = try await session.signedIn { () async throws(LatchkeyAPIError) in try await session.latchkey.passkeys() }
            let local = Set(session.passkeys.credentials.map { Base64URL.encode($0.credentialID) })
            if passkeys.isEmpty {
                print("No passkeys.")
            }
            for passkey in passkeys {
                let label = [passkey.name, passkey.providerName.map { "[\($0)]" }].compactMap { $0 }.joined(separator: " ")
                let backedUp = passkey.backedUp == true ? ", backed up" : ""
                print(
                    "\(passkey.credentialID.map(local.contains) == true ? "*" : " ") \(label)  \(passkey.id)  "
                        + "created \(passkey.createdAt.map(timestamp) ?? "-")  last used \(passkey.lastUsedAt.map(timestamp) ?? "never")  "
                        + "\(passkey.synced ? "synced" : "device-bound")\(backedUp)"
                )
            }
        }
    }
}

// MARK: - Output

/// Prints a credential's facts, indented under a headline.
private func printCredential(_ credential: SoftwareCredential) {
    print("  credential   \(Base64URL.encode(credential.credentialID))")
    print("  algorithm    \(credential.privateKey.algorithm.name), \(credential.isSynced ? "synced" : "device-bound"), sign count \(credential.signCount)")
    print("  RP ID        \(credential.relyingPartyID)")
}

/// Prints when the access token expires and where the session was saved.
private func printTokens(_ session: AuthenticatorSession) throws {
    guard let stored = try session.store.load() else { return }
    let seconds = Int(stored.accessTokenExpiresAt.timeIntervalSinceNow.rounded())
    print("  access token Bearer, expires in \(seconds) s (\(timestamp(stored.accessTokenExpiresAt)))\(stored.refreshToken == nil ? "" : "; refresh token saved")")
    print("  store        \(session.store.url.path)")
}

/// RFC 3339, for output.
private func timestamp(_ date: Date) -> String { date.formatted(Date.ISO8601FormatStyle()) }

/// Runs a command body and turns its failures into a clear message on standard error and
/// a non-zero exit, without a stack trace.
private func reportingFailures(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as LatchkeyAPIError {
        printAPIError(error)
        throw ExitCode.failure
    } catch let error as CLIFailure {
        printError("error: \(error.description)")
        throw ExitCode.failure
    } catch let error as SoftwareAuthenticator.Failure {
        printError("error: the authenticator refused: \(error.description)")
        throw ExitCode.failure
    } catch let error as CredentialPrivateKey.KeyError {
        printError("error: \(error.description)")
        throw ExitCode.failure
    } catch let error as ExitCode {
        throw error
    } catch {
        printError("error: \(error)")
        throw ExitCode.failure
    }
}

/// Prints a server error: status, code, description, reason and the rest.
private func printAPIError(_ error: LatchkeyAPIError) {
    guard let status = error.status else {
        printError("error: \(error.code): \(error.detail ?? "no response")")
        return
    }
    printError("error: the server answered HTTP \(status)")
    printError("  error        \(error.code)")
    if let title = error.title { printError("  title        \(title)") }
    if let detail = error.detail { printError("  description  \(detail)") }
    if let reason = error.reason { printError("  reason       \(reason)") }
    if let credentialID = error.credentialID { printError("  credential   \(credentialID)") }
    for problem in error.validationErrors {
        printError("  invalid      \(problem.field ?? problem.pointer ?? "-"): \(problem.detail ?? "")")
    }
}
