public import Foundation
import WebAuthn

/// Sessions carried by an opaque token: the hosted pages' cookie, or a self-service session
/// token (`ory_st_…`). Started by a passkey sign-in, ended by signing out or by expiry, and
/// checked against the store on every request so that revoking one takes effect at once.
/// Only the token's SHA-256 is stored.
public struct BrowserSessionService: Sendable {
    private let store: any BrowserSessionStore
    private let audit: any AuditLog
    private let clock: any WallClock
    private let random: any RandomSource
    /// How long a session lasts.
    public let lifetime: TimeInterval
    /// How tokens look, which also keeps one kind of session from being used as the other.
    public let tokenFormat: TokenFormat
    /// The client that sign-outs are audited under.
    private let clientID: String

    /// How session tokens are written.
    public enum TokenFormat: Sendable, Hashable {
        /// 32 random bytes in base64url (cookies).
        case base64URL
        /// A prefix and 32 random letters and digits, as Kratos writes `ory_st_…`.
        case prefixedAlphanumeric(String)
    }

    /// `clientID` is the client sign-outs are audited under; the hosted pages' by default.
    public init(
        store: any BrowserSessionStore, audit: any AuditLog, clock: any WallClock, random: any RandomSource, lifetime: TimeInterval,
        tokenFormat: TokenFormat = .base64URL, clientID: String = OAuthClient.hostedPages.clientID
    ) {
        self.store = store
        self.audit = audit
        self.clock = clock
        self.random = random
        self.lifetime = lifetime
        self.tokenFormat = tokenFormat
        self.clientID = clientID
    }

    /// Decides a new session for a user who has just signed in, without writing it: the
    /// ceremony that signed the user in writes it, in its own transaction (pass this as
    /// ``PasskeyService/finishCeremony(client:authSession:response:profile:expectedUserID:findsUnnamedCredential:startSession:)``'s
    /// `startSession`).
    /// - Returns: The session to write, and the token to hand out once (with the session).
    public func begin(_ signedIn: SignedIn) -> (SessionRecord?, (token: String, session: BrowserSession)) {
        let started = newSession(
            for: signedIn.user.id, userVerified: signedIn.userVerified, credentialID: signedIn.credentialID.isEmpty ? nil : signedIn.credentialID, method: .passkey
        )
        return (.browser(started.session), started)
    }

    /// Starts and writes a session for a user who signed in with a password.
    /// - Returns: The token to hand out once, and the session.
    public func startAfterPassword(for user: User) async throws -> (token: String, session: BrowserSession) {
        let started = newSession(for: user.id, userVerified: false, credentialID: nil, method: .password)
        try await store.saveBrowserSession(started.session)
        return started
    }

    /// Starts and writes the short session a recovery gives (at most
    /// ``TokenService/recoveryTokenLifetime``): long enough to enroll a new passkey.
    public func startAfterRecovery(for user: User) async throws -> (token: String, session: BrowserSession) {
        let started = newSession(
            for: user.id, userVerified: false, credentialID: nil, method: .passkey, lifetime: min(lifetime, TokenService.recoveryTokenLifetime), isRecovery: true
        )
        try await store.saveBrowserSession(started.session)
        return started
    }

    /// A session starting now, and its token.
    private func newSession(
        for userID: UserID, userVerified: Bool, credentialID: [UInt8]?, method: SignInMethod, lifetime: TimeInterval? = nil, isRecovery: Bool = false
    ) -> (token: String, session: BrowserSession) {
        let now = clock.now()
        let token = newToken()
        let session = BrowserSession(
            tokenHash: TokenService.hash(token), userID: userID, authenticatedAt: now, userVerified: userVerified,
            expiresAt: now.addingTimeInterval(lifetime ?? self.lifetime), credentialID: credentialID, method: method, isRecovery: isRecovery
        )
        return (token, session)
    }

    /// The live session a cookie's token names, or `nil`.
    public func session(token: String?) async throws -> BrowserSession? {
        // Tokens are at most 43 characters; anything far longer is not one, and is not hashed.
        guard let token, !token.isEmpty, token.utf8.count <= 128 else { return nil }
        if case .prefixedAlphanumeric(let prefix) = tokenFormat, !token.hasPrefix(prefix) { return nil }
        if case .base64URL = tokenFormat, token.utf8.count != 43 { return nil }
        return try await store.browserSession(hash: TokenService.hash(token), at: clock.now())
    }

    /// The account's other live sessions than `current`, newest sign-in first: where else the
    /// person is signed in (every face's browser and self-service sessions).
    /// - Throws: `access_denied` (`recovery_session`) for a session a recovery started, which
    ///   may only add a passkey.
    public func otherSessions(than current: BrowserSession) async throws -> [BrowserSession] {
        guard !current.isRecovery else {
            throw IdentityError(.accessDenied, "a session that account recovery started may only add a passkey", reason: .recoverySession)
        }
        return try await store.browserSessions(userID: current.userID, at: clock.now()).filter { $0.tokenHash != current.tokenHash }
    }

    /// Ends the account's other live sessions than `current` ("sign out my other devices").
    /// - Returns: How many were ended.
    public func endOtherSessions(than current: BrowserSession, origin: RequestOrigin?) async throws -> Int {
        let others = try await otherSessions(than: current)
        for session in others { try await store.revokeBrowserSession(hash: session.tokenHash, at: clock.now()) }
        if !others.isEmpty {
            try await audit.record(AuditEvent(time: clock.now(), kind: .signedOut, userID: current.userID, clientID: clientID, detail: "\(others.count) other sessions", origin: origin))
        }
        return others.count
    }

    /// Ends one of the account's other sessions, named by its token's hash.
    /// - Returns: Whether it was live (and is now ended).
    public func endOtherSession(tokenHash: [UInt8], of current: BrowserSession, origin: RequestOrigin?) async throws -> Bool {
        guard !current.isRecovery else {
            throw IdentityError(.accessDenied, "a session that account recovery started may only add a passkey", reason: .recoverySession)
        }
        guard tokenHash != current.tokenHash, let session = try await store.browserSession(hash: tokenHash, at: clock.now()), session.userID == current.userID
        else { return false }
        try await store.revokeBrowserSession(hash: tokenHash, at: clock.now())
        try await audit.record(AuditEvent(time: clock.now(), kind: .signedOut, userID: current.userID, clientID: clientID, detail: "another session", origin: origin))
        return true
    }

    /// Ends a session.
    public func end(token: String?, origin: RequestOrigin?) async throws {
        guard let session = try await session(token: token) else { return }
        try await store.revokeBrowserSession(hash: session.tokenHash, at: clock.now())
        try await audit.record(AuditEvent(time: clock.now(), kind: .signedOut, userID: session.userID, clientID: clientID, origin: origin))
    }

    private func newToken() -> String {
        switch tokenFormat {
        case .base64URL:
            return Base64URL.encode(random.bytes(32))
        case .prefixedAlphanumeric(let prefix):
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
            var characters: [Character] = []
            while characters.count < 32 {
                // Bytes of 248 and above are skipped so that every character is equally likely.
                for byte in random.bytes(48) where byte < 248 && characters.count < 32 {
                    characters.append(alphabet[Int(byte) % 62])
                }
            }
            return prefix + String(characters)
        }
    }
}
