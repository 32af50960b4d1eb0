public import Foundation
import WebAuthn

/// Sessions of the hosted pages: started by a passkey sign-in, carried in a cookie, ended by
/// signing out or by expiry, and checked against the store on every request so that
/// revoking one takes effect at once.
public struct BrowserSessionService: Sendable {
    private let store: any BrowserSessionStore
    private let audit: any AuditLog
    private let clock: any WallClock
    private let random: any RandomSource
    /// How long a session lasts.
    public let lifetime: TimeInterval

    /// Creates the service.
    public init(store: any BrowserSessionStore, audit: any AuditLog, clock: any WallClock, random: any RandomSource, lifetime: TimeInterval) {
        self.store = store
        self.audit = audit
        self.clock = clock
        self.random = random
        self.lifetime = lifetime
    }

    /// Starts a session for a user who has just signed in. A sign-in replaces the browser's
    /// previous session (after `prompt=login`, or as another account), so that is ended.
    /// - Returns: The cookie's token, shown once, and the stored session.
    public func start(_ signedIn: SignedIn, replacing previousToken: String? = nil) async throws -> (token: String, session: BrowserSession) {
        try await end(token: previousToken)
        let now = clock.now()
        let token = Base64URL.encode(random.bytes(32))
        let session = BrowserSession(
            tokenHash: TokenService.hash(token), userID: signedIn.user.id, authenticatedAt: now,
            userVerified: signedIn.userVerified, expiresAt: now.addingTimeInterval(lifetime)
        )
        try await store.saveBrowserSession(session)
        return (token, session)
    }

    /// The live session a cookie's token names, or `nil`.
    public func session(token: String?) async throws -> BrowserSession? {
        // Tokens are 43 characters; anything far longer is not one, and is not hashed.
        guard let token, !token.isEmpty, token.utf8.count <= 128 else { return nil }
        return try await store.browserSession(hash: TokenService.hash(token), at: clock.now())
    }

    /// Ends a session.
    public func end(token: String?) async throws {
        guard let session = try await session(token: token) else { return }
        try await store.revokeBrowserSession(hash: session.tokenHash, at: clock.now())
        try await audit.record(AuditEvent(time: clock.now(), kind: .signedOut, userID: session.userID, clientID: OAuthClient.hostedPages.clientID))
    }
}
