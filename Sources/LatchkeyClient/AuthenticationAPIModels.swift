public import WebAuthn

/// The identifiers and profile of a new account (`user_profile` of `POST /passkey/register`).
///
/// The server requires the identifiers its connection marks as required (by default
/// `email`) and refuses unknown or already registered ones.
public struct SignupProfile: Codable, Sendable, Hashable {
    /// The email address.
    public var email: String?
    /// The phone number in E.164 form, for example `+14155552671`.
    public var phoneNumber: String?
    /// The username.
    public var username: String?
    /// The full name, shown as the passkey's display name.
    public var name: String?
    /// The given name.
    public var givenName: String?
    /// The family name.
    public var familyName: String?
    /// The nickname.
    public var nickname: String?
    /// An http(s) URL of a picture.
    public var picture: String?

    /// Creates a profile.
    public init(
        email: String? = nil,
        phoneNumber: String? = nil,
        username: String? = nil,
        name: String? = nil,
        givenName: String? = nil,
        familyName: String? = nil,
        nickname: String? = nil,
        picture: String? = nil
    ) {
        self.email = email
        self.phoneNumber = phoneNumber
        self.username = username
        self.name = name
        self.givenName = givenName
        self.familyName = familyName
        self.nickname = nickname
        self.picture = picture
    }

    private enum CodingKeys: String, CodingKey {
        case email
        case phoneNumber = "phone_number"
        case username
        case name
        case givenName = "given_name"
        case familyName = "family_name"
        case nickname
        case picture
    }
}

/// The body of `POST /passkey/register`.
public struct SignupChallengeRequest: Codable, Sendable, Hashable {
    /// The application's client ID.
    public var clientID: String
    /// The client secret of a confidential client (`client_secret_post`).
    public var clientSecret: String?
    /// The database connection; the default one when absent.
    public var realm: String?
    /// The organization, when the application uses organizations.
    public var organization: String?
    /// The new account's identifiers and profile.
    public var userProfile: SignupProfile?
    /// Up to ten string fields of user metadata.
    public var userMetadata: [String: String]?

    /// Creates a request.
    public init(
        clientID: String,
        clientSecret: String? = nil,
        realm: String? = nil,
        organization: String? = nil,
        userProfile: SignupProfile?,
        userMetadata: [String: String]? = nil
    ) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.realm = realm
        self.organization = organization
        self.userProfile = userProfile
        self.userMetadata = userMetadata
    }

    private enum CodingKeys: String, CodingKey {
        case clientID = "client_id"
        case clientSecret = "client_secret"
        case realm
        case organization
        case userProfile = "user_profile"
        case userMetadata = "user_metadata"
    }
}

/// The body of `POST /passkey/challenge`.
public struct LoginChallengeRequest: Codable, Sendable, Hashable {
    /// The application's client ID.
    public var clientID: String
    /// The client secret of a confidential client.
    public var clientSecret: String?
    /// The database connection; the default one when absent.
    public var realm: String?
    /// The organization, when the application uses organizations.
    public var organization: String?
    /// A Latchkey extension: an account identifier. The options then carry that account's
    /// credentials in `allowCredentials`; without it the login is discoverable.
    public var username: String?

    /// Creates a request.
    public init(clientID: String, clientSecret: String? = nil, realm: String? = nil, organization: String? = nil, username: String? = nil) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.realm = realm
        self.organization = organization
        self.username = username
    }

    private enum CodingKeys: String, CodingKey {
        case clientID = "client_id"
        case clientSecret = "client_secret"
        case realm
        case organization
        case username
    }
}

/// A ceremony the server started: WebAuthn options plus the opaque session that finishes it.
/// The answer of `POST /passkey/register`, `POST /passkey/challenge` and
/// `POST /me/v1/authentication-methods`.
public struct PasskeyChallenge<Options: Codable & Sendable & Hashable>: Codable, Sendable, Hashable {
    /// The options to hand to the authenticator (`authn_params_public_key`).
    public var options: Options
    /// The opaque ceremony session to send back with the authenticator's response.
    public var authSession: String

    /// Creates a challenge.
    public init(options: Options, authSession: String) {
        self.options = options
        self.authSession = authSession
    }

    private enum CodingKeys: String, CodingKey {
        case options = "authn_params_public_key"
        case authSession = "auth_session"
    }
}

