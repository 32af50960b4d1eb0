import Foundation
public import IdentityCore

/// What the HTTP faces call into. Built once by the composition root.
public struct APIServices: Sendable {
    /// Passkey ceremonies.
    public let passkeys: PasskeyService
    /// The signed-in user's passkeys.
    public let accounts: AccountService
    /// Tokens.
    public let tokens: TokenService
    /// Registered clients.
    public let clients: ClientRegistry
    /// The authorization code flow.
    public let authorization: AuthorizationService
    /// Provider names by AAGUID.
    public let authenticatorNames: AuthenticatorNames
    /// The public base URL, without a trailing slash, for `Location` headers and discovery.
    public let publicURL: String
    /// The largest request body accepted.
    public let maximumBodyBytes: Int

    /// Creates the set.
    public init(
        passkeys: PasskeyService,
        accounts: AccountService,
        tokens: TokenService,
        clients: ClientRegistry,
        authorization: AuthorizationService,
        authenticatorNames: AuthenticatorNames,
        publicURL: String,
        maximumBodyBytes: Int = 64 * 1024
    ) {
        self.passkeys = passkeys
        self.accounts = accounts
        self.tokens = tokens
        self.clients = clients
        self.authorization = authorization
        self.authenticatorNames = authenticatorNames
        self.publicURL = publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL
        self.maximumBodyBytes = maximumBodyBytes
    }

    package var body: RequestBodyReader { RequestBodyReader(maximumBytes: maximumBodyBytes) }
}
