import Foundation
package import FaceFrame
public import IdentityCore

/// What the Authentication API (`/passkey/*`, `/oauth/*`) calls.
public struct AuthenticationAPIServices: Sendable {
    /// Passkey ceremonies.
    public let passkeys: PasskeyService
    public let tokens: TokenService
    public let clients: ClientRegistry
    /// The authorization code exchange.
    public let authorization: AuthorizationService
    /// Password sign-up and sign-in, for accounts that still have a password.
    public let passwords: PasswordService
    /// Recovery (`/recovery/start` and the recovery grant).
    public let recovery: AccountRecoveryService
    package let body: RequestBodyReader

    /// Caps request bodies at `maximumBodyBytes`.
    public init(
        passkeys: PasskeyService, tokens: TokenService, clients: ClientRegistry, authorization: AuthorizationService, passwords: PasswordService,
        recovery: AccountRecoveryService, maximumBodyBytes: Int
    ) {
        self.passwords = passwords
        self.recovery = recovery
        self.passkeys = passkeys
        self.tokens = tokens
        self.clients = clients
        self.authorization = authorization
        self.body = RequestBodyReader(maximumBytes: maximumBodyBytes)
    }
}

/// What the My Account API (`/me/v1/*`) calls.
public struct MyAccountServices: Sendable {
    /// Enrollment ceremonies.
    public let passkeys: PasskeyService
    /// The signed-in user's passkeys.
    public let accounts: AccountService
    /// The signed-in user's password.
    public let passwords: PasswordService
    /// Email verification and saved recovery codes.
    public let recovery: AccountRecoveryService
    /// Profile changes: the name, and a change of address that waits for its code.
    public var profiles: ProfileService { ProfileService(accounts: accounts, recovery: recovery) }
    /// Bearer token checks.
    public let tokens: TokenService
    /// Provider names by AAGUID.
    public let authenticatorNames: AuthenticatorNames
    /// The public base URL, without a trailing slash, for `Location` headers.
    public let publicURL: String
    package let body: RequestBodyReader

    /// Drops a trailing slash from `publicURL` and caps request bodies at `maximumBodyBytes`.
    public init(
        passkeys: PasskeyService, accounts: AccountService, passwords: PasswordService, recovery: AccountRecoveryService, tokens: TokenService,
        authenticatorNames: AuthenticatorNames, publicURL: String, maximumBodyBytes: Int
    ) {
        self.passwords = passwords
        self.recovery = recovery
        self.passkeys = passkeys
        self.accounts = accounts
        self.tokens = tokens
        self.authenticatorNames = authenticatorNames
        self.publicURL = PublicURL.trimmed(publicURL)
        self.body = RequestBodyReader(maximumBytes: maximumBodyBytes)
    }
}

/// What discovery, the JWKS and userinfo call.
public struct OpenIDConnectServices: Sendable {
    /// Tokens and keys.
    public let tokens: TokenService
    /// Accounts, for userinfo.
    public let accounts: AccountService

    public init(tokens: TokenService, accounts: AccountService) {
        self.tokens = tokens
        self.accounts = accounts
    }
}