/// The answer of `POST /passkey/register` and of My Account enrollment.
public typealias RegistrationChallenge = PasskeyChallenge<PublicKeyCredentialCreationOptionsJSON>

/// The answer of `POST /passkey/challenge`.
public typealias LoginChallenge = PasskeyChallenge<PublicKeyCredentialRequestOptionsJSON>

/// The JSON body of `POST /oauth/token`, for the WebAuthn and refresh-token grants.
public struct TokenRequest: Codable, Sendable, Hashable {
    /// The grant type of a passkey signup or login.
    public static let webAuthnGrantType = "urn:okta:params:oauth:grant-type:webauthn"
    /// The grant type of a refresh.
    public static let refreshTokenGrantType = "refresh_token"

    /// The grant type.
    public var grantType: String
    /// The application's client ID.
    public var clientID: String
    /// The client secret of a confidential client.
    public var clientSecret: String?
    /// The database connection.
    public var realm: String?
    /// Space-separated scopes.
    public var scope: String?
    /// The API the access token is for, for example `<server>/me/` for My Account.
    public var audience: String?
    /// The organization.
    public var organization: String?
    /// WebAuthn grant: the session from the challenge.
    public var authSession: String?
    /// WebAuthn grant: the authenticator's registration or assertion.
    public var authnResponse: PublicKeyCredentialResponse?
    /// Refresh grant: the refresh token.
    public var refreshToken: String?
    /// WebAuthn grant finishing a sign-up started without a profile (the account creation
    /// API): the identifier and name the person chose.
    public var userProfile: SignupProfile?
    /// Password grant: the account's email (or other identifier).
    public var username: String?
    /// Password grant: the password.
    public var password: String?

    /// Creates a request; prefer ``webAuthn(clientID:clientSecret:authSession:response:scope:audience:)``
    /// and ``refresh(clientID:clientSecret:refreshToken:scope:audience:)``.
    public init(
        grantType: String,
        clientID: String,
        clientSecret: String? = nil,
        realm: String? = nil,
        scope: String? = nil,
        audience: String? = nil,
        organization: String? = nil,
        authSession: String? = nil,
        authnResponse: PublicKeyCredentialResponse? = nil,
        refreshToken: String? = nil,
        userProfile: SignupProfile? = nil
    ) {
        self.userProfile = userProfile
        self.grantType = grantType
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.realm = realm
        self.scope = scope
        self.audience = audience
        self.organization = organization
        self.authSession = authSession
        self.authnResponse = authnResponse
        self.refreshToken = refreshToken
    }

    /// The WebAuthn grant that finishes a signup or a login.
    public static func webAuthn(
        clientID: String,
        clientSecret: String? = nil,
        authSession: String,
        response: PublicKeyCredentialResponse,
        scope: String? = nil,
        audience: String? = nil,
        profile: SignupProfile? = nil
    ) -> TokenRequest {
        TokenRequest(
            grantType: webAuthnGrantType, clientID: clientID, clientSecret: clientSecret,
            scope: scope, audience: audience, authSession: authSession, authnResponse: response, userProfile: profile
        )
    }

    /// The refresh-token grant.
    public static func refresh(clientID: String, clientSecret: String? = nil, refreshToken: String, scope: String? = nil, audience: String? = nil) -> TokenRequest {
        TokenRequest(
            grantType: refreshTokenGrantType, clientID: clientID, clientSecret: clientSecret,
            scope: scope, audience: audience, refreshToken: refreshToken
        )
    }

    private enum CodingKeys: String, CodingKey {
        case grantType = "grant_type"
        case clientID = "client_id"
        case clientSecret = "client_secret"
        case realm
        case scope
        case audience
        case organization
        case authSession = "auth_session"
        case authnResponse = "authn_response"
        case refreshToken = "refresh_token"
        case userProfile = "user_profile"
        case username
        case password
    }
}

/// The answer of `POST /oauth/token` (RFC 6749 §5.1).
public struct TokenResponse: Codable, Sendable, Hashable {
    /// The access token, a JWT for the requested audience.
    public var accessToken: String
    /// The OpenID Connect ID token, when `openid` was granted.
    public var idToken: String?
    /// The refresh token, when `offline_access` was granted. Refreshing rotates it.
    public var refreshToken: String?
    /// `Bearer`.
    public var tokenType: String
    /// The access token's lifetime in seconds.
    public var expiresIn: Int
    /// The granted scopes, space-separated.
    public var scope: String?

