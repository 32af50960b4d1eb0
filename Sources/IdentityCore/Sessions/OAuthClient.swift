import Crypto
public import Foundation

/// The grants a client may use at the token endpoint.
public enum GrantType: String, Sendable, Hashable, CaseIterable {
    /// Finish a passkey ceremony (`urn:okta:params:oauth:grant-type:webauthn`).
    case webauthn = "urn:okta:params:oauth:grant-type:webauthn"
    /// Exchange a refresh token.
    case refreshToken = "refresh_token"
    /// Exchange an authorization code (hosted pages).
    case authorizationCode = "authorization_code"
    /// Sign in with an email and password (Resource Owner Password, RFC 6749 §4.3), for
    /// accounts that still have a password. Also allows Auth0's password-realm grant.
    case password = "password"

    /// The short names used in configuration: `webauthn`, `refresh_token`, `authorization_code`, `password`.
    public init?(configName: String) {
        switch configName {
        case "webauthn", GrantType.webauthn.rawValue: self = .webauthn
        case "refresh_token": self = .refreshToken
        case "authorization_code": self = .authorizationCode
        case "password": self = .password
        default: return nil
        }
    }
}

/// An application registered with Latchkey.
public struct OAuthClient: Sendable, Hashable {
    public let clientID: String
    /// A display name.
    public let name: String
    /// The secret of a confidential client; `nil` for a public client (mobile and
    /// single-page apps), which authenticates with its client ID alone.
    public let secret: String?
    /// The grants it may use.
    public let grantTypes: Set<GrantType>
    /// Where the authorization endpoint may send codes; matched exactly (OAuth 2.1 §2.3.1).
    public let redirectURIs: [String]
    /// The scopes it may receive (`clients[].allowed_scopes`); `nil` allows every scope.
    public let allowedScopes: Set<String>?
    /// Whether it is the deployer's own application (`clients[].first_party`), which the
    /// authorization endpoint serves without asking the person's consent.
    public let isFirstParty: Bool
    /// What its ID tokens are signed with (`clients[].id_token_signed_response_alg`, OpenID
    /// Connect Registration's name): RS256 unless it asks for PS256 or ES256, as OpenID
    /// Connect makes RS256 the default and Auth0's SDKs verify nothing else.
    public let idTokenSigningAlgorithm: SigningAlgorithm
    /// Where RP-Initiated Logout may send the browser back (`clients[].post_logout_redirect_uris`,
    /// OpenID Connect's name): matched exactly.
    public let postLogoutRedirectURIs: [String]
    /// Where Auth0's `/v2/logout` may send the browser back (`clients[].allowed_logout_urls`,
    /// Auth0's name): matched without the query and fragment, a `*.` host label matching any
    /// one subdomain.
    public let allowedLogoutURLs: [String]
    /// Where OpenID Connect Back-Channel Logout posts a logout token when one of its login
    /// sessions ends (`clients[].backchannel_logout_uri`); `nil` tells it nothing.
    public let backchannelLogoutURI: URL?

    public init(
        clientID: String, name: String, secret: String?, grantTypes: Set<GrantType>, redirectURIs: [String] = [], allowedScopes: Set<String>? = nil,
        isFirstParty: Bool = false, idTokenSigningAlgorithm: SigningAlgorithm = .rs256, postLogoutRedirectURIs: [String] = [], allowedLogoutURLs: [String] = [],
        backchannelLogoutURI: URL? = nil
    ) {
        self.backchannelLogoutURI = backchannelLogoutURI
        self.postLogoutRedirectURIs = postLogoutRedirectURIs
        self.allowedLogoutURLs = allowedLogoutURLs
        self.idTokenSigningAlgorithm = idTokenSigningAlgorithm
        self.allowedScopes = allowedScopes
        self.isFirstParty = isFirstParty
        self.clientID = clientID
        self.name = name
        self.secret = secret
        self.grantTypes = grantTypes
        self.redirectURIs = redirectURIs
    }

    /// The hosted pages' own client. Its ID contains a ':' which configured client IDs may
    /// not, so no registered client can impersonate it, and it is absent from the registry,
    /// so the token endpoint never accepts it.
    public static let hostedPages = OAuthClient(clientID: "latchkey:hosted-pages", name: "Hosted pages", secret: nil, grantTypes: [.webauthn], isFirstParty: true)

    /// The operator console's own client, like ``hostedPages``: its sign-ins and sessions are
    /// audited under it.
    public static let console = OAuthClient(clientID: "latchkey:console", name: "Operator console", secret: nil, grantTypes: [.webauthn], isFirstParty: true)
}

/// The registered clients, and client authentication.
public struct ClientRegistry: Sendable {
    private let clients: [String: OAuthClient]

    /// When two clients share an ID, the first one listed is used.
    public init(_ clients: [OAuthClient]) {
        self.clients = Dictionary(clients.map { ($0.clientID, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Authenticates a client: it must exist, and a confidential client must present its
    /// secret. A public client that sends a secret is rejected too, so mistakes surface.
    public func authenticate(clientID: String?, secret: String?) throws(IdentityError) -> OAuthClient {
        guard let clientID, !clientID.isEmpty else {
            throw IdentityError(.invalidClient, "client_id is required", field: "client_id")
        }
        guard let client = clients[clientID] else {
            throw IdentityError(.invalidClient, "unknown client", field: "client_id")
        }
        switch (client.secret, secret) {
        case (nil, nil):
            return client
        case (let expected?, let presented?):
            // Compare digests so that the comparison takes the same time for every input.
            guard SHA256.hash(data: Data(expected.utf8)) == SHA256.hash(data: Data(presented.utf8)) else {
                throw IdentityError(.invalidClient, "client authentication failed")
            }
            return client
        case (_?, nil):
            throw IdentityError(.invalidClient, "this client must authenticate with its client_secret")
        case (nil, _?):
            throw IdentityError(.invalidClient, "this is a public client; it has no client_secret")
        }
    }

    /// Authenticates a client and checks that it may use `grant`.
    public func authenticate(clientID: String?, secret: String?, for grant: GrantType) throws(IdentityError) -> OAuthClient {
        let client = try authenticate(clientID: clientID, secret: secret)
        guard client.grantTypes.contains(grant) else {
            throw IdentityError(.unauthorizedClient, "the client may not use the \(grant.rawValue) grant")
        }
        return client
    }

    /// The registered client with this ID, without authenticating it (the authorization
    /// endpoint identifies clients by ID alone).
    public func client(id: String) -> OAuthClient? { clients[id] }

    /// Every registered client.
    public var all: [OAuthClient] { Array(clients.values).sorted { $0.clientID < $1.clientID } }
}

extension OAuthClient {
    /// The built-in client that self-service flows (the Kratos face) run their ceremonies
    /// as. Like ``hostedPages`` it is not in the registry, so no token request can name it.
    public static let selfService = OAuthClient(clientID: "latchkey:self-service", name: "Self-service flows", secret: nil, grantTypes: [.webauthn])
}
