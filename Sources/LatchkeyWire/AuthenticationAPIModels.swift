import Foundation

/// The identifiers and profile of a new account (`user_profile` of `POST /passkey/register`).
///
/// The server requires the identifiers its connection marks as required (by default
/// `email`) and refuses unknown or already registered ones.
public struct SignupProfile: Codable, Sendable, Hashable {
    public var email: String?
    /// The phone number in E.164 form, for example `+14155552671`.
    public var phoneNumber: String?
    public var username: String?
    /// The full name, shown as the passkey's display name.
    public var name: String?
    public var givenName: String?
    public var familyName: String?
    public var nickname: String?
    /// An http(s) URL of a picture.
    public var picture: String?

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

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case email
        case phoneNumber = "phone_number"
        case username
        case name
        case givenName = "given_name"
        case familyName = "family_name"
        case nickname
        case picture
    }

    /// The members a profile may have; any other is refused, as Auth0 does.
    public static let knownMembers = CodingKeys.allCases.map(\.rawValue)

    private struct AnyKey: CodingKey {
        let stringValue: String
        init?(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: any Decoder) throws {
        let all = try decoder.container(keyedBy: AnyKey.self)
        if let unknown = all.allKeys.first(where: { !Self.knownMembers.contains($0.stringValue) }) {
            let name = AnyKey(stringValue: String(unknown.stringValue.prefix(64)))!
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath + [name],
                debugDescription: "is not a recognised property (allowed: \(Self.knownMembers.joined(separator: ", ")))"
            ))
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        email = try container.decodeIfPresent(String.self, forKey: .email)
        phoneNumber = try container.decodeIfPresent(String.self, forKey: .phoneNumber)
        username = try container.decodeIfPresent(String.self, forKey: .username)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        givenName = try container.decodeIfPresent(String.self, forKey: .givenName)
        familyName = try container.decodeIfPresent(String.self, forKey: .familyName)
        nickname = try container.decodeIfPresent(String.self, forKey: .nickname)
        picture = try container.decodeIfPresent(String.self, forKey: .picture)
    }
}

/// The body of `POST /passkey/register`.
public struct SignupChallengeRequest: Codable, Sendable, Hashable {
    /// The application's client ID; required (the server says so when it is missing).
    public var clientID: String?
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
    /// A Latchkey extension: the WebAuthn Level 3 `hints` for this ceremony (`security-key`,
    /// `client-device`, `hybrid`), in place of the ones the application's policy sends.
    public var hints: [String]?
    /// A Latchkey extension: client extension inputs for the authenticator (`prf`,
    /// `largeBlob`, `credentialProtectionPolicy`), passed into the options untouched.
    public var extensions: ExtensionInputs?

    public init(
        clientID: String?,
        clientSecret: String? = nil,
        realm: String? = nil,
        organization: String? = nil,
        userProfile: SignupProfile?,
        userMetadata: [String: String]? = nil,
        hints: [String]? = nil,
        extensions: ExtensionInputs? = nil
    ) {
        self.hints = hints
        self.extensions = extensions
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
        case hints
        case extensions
    }
}

/// The body of `POST /passkey/challenge`.
public struct LoginChallengeRequest: Codable, Sendable, Hashable {
    /// The application's client ID; required (the server says so when it is missing).
    public var clientID: String?
    /// The client secret of a confidential client.
    public var clientSecret: String?
    /// The database connection; the default one when absent.
    public var realm: String?
    /// The organization, when the application uses organizations.
    public var organization: String?
    /// A Latchkey extension: an account identifier. The options then carry that account's
    /// credentials in `allowCredentials`; without it the login is discoverable.
    public var username: String?

    /// A Latchkey extension: the WebAuthn Level 3 `hints` for this ceremony, in place of the
    /// ones the application's policy sends.
    public var hints: [String]?
    /// A Latchkey extension: client extension inputs (`prf` with `eval` or
    /// `evalByCredential`, `largeBlob` `read` or `write`), passed into the options untouched.
    public var extensions: ExtensionInputs?