    /// Creates a response.
    public init(accessToken: String, idToken: String? = nil, refreshToken: String? = nil, tokenType: String = "Bearer", expiresIn: Int, scope: String? = nil) {
        self.accessToken = accessToken
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.scope = scope
    }

    private enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case idToken = "id_token"
        case refreshToken = "refresh_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
        case scope
    }
}

/// The JSON body of `POST /oauth/revoke` (RFC 7009, as Auth0 accepts it).
public struct RevocationRequest: Codable, Sendable, Hashable {
    /// The application's client ID.
    public var clientID: String
    /// The client secret of a confidential client.
    public var clientSecret: String?
    /// The refresh token to revoke; its whole session ends.
    public var token: String
    /// `refresh_token`, when the caller knows.
    public var tokenTypeHint: String?

    /// Creates a request.
    public init(clientID: String, clientSecret: String? = nil, token: String, tokenTypeHint: String? = nil) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.token = token
        self.tokenTypeHint = tokenTypeHint
    }

    private enum CodingKeys: String, CodingKey {
        case clientID = "client_id"
        case clientSecret = "client_secret"
        case token
        case tokenTypeHint = "token_type_hint"
    }
}

/// The answer of `GET /userinfo` (OpenID Connect Core §5.3): the claims the access token's
/// scopes release.
public struct UserInfo: Codable, Sendable, Hashable {
    /// The user ID.
    public var subject: String
    /// The full name.
    public var name: String?
    /// The given name.
    public var givenName: String?
    /// The family name.
    public var familyName: String?
    /// The nickname.
    public var nickname: String?
    /// A picture URL.
    public var picture: String?
    /// The username.
    public var preferredUsername: String?
    /// When the profile last changed, in seconds since 1970.
    public var updatedAt: Int64?
    /// The email address.
    public var email: String?
    /// Whether the email address was verified.
    public var emailVerified: Bool?
    /// The phone number.
    public var phoneNumber: String?
    /// Whether the phone number was verified.
    public var phoneNumberVerified: Bool?

    /// Creates claims.
    public init(
        subject: String,
        name: String? = nil,
        givenName: String? = nil,
        familyName: String? = nil,
        nickname: String? = nil,
        picture: String? = nil,
        preferredUsername: String? = nil,
        updatedAt: Int64? = nil,
        email: String? = nil,
        emailVerified: Bool? = nil,
        phoneNumber: String? = nil,
        phoneNumberVerified: Bool? = nil
    ) {
        self.subject = subject
        self.name = name
        self.givenName = givenName
        self.familyName = familyName
        self.nickname = nickname
        self.picture = picture
        self.preferredUsername = preferredUsername
        self.updatedAt = updatedAt
        self.email = email
        self.emailVerified = emailVerified
        self.phoneNumber = phoneNumber
        self.phoneNumberVerified = phoneNumberVerified
    }

    private enum CodingKeys: String, CodingKey {
        case subject = "sub"
        case name
        case givenName = "given_name"
        case familyName = "family_name"
        case nickname
        case picture
        case preferredUsername = "preferred_username"
        case updatedAt = "updated_at"
        case email
        case emailVerified = "email_verified"
        case phoneNumber = "phone_number"
        case phoneNumberVerified = "phone_number_verified"
    }
}

/// OpenID Provider metadata: the members the client reads.
public struct ProviderMetadata: Codable, Sendable, Hashable {
    /// The issuer URL (`iss` of the tokens).
    public var issuer: String
    /// The token endpoint.
    public var tokenEndpoint: String?
    /// The JWKS URL.
    public var jwksURI: String?

    enum CodingKeys: String, CodingKey {
        case issuer
        case tokenEndpoint = "token_endpoint"
        case jwksURI = "jwks_uri"
    }
}

/// The body of `POST /dbconnections/signup`.
struct PasswordSignupRequest: Codable, Sendable, Hashable {
    var clientID: String
    var clientSecret: String?
    var connection = "Username-Password-Authentication"
    var email: String
    var password: String
    var name: String?

    private enum CodingKeys: String, CodingKey {
        case clientID = "client_id"
        case clientSecret = "client_secret"
        case connection, email, password, name
    }
}

/// The answer of `POST /dbconnections/signup`.
struct PasswordSignupResponse: Codable, Sendable, Hashable {
    var id: String
    var email: String

    private enum CodingKeys: String, CodingKey {
        case id = "_id"
        case email
    }
}
