import AppAssociation
import Authenticator
import Foundation
import LatchkeyClient
import WebAuthn

/// What every `latchkey authenticator` subcommand shares: the API client, the page or app
/// the software authenticator acts for, and the store. It runs the ceremonies and keeps the
/// store in step with the server.
struct AuthenticatorSession {
    /// The server URL as given, without a trailing slash.
    let server: String
    /// Who the authenticator acts for: a web page, an Android app or an Apple app.
    enum Client {
        case webPage(origin: String)
        case androidApp(packageName: String, certificate: CertificateFingerprint)
        case appleApp

        /// The caller for a ceremony on `relyingPartyID`.
        func caller(relyingPartyID: String) -> Caller {
            switch self {
            case .webPage(let origin): return .webPage(origin: origin)
            case .androidApp(let packageName, let certificate): return .androidApp(packageName: packageName, signingCertificateSHA256: certificate.bytes)
            case .appleApp: return .appleApp(relyingPartyID: relyingPartyID)
            }
        }
    }

    /// The page or app whose origin goes into clientDataJSON.
    let clientApp: Client
    /// The web origin, which is also the default RP ID's host.
    let origin: String
    /// The API client.
    let client: LatchkeyAPIClient
    /// The store file.
    let storeURL: URL
    /// The store's contents.
    var store: AuthenticatorStore

    /// Scopes for signup and login: the OpenID profile, a refresh token, and the whole My
    /// Account passkey API, so that `enroll` and `list` work with the same token.
    var scope: String { (["openid", "profile", "email", "offline_access"] + LatchkeyAPIClient.myAccountScopes).joined(separator: " ") }

    /// The audience of those tokens: My Account, as the server's discovery document names
    /// it (the server may sit behind a proxy with another public URL), else derived from
    /// `--server`.
    var audience: String {
        get async { (try? await client.discoverMyAccountAudience()) ?? client.myAccountAudience }
    }

