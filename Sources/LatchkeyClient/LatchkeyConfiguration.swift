public import Foundation

/// Where ``Latchkey`` signs people in and what it asks for.
public struct LatchkeyConfiguration: Sendable {
    /// The server's public URL, for example `https://login.example.com`.
    public var server: URL
    public var clientID: String
    /// The secret of a confidential client; apps are public clients and leave it `nil`.
    public var clientSecret: String?
    /// The scopes asked for at sign-in. The default asks for the profile, a refresh token
    /// and the whole My Account passkey API, which the passkey calls need.
    public var scopes: [String]
    /// The audience of the access tokens; `nil` asks the server's discovery document for
    /// its My Account audience (the issuer followed by `me/`).
    public var audience: String?
    /// How long before its expiry an access token is refreshed.
    public var refreshLeeway: TimeInterval
    /// How requests reach the server.
    public var transport: any LatchkeyTransport

    public static let defaultScopes = ["openid", "profile", "email", "offline_access"] + LatchkeyAPIClient.myAccountScopes

    public init(
        server: URL,
        clientID: String,
        clientSecret: String? = nil,
        scopes: [String] = LatchkeyConfiguration.defaultScopes,
        audience: String? = nil,
        refreshLeeway: TimeInterval = 30,
        transport: any LatchkeyTransport = URLSessionTransport()
    ) {
        self.server = server
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.scopes = scopes
        self.audience = audience
        self.refreshLeeway = refreshLeeway
        self.transport = transport
    }
}