    public init(
        clientID: String?, clientSecret: String? = nil, realm: String? = nil, organization: String? = nil, username: String? = nil, hints: [String]? = nil,
        extensions: ExtensionInputs? = nil
    ) {
        self.hints = hints
        self.extensions = extensions
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
        case hints
        case extensions
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

    /// The grant type of the recovery grant: a saved or emailed recovery code for a token
    /// that may only enroll a passkey.
    public static let recoveryGrantType = "urn:latchkey:params:oauth:grant-type:recovery"

    /// The grant type; required.
    public var grantType: String?
    /// The application's client ID; required (the server says so when it is missing).
    public var clientID: String?
    /// The client secret of a confidential client.
    public var clientSecret: String?
    /// The database connection.
    public var realm: String?
    /// Space-separated scopes.
    public var scope: String?
    /// The API the access token is for, for example `<server>/me/` for My Account.
    public var audience: String?
    public var organization: String?
    /// WebAuthn grant: the session from the challenge.
    public var authSession: String?
    /// WebAuthn grant: the authenticator's registration or assertion. Android's Credential
    /// Manager hands apps this as a JSON string, and a string holding the object is accepted.
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
    /// Authorization code grant: the code; recovery grant: the emailed code.
    public var code: String?
    /// Authorization code grant: the redirect URI the code was issued for.
    public var redirectURI: String?
    /// Authorization code grant: the PKCE verifier.
    public var codeVerifier: String?
    /// Recovery grant: the account's email address.
    public var email: String?
    /// Recovery grant: a saved recovery code.
    public var recoveryCode: String?

    /// Creates a request; prefer ``webAuthn(clientID:clientSecret:authSession:response:scope:audience:profile:)``,
    /// ``refresh(clientID:clientSecret:refreshToken:scope:audience:)`` and
    /// ``password(clientID:clientSecret:username:password:scope:audience:)``.
    public init(
        grantType: String?,
        clientID: String?,
        clientSecret: String? = nil,
        realm: String? = nil,
        scope: String? = nil,
        audience: String? = nil,
        organization: String? = nil,
        authSession: String? = nil,
        authnResponse: PublicKeyCredentialResponse? = nil,
        refreshToken: String? = nil,
        userProfile: SignupProfile? = nil,
        username: String? = nil,
        password: String? = nil,
        code: String? = nil,
        redirectURI: String? = nil,
        codeVerifier: String? = nil,
        email: String? = nil,
        recoveryCode: String? = nil
    ) {
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
        self.userProfile = userProfile
        self.username = username
        self.password = password
        self.code = code
        self.redirectURI = redirectURI
        self.codeVerifier = codeVerifier
        self.email = email
        self.recoveryCode = recoveryCode
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

    /// The password grant.
    public static func password(
        clientID: String, clientSecret: String? = nil, username: String, password: String, scope: String? = nil, audience: String? = nil
    ) -> TokenRequest {
        TokenRequest(
            grantType: "password", clientID: clientID, clientSecret: clientSecret, scope: scope, audience: audience,
            username: username, password: password
        )
    }

    /// The recovery grant: an emailed `code` or a saved `recoveryCode` for a token that may
    /// only enroll a passkey.
    public static func recovery(clientID: String, clientSecret: String? = nil, email: String, code: String? = nil, recoveryCode: String? = nil) -> TokenRequest {
        TokenRequest(grantType: recoveryGrantType, clientID: clientID, clientSecret: clientSecret, code: code, email: email, recoveryCode: recoveryCode)
    }

    /// The wire names, once: the encoder, the decoders and the form reader all go by them.
    package enum CodingKeys: String, CodingKey {
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
        case code
        case redirectURI = "redirect_uri"
        case codeVerifier = "code_verifier"
        case email
        case recoveryCode = "recovery_code"
    }

    /// Every member that is a string, with its key: the table the decoders (JSON, the
    /// server's fast reader, forms) fill the request from. `authn_response` and
    /// `user_profile` are the two objects, read on their own.
    package static let stringMembers: [(key: CodingKeys, path: any WritableKeyPath<TokenRequest, String?> & Sendable)] = [
        (.grantType, \.grantType), (.clientID, \.clientID), (.clientSecret, \.clientSecret), (.realm, \.realm), (.scope, \.scope),
        (.audience, \.audience), (.organization, \.organization), (.authSession, \.authSession), (.refreshToken, \.refreshToken),
        (.username, \.username), (.password, \.password), (.code, \.code), (.redirectURI, \.redirectURI), (.codeVerifier, \.codeVerifier),
        (.email, \.email), (.recoveryCode, \.recoveryCode),
    ]

    /// A request with its string members read by `value(key)`, which returns `nil` for an
    /// absent member; the objects are left empty.
    package init(strings value: (CodingKeys) throws -> String?) rethrows {
        self.init(grantType: nil, clientID: nil)
        for (key, path) in Self.stringMembers { self[keyPath: path] = try value(key) }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try self.init { key in try container.decodeIfPresent(String.self, forKey: key) }
        do {
            // The object first: the usual case then throws nothing (a thrown decoding error
            // costs more than decoding the value).
            authnResponse = try container.decodeIfPresent(PublicKeyCredentialResponse.self, forKey: .authnResponse)
        } catch DecodingError.typeMismatch where (try? container.decode(String.self, forKey: .authnResponse)) != nil {
            // Android's Credential Manager hands the app its response as a JSON string
            // (registrationResponseJson, authenticationResponseJson); an app may forward it
            // as it is rather than as an object.
            let text = try container.decode(String.self, forKey: .authnResponse)
            authnResponse = try JSONDecoder().decode(PublicKeyCredentialResponse.self, from: Data(text.utf8))
        }
        userProfile = try container.decodeIfPresent(SignupProfile.self, forKey: .userProfile)
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
    /// The application's client ID; required (the server says so when it is missing).
    public var clientID: String?
    /// The client secret of a confidential client.
    public var clientSecret: String?
    /// The refresh token to revoke; its whole session ends. Required.
    public var token: String?
    /// `refresh_token`, when the caller knows.
    public var tokenTypeHint: String?

    public init(clientID: String?, clientSecret: String? = nil, token: String?, tokenTypeHint: String? = nil) {
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
    public var givenName: String?
    public var familyName: String?
    public var nickname: String?
    /// A picture URL.
    public var picture: String?
    /// The username.
    public var preferredUsername: String?
    /// When the profile last changed, in seconds since 1970.
    public var updatedAt: Int64?
    public var email: String?
    /// Whether the email address was verified.
    public var emailVerified: Bool?
    public var phoneNumber: String?
    /// Whether the phone number was verified.
    public var phoneNumberVerified: Bool?
    /// The account's ID at the identity server it was imported from (an Auth0 `user_id`),
    /// for apps that stored that ID; absent for accounts made here.
    public var externalID: String?

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
        phoneNumberVerified: Bool? = nil,
        externalID: String? = nil
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
        self.externalID = externalID
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
        case externalID = "external_id"
    }
}

/// OpenID Provider metadata (OpenID Connect Discovery 1.0 §3), as
/// `/.well-known/openid-configuration` serves it. Only `issuer` is required when reading:
/// other servers may leave members out.
public struct ProviderMetadata: Codable, Sendable, Hashable {
    /// The issuer URL (`iss` of the tokens).
    public var issuer: String
    public var authorizationEndpoint: String?
    public var tokenEndpoint: String?
    public var userinfoEndpoint: String?
    public var jwksURI: String?
    /// The revocation endpoint (RFC 7009).
    public var revocationEndpoint: String?
    /// Where an app sends the browser to sign out (OpenID Connect RP-Initiated Logout 1.0).
    public var endSessionEndpoint: String?
    /// Whether clients may register a `backchannel_logout_uri` (OpenID Connect Back-Channel
    /// Logout 1.0).
    public var backchannelLogoutSupported: Bool?
    /// Whether logout tokens, and ID tokens, carry `sid`.
    public var backchannelLogoutSessionSupported: Bool?
    /// Supported `response_type` values.
    public var responseTypesSupported: [String]?
    /// Supported `response_mode` values.
    public var responseModesSupported: [String]?
    /// Supported PKCE methods.
    public var codeChallengeMethodsSupported: [String]?
    public var promptValuesSupported: [String]?
    /// Whether the authorization response carries `iss` (RFC 9207).
    public var authorizationResponseIssParameterSupported: Bool?
    public var subjectTypesSupported: [String]?
    public var idTokenSigningAlgValuesSupported: [String]?
    public var scopesSupported: [String]?
    public var claimsSupported: [String]?
    /// The `acr` values the server can assert and `acr_values` may ask for.
    public var acrValuesSupported: [String]?
    public var grantTypesSupported: [String]?
    /// Client authentication methods at the token endpoint.
    public var tokenEndpointAuthMethodsSupported: [String]?
    /// Client authentication methods at the revocation endpoint.
    public var revocationEndpointAuthMethodsSupported: [String]?

    public init(
        issuer: String, authorizationEndpoint: String? = nil, tokenEndpoint: String? = nil, userinfoEndpoint: String? = nil,
        jwksURI: String? = nil, revocationEndpoint: String? = nil, responseTypesSupported: [String]? = nil,
        responseModesSupported: [String]? = nil, codeChallengeMethodsSupported: [String]? = nil, promptValuesSupported: [String]? = nil,
        authorizationResponseIssParameterSupported: Bool? = nil, subjectTypesSupported: [String]? = nil,
        idTokenSigningAlgValuesSupported: [String]? = nil, scopesSupported: [String]? = nil, claimsSupported: [String]? = nil,
        grantTypesSupported: [String]? = nil, tokenEndpointAuthMethodsSupported: [String]? = nil,
        revocationEndpointAuthMethodsSupported: [String]? = nil, endSessionEndpoint: String? = nil, backchannelLogoutSupported: Bool? = nil,
        backchannelLogoutSessionSupported: Bool? = nil, acrValuesSupported: [String]? = nil
    ) {
        self.acrValuesSupported = acrValuesSupported
        self.backchannelLogoutSupported = backchannelLogoutSupported
        self.backchannelLogoutSessionSupported = backchannelLogoutSessionSupported
        self.issuer = issuer
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.userinfoEndpoint = userinfoEndpoint
        self.jwksURI = jwksURI
        self.revocationEndpoint = revocationEndpoint
        self.endSessionEndpoint = endSessionEndpoint
        self.responseTypesSupported = responseTypesSupported
        self.responseModesSupported = responseModesSupported
        self.codeChallengeMethodsSupported = codeChallengeMethodsSupported
        self.promptValuesSupported = promptValuesSupported
        self.authorizationResponseIssParameterSupported = authorizationResponseIssParameterSupported
        self.subjectTypesSupported = subjectTypesSupported
        self.idTokenSigningAlgValuesSupported = idTokenSigningAlgValuesSupported
        self.scopesSupported = scopesSupported
        self.claimsSupported = claimsSupported
        self.grantTypesSupported = grantTypesSupported
        self.tokenEndpointAuthMethodsSupported = tokenEndpointAuthMethodsSupported
        self.revocationEndpointAuthMethodsSupported = revocationEndpointAuthMethodsSupported
    }

    private enum CodingKeys: String, CodingKey {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case userinfoEndpoint = "userinfo_endpoint"
        case jwksURI = "jwks_uri"
        case revocationEndpoint = "revocation_endpoint"
        case endSessionEndpoint = "end_session_endpoint"
        case backchannelLogoutSupported = "backchannel_logout_supported"
        case backchannelLogoutSessionSupported = "backchannel_logout_session_supported"
        case responseTypesSupported = "response_types_supported"
        case responseModesSupported = "response_modes_supported"
        case codeChallengeMethodsSupported = "code_challenge_methods_supported"
        case promptValuesSupported = "prompt_values_supported"
        case authorizationResponseIssParameterSupported = "authorization_response_iss_parameter_supported"
        case subjectTypesSupported = "subject_types_supported"
        case idTokenSigningAlgValuesSupported = "id_token_signing_alg_values_supported"
        case scopesSupported = "scopes_supported"
        case claimsSupported = "claims_supported"
        case acrValuesSupported = "acr_values_supported"
        case grantTypesSupported = "grant_types_supported"
        case tokenEndpointAuthMethodsSupported = "token_endpoint_auth_methods_supported"
        case revocationEndpointAuthMethodsSupported = "revocation_endpoint_auth_methods_supported"
    }
}

/// The body of `POST /recovery/start`: "lost your passkey?". The answer is `202` with `{}`
/// whatever the address, so that it tells nobody which addresses have accounts.
public struct RecoveryStartRequest: Codable, Sendable, Hashable {
    public var clientID: String?
    /// The client secret of a confidential client.
    public var clientSecret: String?
    /// The account's email address; a recovery code is mailed to it when it is verified.
    public var email: String?

    public init(clientID: String?, clientSecret: String? = nil, email: String?) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.email = email
    }

    private enum CodingKeys: String, CodingKey {
        case clientID = "client_id"
        case clientSecret = "client_secret"
        case email
    }
}

/// `{}`: an answer with nothing to tell.
public struct EmptyObject: Codable, Sendable, Hashable {
    public init() {}
}

/// The body of `POST /dbconnections/signup` (Auth0's database sign-up).
public struct PasswordSignupRequest: Codable, Sendable, Hashable {
    public var clientID: String?
    /// The client secret of a confidential client.
    public var clientSecret: String?
    /// The database connection: `Username-Password-Authentication`, the only one.
    public var connection: String?
    /// The account's email address.
    public var email: String?
    public var password: String?
    /// The full name.
    public var name: String?

    public init(clientID: String?, clientSecret: String? = nil, connection: String? = "Username-Password-Authentication", email: String?, password: String?, name: String? = nil) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.connection = connection
        self.email = email
        self.password = password
        self.name = name
    }

    private enum CodingKeys: String, CodingKey {
        case clientID = "client_id"
        case clientSecret = "client_secret"
        case connection, email, password, name
    }
}

/// The answer of `POST /dbconnections/signup`, in Auth0's shape.
public struct PasswordSignupResponse: Codable, Sendable, Hashable {
    /// The new account's user ID.
    public var id: String
    /// Its email address.
    public var email: String

    public init(id: String, email: String) {
        self.id = id
        self.email = email
    }

    private enum CodingKeys: String, CodingKey {
        case id = "_id"
        case email
    }
}
