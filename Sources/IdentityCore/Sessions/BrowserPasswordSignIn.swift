import Foundation

/// A password sign-in or sign-up that starts a browser session (the hosted pages), as one
/// call: the password checked or set, the session begun, and for an account with no passkey
/// yet the automatic upgrade's options, which must start within minutes of the password.
public struct BrowserPasswordSignIn: Sendable {
    private let passwords: PasswordService
    private let sessions: BrowserSessionService
    private let passkeys: PasskeyService
    private let accounts: AccountService

    public init(passwords: PasswordService, sessions: BrowserSessionService, passkeys: PasskeyService, accounts: AccountService) {
        self.passwords = passwords
        self.sessions = sessions
        self.passkeys = passkeys
        self.accounts = accounts
    }

    /// A started session.
    public struct Started: Sendable {
        /// The session's token, to hand out once.
        public let token: String
        public let session: BrowserSession
        /// The options of an automatic passkey upgrade, for an account without a passkey.
        public let upgrade: CreationChallenge?
    }

    /// Checks the password and starts a session, offering a passkey when the account has none.
    public func signIn(client: OAuthClient, username: String?, password: String?, origin: RequestOrigin?) async throws -> Started {
        let user = try await passwords.signIn(client: client, username: username, password: password, origin: origin)
        let (token, session) = try await sessions.startAfterPassword(for: user)
        var upgrade: CreationChallenge?
        if try await accounts.passkeys(of: user.id).isEmpty {
            upgrade = try await passkeys.startConditionalEnrollment(userID: user.id, clientID: client.clientID, passwordSignInAt: session.authenticatedAt)
        }
        return Started(token: token, session: session, upgrade: upgrade)
    }

    /// Creates a password account and starts its session (for browsers that cannot create
    /// a passkey; the upgrade is offered at its next sign-in).
    public func signUp(client: OAuthClient, email: String?, password: String?, name: String?, origin: RequestOrigin?) async throws -> Started {
        let user = try await passwords.signUp(client: client, email: email, password: password, name: name, origin: origin)
        let (token, session) = try await sessions.startAfterPassword(for: user)
        return Started(token: token, session: session, upgrade: nil)
    }
}
