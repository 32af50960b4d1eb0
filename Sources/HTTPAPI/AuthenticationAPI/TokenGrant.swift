import FaceFrame
import IdentityCore
import LatchkeyWire

/// What a `POST /oauth/token` asks for, read from its ``TokenRequest``: one case per grant,
/// each with the parameters it requires present. The client, `scope` and `audience` stay
/// on the request, since every grant shares them.
enum TokenGrant {
    /// A passkey ceremony's finish.
    case webAuthn(authSession: String, response: PublicKeyCredentialResponse, profile: SignupProfile?)
    /// A password sign-in; `realm` is the database connection of Auth0's password-realm grant.
    case password(username: String?, password: String?, realm: String?)
    /// A refresh.
    case refreshToken(String)
    /// An authorization code's exchange (the hosted pages).
    case authorizationCode(code: String?, redirectURI: String?, codeVerifier: String?)
    /// Account recovery: an emailed or a saved code for a token that may only enroll a passkey.
    case recovery(email: String, code: String?, recoveryCode: String?)

    /// Which grant a request names, before the client is authenticated: the grant's
    /// parameters are checked after, so an unknown client is told so first.
    enum Kind {
        case webAuthn, password(realm: Bool), refreshToken, authorizationCode, recovery

        static let passwordRealm = "http://auth0.com/oauth/grant-type/password-realm"

        init(_ grantType: String?) throws {
            guard let grantType, !grantType.isEmpty else {
                throw IdentityError(.invalidRequest, "grant_type is required", field: "grant_type")
            }
            switch grantType {
            case TokenRequest.recoveryGrantType: self = .recovery
            // Auth0's password-realm grant is the password grant naming its connection.
            case Self.passwordRealm: self = .password(realm: true)
            default:
                switch GrantType(rawValue: grantType) {
                case .webauthn: self = .webAuthn
                case .password: self = .password(realm: false)
                case .refreshToken: self = .refreshToken
                case .authorizationCode: self = .authorizationCode
                case nil: throw IdentityError(.unsupportedGrantType, "grant_type \(grantType.prefix(100)) is not supported here")
                }
            }
        }

        /// The grant the client must be allowed. The app that signs people in with passkeys
        /// is the one that enrolls the new one after a recovery.
        var clientGrant: GrantType {
            switch self {
            case .webAuthn, .recovery: return .webauthn
            case .password: return .password
            case .refreshToken: return .refreshToken
            case .authorizationCode: return .authorizationCode
            }
        }
    }

    /// The grant of `kind` from `request`, or the parameter it lacks.
    init(_ kind: Kind, _ request: TokenRequest) throws {
        switch kind {
        case .webAuthn:
            guard let authSession = request.authSession, !authSession.isEmpty else {
                throw IdentityError(.invalidRequest, "auth_session is required", field: "auth_session")
            }
            guard let response = request.authnResponse else {
                throw IdentityError(.invalidRequest, "authn_response is required and must be sent in a JSON body", field: "authn_response")
            }
            self = .webAuthn(authSession: authSession, response: response, profile: request.userProfile)
        case .password(let isRealm):
            if isRealm && request.realm == nil {
                throw IdentityError(.invalidRequest, "realm is required with the password-realm grant", field: "realm")
            }
            self = .password(username: request.username, password: request.password, realm: request.realm)
        case .refreshToken:
            guard let token = request.refreshToken, !token.isEmpty else {
                throw IdentityError(.invalidRequest, "refresh_token is required", field: "refresh_token")
            }
            self = .refreshToken(token)
        case .authorizationCode:
            self = .authorizationCode(code: request.code, redirectURI: request.redirectURI, codeVerifier: request.codeVerifier)
        case .recovery:
            guard let email = request.email, !email.isEmpty else { throw IdentityError(.invalidRequest, "email is required", reason: .required, field: "email") }
            self = .recovery(email: email, code: request.code, recoveryCode: request.recoveryCode)
        }
    }
}
