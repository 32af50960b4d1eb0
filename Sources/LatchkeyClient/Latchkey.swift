import Foundation
public import LatchkeyWire

/// The SDK an app adds: signs people up and in with passkeys (or a password on the way to
/// one), keeps their session, and manages their passkeys.
///
/// ```swift
/// let latchkey = Latchkey(
///     configuration: LatchkeyConfiguration(server: URL(string: "https://login.example.com")!, clientID: "ios"),
///     passkeys: AuthenticationServicesPasskeyProvider(…),
///     tokens: KeychainTokenStore(accessGroup: "TEAMID.com.example.shared"))
/// let session = try await latchkey.signIn()
/// let token = try await latchkey.accessToken()
/// ```
///
/// Every call throws `LatchkeyAPIError`: the server's code, or a client code such as
/// `LatchkeyAPIError/Code/cancelled` or `LatchkeyAPIError/Code/stepUpRequired`.
public actor Latchkey {
    /// Where it signs people in.
    public nonisolated let configuration: LatchkeyConfiguration
    /// The API client underneath, for calls the flows do not cover.
    public nonisolated let api: LatchkeyAPIClient
    private let provider: any PasskeyProvider
    private let tokens: any TokenStore
    /// The session as last read or written: the store is read once per refresh.
    private var current: StoredSession?
    private var loaded = false
    /// The refresh in flight: concurrent callers share it.
    private var refreshing: Task<StoredSession, any Error>?
    private var discoveredAudience: String?
    /// Whether the last passkey sign-in on this device used a passkey on another device: a
    /// phone over hybrid, a security key (the platform said `cross-platform`). That is the
    /// moment to offer one on this device with ``addPasskey()``, unless the person declined
    /// here before; the app remembers that, as the hosted pages do in the browser.
    public private(set) var lastSignInUsedAnotherDevice = false

    /// Does no I/O: `tokens` is first read when a session is needed.
    /// - Parameters:
    ///   - configuration: The server, the client and the scopes.
    ///   - passkeys: What creates and asserts passkeys on this device.
    ///   - tokens: Where the session is kept between launches.
    public init(configuration: LatchkeyConfiguration, passkeys: any PasskeyProvider, tokens: any TokenStore) {
        self.configuration = configuration
        self.provider = passkeys
        self.tokens = tokens
        self.api = LatchkeyAPIClient(
            baseURL: configuration.server, clientID: configuration.clientID, clientSecret: configuration.clientSecret,
            transport: configuration.transport
        )
    }

    // MARK: - Signing up and in

    /// Creates an account with a passkey whose identifier the person picks on the system
    /// sheet (the account creation API); the provider returns it with the passkey.
    @discardableResult
    public func signUp() async throws(LatchkeyAPIError) -> LatchkeySession {
        let (options, authSession) = try await api.signupChallenge(profile: nil)
        let created = try await create(PasskeyCreationRequest(options: options, style: .accountCreation))
        guard let contact = created.contact else {
            throw LatchkeyAPIError(status: nil, code: .passkeyFailed, detail: "the passkey provider returned no contact identifier for the new account")
        }
        var profile = SignupProfile(name: created.name)
        switch contact {
        case .email(let email): profile.email = email
        case .phoneNumber(let number): profile.phoneNumber = number
        }
        let response = try await registered(created, options: options) { () async throws(LatchkeyAPIError) in
            try await api.finishSignup(authSession: authSession, response: created.response, scope: scope, audience: try await audience(), profile: profile)
        }
        return try await signedIn(response, method: .passkey)
    }

    /// Creates an account with a passkey for an identifier the app chose.
    @discardableResult
    public func signUp(email: String, name: String? = nil) async throws(LatchkeyAPIError) -> LatchkeySession {
        try await signUp(profile: SignupProfile(email: email, name: name))
    }

    /// Creates an account with a passkey for a whole profile (a phone number, a username, …);
    /// the server requires the identifiers its connection marks as required.
    @discardableResult
    public func signUp(profile: SignupProfile) async throws(LatchkeyAPIError) -> LatchkeySession {
        let (options, authSession) = try await api.signupChallenge(profile: profile)
        let created = try await create(PasskeyCreationRequest(options: options, style: .standard))
        let response = try await registered(created, options: options) { () async throws(LatchkeyAPIError) in
            try await api.finishSignup(authSession: authSession, response: created.response, scope: scope, audience: try await audience())
        }
        return try await signedIn(response, method: .passkey)
    }

    /// Signs in with a discoverable passkey: the person picks the account on the sheet.
    /// - Parameters:
    ///   - username: An account identifier, for a sign-in limited to that account's passkeys
    ///     (`allowCredentials`); `nil` (the default) for a discoverable one.
    ///   - mode: ``PasskeyAssertionRequest/Mode/immediate`` (the default) fails at once
    ///   with `LatchkeyAPIError/Code/noCredential` when the device has no passkey at hand, so
    ///   the app can show its other ways in.
    @discardableResult
    public func signIn(username: String? = nil, mode: PasskeyAssertionRequest.Mode = .immediate) async throws(LatchkeyAPIError) -> LatchkeySession {
        try await signIn(username: username, mode: mode, extensions: nil).session
    }

    /// Signs in as ``signIn(username:mode:)`` does, and asks the passkey for the PRF
    /// extension's secrets: the same passkey and salt always give the same 32 bytes, for
    /// encrypting the person's data with a key the server never sees. The outputs stay on
    /// the device: they are not sent to the server, stored or logged.
    /// - Parameters:
    ///   - username: As for ``signIn(username:mode:)``; needed with `evalByCredential`, so
    ///     that the request lists the account's passkeys.
    ///   - mode: As for ``signIn(username:mode:)``.
    ///   - prf: The salts: `eval` for any passkey, `evalByCredential` by credential ID
    ///     (base64url).
    /// - Returns: The session, and the outputs when the passkey gave them (`nil` when it
    ///   does not support PRF).
    public func signIn(
        username: String? = nil, mode: PasskeyAssertionRequest.Mode = .immediate, prf: PRFInputs
    ) async throws(LatchkeyAPIError) -> (session: LatchkeySession, prf: PRFValues?) {
        let (session, assertion) = try await signIn(username: username, mode: mode, extensions: ExtensionInputs(prf: prf))
        return (session, assertion.clientExtensionResults.prf?.results)
    }

    private func signIn(
        username: String?, mode: PasskeyAssertionRequest.Mode, extensions: ExtensionInputs?
    ) async throws(LatchkeyAPIError) -> (session: LatchkeySession, assertion: AuthenticationResponseJSON) {
        let (options, authSession) = try await api.loginChallenge(username: username, extensions: extensions)
        let assertion = try await assert(PasskeyAssertionRequest(options: options, mode: mode))
        // The server needs none of the PRF secrets to verify the assertion.
        var sent = assertion
        sent.clientExtensionResults.prf = sent.clientExtensionResults.prf.map { PRFOutputs(enabled: $0.enabled) }
        do {
            let response = try await api.finishLogin(authSession: authSession, response: sent, scope: scope, audience: try await audience())
            let session = try await signedIn(response, method: .passkey)
            lastSignInUsedAnotherDevice = assertion.authenticatorAttachment == "cross-platform"
            return (session, assertion)
        } catch where error.reason == "unknown_credential" {
            // The server no longer knows this passkey (removed on another device): tell the
            // credential manager, so that it stops offering it.
            let relyingPartyID = options.rpId ?? configuration.server.host ?? ""
            try? await provider.report([.unknownCredential(relyingPartyID: relyingPartyID, credentialID: assertion.rawId)])
            throw error
        }
    }

    /// Signs in with an email and a password. Follow with ``upgradeToPasskey()``.
    @discardableResult
    public func signIn(email: String, password: String) async throws(LatchkeyAPIError) -> LatchkeySession {
        let response = try await api.signIn(username: email, password: password, scope: scope, audience: try await audience())
        return try await signedIn(response, method: .password)
    }

    /// After a password sign-in, asks the platform to create a passkey without a sheet
    /// (conditional create). Returns `false` when the platform declined or the person has a
    /// passkey already; server and transport failures throw.
    public func upgradeToPasskey() async throws(LatchkeyAPIError) -> Bool {
        let stored = try await requireSession()
        guard stored.session.method == .password else { return false }
        let token = try await accessToken()
        let (options, authSession, _) = try await api.startEnrollment(accessToken: token, conditional: true)
        let created: PasskeyCreation
        do {
            created = try await create(PasskeyCreationRequest(options: options, style: .conditional))
        } catch where [.upgradeRefused, .cancelled, .noCredential, .deviceNotConfigured].contains(error.code) {
            return false
        }
        _ = try await registered(created, options: options) { () async throws(LatchkeyAPIError) in
            try await myAccount { token throws(LatchkeyAPIError) in
                try await self.api.finishEnrollment(accessToken: token, authSession: authSession, response: created.response)
            }
        }
        return true
    }

    // MARK: - Passkeys

    /// Adds a passkey to the signed-in account (the sign-in must be recent, else
    /// `LatchkeyAPIError/Code/stepUpRequired`).
    @discardableResult
    public func addPasskey() async throws(LatchkeyAPIError) -> LatchkeyPasskey {
        let (options, authSession, token) = try await myAccount { token throws(LatchkeyAPIError) in
            let (options, authSession, _) = try await self.api.startEnrollment(accessToken: token)
            return (options, authSession, token)
        }
        let created = try await create(PasskeyCreationRequest(options: options, style: .standard))
        let method = try await registered(created, options: options) { () async throws(LatchkeyAPIError) in
            try await api.finishEnrollment(accessToken: token, authSession: authSession, response: created.response)
        }
        return LatchkeyPasskey(method)
    }

    /// The signed-in account's passkeys.
    public func passkeys() async throws(LatchkeyAPIError) -> [LatchkeyPasskey] {
        try await myAccount { token throws(LatchkeyAPIError) in
            try await self.api.authenticationMethods(accessToken: token).filter { $0.type == "passkey" }.map(LatchkeyPasskey.init)
        }
    }

    /// Removes a passkey from the account (recent sign-in needed), then tells the credential
    /// manager which passkeys remain.
    public func removePasskey(id: String) async throws(LatchkeyAPIError) {
        try await myAccount { token throws(LatchkeyAPIError) in try await self.api.deleteAuthenticationMethod(id: id, accessToken: token) }
        try? await reportSignals()
    }

    /// Removes the account's password once it has a passkey (recent sign-in needed), then
    /// offers the saved password for removal.
    public func removePassword() async throws(LatchkeyAPIError) {
        let userID = try await requireSession().session.userID
        let signals = try await myAccount { token throws(LatchkeyAPIError) in try await self.api.removePassword(userID: userID, accessToken: token) }
        if let unused = signals.unusedPassword {
            try? await provider.report([.unusedPassword(domain: unused.domain, userName: unused.username)])
        }
    }

    /// Reads what the server knows (`GET /me/v1/signals`) and tells the credential manager:
    /// the accepted passkeys and the current names.
    public func reportSignals() async throws(LatchkeyAPIError) {
        let signals = try await myAccount { token throws(LatchkeyAPIError) in try await self.api.signals(accessToken: token) }
        guard let userHandle = Base64URLBytes(base64URL: signals.userID) else {
            throw LatchkeyAPIError(status: nil, code: .invalidResponse, detail: "the signals' user_id is not base64url")
        }
        let accepted = signals.allAcceptedCredentialIDs.compactMap(Base64URLBytes.init(base64URL:))
        try await report([
            .allAcceptedCredentials(relyingPartyID: signals.rpID, userHandle: userHandle, credentialIDs: accepted),
            .currentUserDetails(relyingPartyID: signals.rpID, userHandle: userHandle, name: signals.name, displayName: signals.displayName),
        ])
    }

    // MARK: - Getting back in

    /// "Lost your passkey?": mails a recovery code to the address when it belongs to an
    /// account and is verified (the answer is the same either way).
    public func startRecovery(email: String) async throws(LatchkeyAPIError) {
        try await api.startRecovery(email: email)
    }

    /// Gets a person back in without a passkey: the emailed code (or a saved recovery code)
    /// buys a short-lived token that may only add a passkey; a new passkey is made on this
    /// device, and the person is signed in with it.
    /// - Parameters:
    ///   - email: The account's email address.
    ///   - code: The code from the recovery message.
    ///   - recoveryCode: A saved recovery code, instead of `code`.
    @discardableResult
    public func recover(email: String, code: String? = nil, recoveryCode: String? = nil) async throws(LatchkeyAPIError) -> LatchkeySession {
        let recovery = try await api.recover(email: email, code: code, recoveryCode: recoveryCode)
        let (options, authSession, _) = try await api.startEnrollment(accessToken: recovery.accessToken)
        let created = try await create(PasskeyCreationRequest(options: options, style: .standard))
        _ = try await registered(created, options: options) { () async throws(LatchkeyAPIError) in
            try await api.finishEnrollment(accessToken: recovery.accessToken, authSession: authSession, response: created.response)
        }
        return try await signIn(username: email, mode: .modal)
    }

    /// Sends a new verification code to the account's address.
    public func sendEmailVerification() async throws(LatchkeyAPIError) {
        try await myAccount { token throws(LatchkeyAPIError) in try await self.api.sendEmailVerification(accessToken: token) }
    }

    /// Verifies the account's address (or finishes a change of address) with the code sent
    /// to it, then tells the credential manager the account's current name.
    /// - Returns: The verified address.
    @discardableResult
    public func verifyEmail(code: String) async throws(LatchkeyAPIError) -> String {
        let verified = try await myAccount { token throws(LatchkeyAPIError) in try await self.api.verifyEmail(code: code, accessToken: token) }
        if let userHandle = Base64URLBytes(base64URL: verified.signals.userID) {
            try? await report([
                .currentUserDetails(relyingPartyID: verified.signals.rpID, userHandle: userHandle, name: verified.signals.name, displayName: verified.signals.displayName)
            ])
        }
        if var stored = current, stored.session.email != verified.email {
            stored.session.email = verified.email
            try? await save(stored)
        }
        return verified.email
    }

    /// Starts a change of the account's address: a code goes to the new address, and
    /// ``verifyEmail(code:)`` makes the change (the sign-in must be recent).
    public func changeEmail(to email: String) async throws(LatchkeyAPIError) {
        _ = try await myAccount { token throws(LatchkeyAPIError) in try await self.api.changeEmail(to: email, accessToken: token) }
    }

    /// A new set of saved recovery codes, to show once; the old set stops working.
    public func createRecoveryCodes() async throws(LatchkeyAPIError) -> [String] {
        try await myAccount { token throws(LatchkeyAPIError) in try await self.api.createRecoveryCodes(accessToken: token) }
    }

    // MARK: - The session

    /// Who is signed in, or `nil`.
    public var session: LatchkeySession? {
        get async throws(LatchkeyAPIError) { try await stored()?.session }
    }

    /// A usable access token: the stored one while it is fresh, else a refreshed one.
    /// Concurrent callers share one refresh.
    public func accessToken() async throws(LatchkeyAPIError) -> String {
        let stored = try await requireSession()
        if stored.accessTokenExpiresAt.timeIntervalSinceNow > configuration.refreshLeeway { return stored.accessToken }
        return try await refreshed(replacing: stored.accessToken).accessToken
    }

    /// Signs out: revokes the refresh token and clears the store. The store is cleared even
    /// when the server cannot be reached; the error then says so.
    public func signOut() async throws(LatchkeyAPIError) {
        let stored = try await stored()
        current = nil
        do {
            try await tokens.clear()
        } catch {
            throw LatchkeyAPIError(status: nil, code: .storeFailed, detail: "the token store could not be cleared: \(error)")
        }
        if let refreshToken = stored?.refreshToken { try await api.revoke(token: refreshToken) }
    }

    // MARK: - Internals

    private var scope: String { configuration.scopes.joined(separator: " ") }

    /// The configured audience, else the one the discovery document names.
    private func audience() async throws(LatchkeyAPIError) -> String {
        if let audience = configuration.audience ?? discoveredAudience { return audience }
        let audience = try await api.discoverMyAccountAudience()
        discoveredAudience = audience
        return audience
    }

    private func create(_ request: PasskeyCreationRequest) async throws(LatchkeyAPIError) -> PasskeyCreation {
        do { return try await provider.createPasskey(request) } catch { throw Self.providerError(error) }
    }

    private func assert(_ request: PasskeyAssertionRequest) async throws(LatchkeyAPIError) -> AuthenticationResponseJSON {
        do { return try await provider.assertPasskey(request) } catch { throw Self.providerError(error) }
    }

    private func report(_ signals: [PasskeySignal]) async throws(LatchkeyAPIError) {
        do { try await provider.report(signals) } catch { throw Self.providerError(error) }
    }

    /// Sends a new passkey to the server. When the server refuses it, the passkey the device
    /// just made is useless: the credential manager is told so (as WebAuthn's
    /// `signalUnknownCredential` advises), so that it is never offered.
    private func registered<T>(
        _ created: PasskeyCreation, options: PublicKeyCredentialCreationOptionsJSON, _ send: () async throws(LatchkeyAPIError) -> T
    ) async throws(LatchkeyAPIError) -> T {
        do {
            return try await send()
        } catch {
            // Only a refusal (4xx) says the server did not keep the passkey; after a 5xx or a
            // lost answer it may have.
            if let status = error.status, (400..<500).contains(status) {
                let relyingPartyID = options.rp.id ?? configuration.server.host ?? ""
                try? await provider.report([.unknownCredential(relyingPartyID: relyingPartyID, credentialID: created.response.rawId)])
            }
            throw error
        }
    }

    static func providerError(_ error: any Error) -> LatchkeyAPIError {
        if let error = error as? LatchkeyAPIError { return error }
        if error is CancellationError { return LatchkeyAPIError(status: nil, code: .cancelled, detail: "the passkey request was cancelled") }
        return LatchkeyAPIError(status: nil, code: .passkeyFailed, detail: "the passkey provider failed: \(error)")
    }

    /// Runs a My Account call with an access token. A `401` asking for a newer sign-in
    /// becomes `LatchkeyAPIError/Code/stepUpRequired`; any other `401` (a rotated signing
    /// key, a revoked access token) is retried once with a refreshed token.
    private func myAccount<T: Sendable>(_ call: (String) async throws(LatchkeyAPIError) -> T) async throws(LatchkeyAPIError) -> T {
        let token = try await accessToken()
        do {
            return try await call(token)
        } catch where error.reason == "insufficient_user_authentication" {
            var stepUp = error
            stepUp.code = .stepUpRequired
            throw stepUp
        } catch where error.status == 401 {
            let fresh = try await refreshed(replacing: token)
            return try await call(fresh.accessToken)
        }
    }

    /// The stored session, read from the store once.
    private func stored() async throws(LatchkeyAPIError) -> StoredSession? {
        if !loaded {
            current = try await load()
            loaded = true
        }
        return current
    }

    private func requireSession() async throws(LatchkeyAPIError) -> StoredSession {
        guard let stored = try await stored() else {
            throw LatchkeyAPIError(status: nil, code: .notSignedIn, detail: "nobody is signed in; call signIn() or signUp() first")
        }
        return stored
    }

    /// Reads the store; a session of another server or client counts as none.
    private func load() async throws(LatchkeyAPIError) -> StoredSession? {
        let stored: StoredSession?
        do {
            stored = try await tokens.load()
        } catch {
            throw LatchkeyAPIError(status: nil, code: .storeFailed, detail: "the token store could not be read: \(error)")
        }
        guard let stored, stored.server == configuration.server.absoluteString, stored.clientID == configuration.clientID else { return nil }
        return stored
    }

    private func save(_ session: StoredSession) async throws(LatchkeyAPIError) {
        current = session
        loaded = true
        do {
            try await tokens.save(session)
        } catch {
            throw LatchkeyAPIError(status: nil, code: .storeFailed, detail: "the token store could not be written: \(error)")
        }
    }

    /// Records a sign-in's tokens and returns who signed in.
    private func signedIn(_ response: TokenResponse, method: LatchkeySession.Method) async throws(LatchkeyAPIError) -> LatchkeySession {
        let session: LatchkeySession
        if let idToken = response.idToken, let claims = IDTokenClaims(idToken) {
            session = LatchkeySession(userID: claims.sub, email: claims.email, name: claims.name, method: method, signedInAt: claims.authTime ?? Date())
        } else {
            let info = try await api.userInfo(accessToken: response.accessToken)
            session = LatchkeySession(userID: info.subject, email: info.email, name: info.name, method: method, signedInAt: Date())
        }
        try await save(stored(from: response, session: session, keeping: nil))
        return session
    }

    private func stored(from response: TokenResponse, session: LatchkeySession, keeping refreshToken: String?) -> StoredSession {
        StoredSession(
            session: session, accessToken: response.accessToken,
            accessTokenExpiresAt: Date().addingTimeInterval(TimeInterval(response.expiresIn)),
            refreshToken: response.refreshToken ?? refreshToken, idToken: response.idToken ?? current?.idToken,
            server: configuration.server.absoluteString, clientID: configuration.clientID
        )
    }

    /// A session with a newer access token than `stale`: one refresh, shared by every caller
    /// that finds the same stale token.
    private func refreshed(replacing stale: String) async throws(LatchkeyAPIError) -> StoredSession {
        if let current, current.accessToken != stale, current.accessTokenExpiresAt.timeIntervalSinceNow > configuration.refreshLeeway {
            return current
        }
        let task: Task<StoredSession, any Error>
        if let refreshing {
            task = refreshing
        } else {
            task = Task { try await self.refresh(replacing: stale) }
            refreshing = task
        }
        defer { if refreshing == task { refreshing = nil } }
        do {
            return try await task.value
        } catch {
            throw Self.providerError(error)
        }
    }

    private func refresh(replacing stale: String) async throws(LatchkeyAPIError) -> StoredSession {
        // Another process sharing the store (an app extension) may have rotated already:
        // use its newer tokens rather than present a refresh token that is no longer current.
        if let newer = try await load(), newer.accessToken != stale {
            current = newer
            if newer.accessTokenExpiresAt.timeIntervalSinceNow > configuration.refreshLeeway { return newer }
        }
        guard let stored = current, let refreshToken = stored.refreshToken else {
            current = nil
            throw LatchkeyAPIError(status: nil, code: .notSignedIn, detail: "the access token expired and there is no refresh token; sign in again")
        }
        do {
            let response = try await api.refresh(refreshToken: refreshToken, audience: try await audience())
            // The new refresh token is written before anything else happens: the old one is
            // spent from now on.
            let next = self.stored(from: response, session: stored.session, keeping: refreshToken)
            try await save(next)
            return next
        } catch where error.code == .invalidGrant {
            // A newer token in the store means another process rotated in the meantime: keep
            // it, and the person stays signed in.
            if let newer = try await load(), newer.refreshToken != refreshToken {
                current = newer
                return newer
            }
            current = nil
            try? await tokens.clear()
            var ended = error
            ended.code = .notSignedIn
            ended.detail = "the session ended (\(error.detail ?? error.code.rawValue)); sign in again"
            throw ended
        }
    }
}
