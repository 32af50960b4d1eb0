import AppAssociation
import Authenticator
import Foundation
import LatchkeyClient
import LatchkeySoftwarePasskeys
import WebAuthn

/// What every `latchkey authenticator` subcommand shares: the SDK, with the software
/// authenticator as its passkey provider and the store file as both the provider's keys and
/// the SDK's session. The commands are the SDK's flows, printed.
struct AuthenticatorSession {
    /// The server URL as given, without a trailing slash.
    let server: String
    /// The SDK.
    let latchkey: LatchkeyClient.Latchkey
    /// The software authenticator's passkeys.
    let passkeys: SoftwarePasskeyProvider
    /// The store file.
    let store: AuthenticatorStore

    /// Opens the store and resolves the options.
    /// - Parameters:
    ///   - contact: The identifier a new account gets.
    ///   - authenticator: The authenticator new passkeys come from.
    ///   - algorithm: Their key algorithm.
    init(
        _ options: AuthenticatorOptions, contact: LatchkeyContact = .email(""),
        authenticator: SoftwareAuthenticator = SoftwareAuthenticator(), algorithm: COSEAlgorithmIdentifier? = nil
    ) throws(CLIFailure) {
        let server = options.resolvedServer
        guard let url = URL(string: server), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), let host = url.host, !host.isEmpty else {
            throw CLIFailure("--server \(server) is not an http(s) URL")
        }
        self.server = server
        let origin = options.origin ?? Self.origin(of: url)
        let relyingPartyID = URL(string: origin)?.host ?? host
        let caller: Caller
        switch (options.androidApp, options.signingCertificate, options.appleApp) {
        case (nil, nil, false):
            caller = .webPage(origin: origin)
        case (nil, nil, true):
            caller = .appleApp(relyingPartyID: relyingPartyID)
        case (let package?, let fingerprint?, false):
            guard AndroidApp.validatePackageName(package) else { throw CLIFailure("--android-app \(package) is not an application ID such as com.example.app") }
            do {
                caller = .androidApp(packageName: package, signingCertificateSHA256: try CertificateFingerprint(parsing: fingerprint).bytes)
            } catch {
                throw CLIFailure("--signing-certificate \(error)")
            }
        case (_, _, true):
            throw CLIFailure("--apple-app and --android-app exclude each other")
        default:
            throw CLIFailure("--android-app and --signing-certificate go together")
        }
        let store = try AuthenticatorStore(url: options.resolvedStore)
        self.store = store
        do {
            passkeys = try SoftwarePasskeyProvider(
                relyingPartyID: relyingPartyID, caller: caller, contact: contact, authenticator: authenticator,
                credentials: try store.credentials(), algorithm: algorithm, onChange: { try store.saveCredentials($0) }
            )
        } catch let failure as CLIFailure {
            throw failure
        } catch {
            throw CLIFailure("cannot open the store \(store.url.path): \(error)")
        }
        latchkey = LatchkeyClient.Latchkey(
            configuration: LatchkeyConfiguration(server: url, clientID: options.clientID, clientSecret: options.clientSecret),
            passkeys: passkeys, tokens: store
        )
    }

    /// `scheme://host[:port]` of a URL: the origin a browser on that page would report.
    static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? "http"
        let host = url.host?.lowercased() ?? ""
        let defaultPort = scheme == "https" ? 443 : 80
        if let port = url.port, port != defaultPort { return "\(scheme)://\(host):\(port)" }
        return "\(scheme)://\(host)"
    }

    /// Runs a My Account call. The software authenticator needs nobody at the device, so a
    /// session that ended or is too old for the call is replaced by a sign-in with a stored
    /// passkey, once.
    func signedIn<T>(_ call: () async throws(LatchkeyAPIError) -> T) async throws -> T {
        let refused: LatchkeyAPIError
        do {
            return try await call()
        } catch {
            refused = error
        }
        guard refused.code == .notSignedIn || refused.code == .stepUpRequired else { throw refused }
        guard !passkeys.credentials.isEmpty else {
            throw CLIFailure("no session and no passkeys in \(store.url.path); run `latchkey authenticator signup` first")
        }
        printError("note: \(refused.code == .notSignedIn ? "no usable session" : "the sign-in is too old for this"); signing in with a stored passkey")
        _ = try await latchkey.signIn(mode: .modal)
        return try await call()
    }
}

/// Writes a line to standard error.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