    /// Opens the store and resolves the options.
    init(_ options: AuthenticatorOptions) throws(CLIFailure) {
        let server = options.resolvedServer
        guard let url = URL(string: server), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), let host = url.host, !host.isEmpty else {
            throw CLIFailure("--server \(server) is not an http(s) URL")
        }
        self.server = server
        self.origin = options.origin ?? Self.origin(of: url)
        switch (options.androidApp, options.signingCertificate, options.appleApp) {
        case (nil, nil, false):
            clientApp = .webPage(origin: origin)
        case (nil, nil, true):
            clientApp = .appleApp
        case (let package?, let fingerprint?, false):
            guard AndroidApp.validatePackageName(package) else { throw CLIFailure("--android-app \(package) is not an application ID such as com.example.app") }
            do {
                clientApp = .androidApp(packageName: package, certificate: try CertificateFingerprint(parsing: fingerprint))
            } catch {
                throw CLIFailure("--signing-certificate \(error)")
            }
        case (_, _, true):
            throw CLIFailure("--apple-app and --android-app exclude each other")
        default:
            throw CLIFailure("--android-app and --signing-certificate go together")
        }
        self.client = LatchkeyAPIClient(baseURL: url, clientID: options.clientID, clientSecret: options.clientSecret)
        self.storeURL = options.resolvedStore
        self.store = try AuthenticatorStore.load(from: storeURL)
    }

    /// `scheme://host[:port]` of a URL: the origin a browser on that page would report.
    static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? "http"
        let host = url.host?.lowercased() ?? ""
        let defaultPort = scheme == "https" ? 443 : 80
        if let port = url.port, port != defaultPort { return "\(scheme)://\(host):\(port)" }
        return "\(scheme)://\(host)"
    }

    /// The host of an origin, which browsers use as the default RP ID.
    var originHost: String { URL(string: origin)?.host ?? origin }

    // MARK: - Ceremonies

    /// Signs up a new account with a new software credential, then saves the credential and
    /// the tokens.
    mutating func signup(profile: SignupProfile, authenticator: SoftwareAuthenticator, algorithm: COSEAlgorithmIdentifier) async throws -> (TokenResponse, SoftwareCredential) {
        let (options, authSession) = try await client.signupChallenge(profile: profile)
        let caller = clientApp.caller(relyingPartyID: options.rp.id ?? originHost)
        let (response, credential) = try authenticator.makeCredential(options, caller: caller, algorithm: algorithm)
        let tokens = try await client.finishSignup(authSession: authSession, response: response, scope: scope, audience: await audience)
        // The server registered the credential: only now is it worth keeping.
        store.credentials.append(credential)
        record(tokens, at: Date())
        try store.save(to: storeURL)
        return (tokens, credential)
    }

    /// Logs in with a stored credential, then saves its new counter and the tokens.
    ///
    /// The credential is the first stored one for the options' RP ID that the server
    /// allows; for a discoverable login, the first one for the RP ID (for `username`, when
    /// one of them was created for it).
    mutating func login(username: String?) async throws -> (TokenResponse, SoftwareCredential) {
        let (options, authSession) = try await client.loginChallenge(username: username)
        let relyingPartyID = options.rpId ?? originHost
        let candidates = store.credentials.indices.filter { store.credentials[$0].relyingPartyID == relyingPartyID }
        guard !candidates.isEmpty else {
            throw CLIFailure("\(storeURL.path) holds no credential for RP ID \(relyingPartyID); run `latchkey authenticator signup` first")
        }
        let allowed = (options.allowCredentials ?? []).map(\.id.bytes)
        let chosen: Int
        if !allowed.isEmpty {
            guard let match = candidates.first(where: { allowed.contains(store.credentials[$0].credentialID) }) else {
                throw CLIFailure("the server allows \(allowed.count) credential(s) for this account, and none of them is in \(storeURL.path)")
            }
            chosen = match
        } else {
            chosen = candidates.first { username != nil && store.credentials[$0].userName == username } ?? candidates[0]
        }

        var credential = store.credentials[chosen]
        let authenticator = SoftwareAuthenticator(createsSyncedCredentials: credential.isSynced)
        let response = try authenticator.getAssertion(options, caller: clientApp.caller(relyingPartyID: relyingPartyID), credential: &credential)
        // A real authenticator's counter moves whether or not the server accepts the
        // assertion, so the new count is saved first.
        store.credentials[chosen] = credential
        try store.save(to: storeURL)

        let tokens = try await client.finishLogin(authSession: authSession, response: response, scope: scope, audience: await audience)
        record(tokens, at: Date())
        try store.save(to: storeURL)
        return (tokens, credential)
    }

    /// Enrolls another software credential for the signed-in account through My Account,
    /// then saves it.
    mutating func enroll(authenticator: SoftwareAuthenticator, algorithm: COSEAlgorithmIdentifier) async throws -> (AuthenticationMethod, SoftwareCredential) {
        let client = self.client
        let (options, authSession, accessToken) = try await withAccessToken { token in
            let (options, authSession, _) = try await client.startEnrollment(accessToken: token)
            return (options, authSession, token)
        }
        let caller = clientApp.caller(relyingPartyID: options.rp.id ?? originHost)
        let (response, credential) = try authenticator.makeCredential(options, caller: caller, algorithm: algorithm)
        let method = try await client.finishEnrollment(accessToken: accessToken, authSession: authSession, response: response)
        store.credentials.append(credential)
        try store.save(to: storeURL)
        return (method, credential)
    }

    /// Lists the signed-in account's authentication methods.
    mutating func authenticationMethods() async throws -> [AuthenticationMethod] {
        let client = self.client
        return try await withAccessToken { token in try await client.authenticationMethods(accessToken: token) }
    }

    // MARK: - Tokens

    /// Runs `operation` with a usable access token: the stored one while it has not
    /// expired, else one from the refresh token, else one from a passkey login with a
    /// stored credential. When the server rejects a stored token (401), the next source is
    /// tried once.
    mutating func withAccessToken<T>(_ operation: (String) async throws -> T) async throws -> T {
        if let tokens = store.tokens(server: server, clientID: client.clientID), tokens.expiresAt > Date().addingTimeInterval(30) {
            do {
                return try await operation(tokens.accessToken)
            } catch let error as LatchkeyAPIError where error.status == 401 {
                // Revoked or signed by a rotated key: fall through to a fresh token.
            }
        }
        let token = try await freshAccessToken()
        return try await operation(token)
    }

    /// A new access token from the refresh token or, failing that, from a login.
    private mutating func freshAccessToken() async throws -> String {
        if let refreshToken = store.tokens(server: server, clientID: client.clientID)?.refreshToken {
            do {
                let tokens = try await client.refresh(refreshToken: refreshToken)
                record(tokens, at: Date(), previousRefreshToken: refreshToken)
                try store.save(to: storeURL)
                return tokens.accessToken
            } catch let error as LatchkeyAPIError where error.code == .invalidGrant || error.status == 401 {
                printError("note: the refresh token was refused (\(error.code)); logging in with a stored passkey")
            }
        }
        guard !store.credentials.isEmpty else {
            throw CLIFailure("no tokens and no credentials in \(storeURL.path); run `latchkey authenticator signup` first")
        }
        return try await login(username: nil).0.accessToken
    }

    private mutating func record(_ tokens: TokenResponse, at time: Date, previousRefreshToken: String? = nil) {
        store.tokens = AuthenticatorStore.StoredTokens(
            tokens, server: server, clientID: client.clientID, receivedAt: time, previousRefreshToken: previousRefreshToken
        )
    }
}

/// Writes a line to standard error.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
