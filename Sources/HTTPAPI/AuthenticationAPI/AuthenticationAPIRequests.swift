import Foundation
import IdentityCore
import WebAuthn

/// `POST /passkey/register` body.
struct SignupRequest: Decodable {
    let client_id: String?
    let client_secret: String?
    let realm: String?
    let organization: String?
    /// Absent for the account creation API, whose identifier comes with the finished
    /// ceremony (`user_profile` of the token request).
    let user_profile: SignupProfileBody?
    /// Accepted for compatibility with Auth0 clients; Latchkey stores no metadata.
    let user_metadata: [String: String]?
}

/// `user_profile`: known members only; any other member is refused, as Auth0 does.
struct SignupProfileBody: Decodable {
    let input: UserProfile

    private struct Key: CodingKey {
        let stringValue: String
        init?(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    static let known = ["email", "phone_number", "username", "name", "given_name", "family_name", "nickname", "picture"]

    init(input: UserProfile) {
        self.input = input
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        if let unknown = container.allKeys.first(where: { !Self.known.contains($0.stringValue) }) {
            throw IdentityError(
                .invalidRequest, "user_profile.\(unknown.stringValue.prefix(64)) is not a recognised property (allowed: \(Self.known.joined(separator: ", ")))",
                field: "user_profile.\(unknown.stringValue.prefix(64))"
            )
        }
        func value(_ name: String) throws -> String? {
            guard let key = Key(stringValue: name) else { return nil }
            return try container.decodeIfPresent(String.self, forKey: key)
        }
        input = UserProfile(
            email: try value("email"), phoneNumber: try value("phone_number"), username: try value("username"),
            name: try value("name"), givenName: try value("given_name"), familyName: try value("family_name"),
            nickname: try value("nickname"), picture: try value("picture")
        )
    }
}

/// `POST /passkey/challenge` body.
struct LoginChallengeRequest: Decodable {
    let client_id: String?
    let client_secret: String?
    let realm: String?
    let organization: String?
    /// Latchkey extension: names the account, so the options list its credentials.
    let username: String?
}

/// The challenge responses of the Authentication API.
struct ChallengeResponse<Options: Encodable>: Encodable {
    let authn_params_public_key: Options
    let auth_session: String
}

/// `POST /oauth/token` parameters, from a JSON or a form body.
struct TokenRequest: Decodable {
    var grant_type: String?
    var client_id: String?
    var client_secret: String?
    var auth_session: String?
    var authn_response: PublicKeyCredentialResponse?
    var scope: String?
    var audience: String?
    var refresh_token: String?
    var realm: String?
    var organization: String?
    var code: String?
    var redirect_uri: String?
    var code_verifier: String?
    /// WebAuthn grant finishing a sign-up started without a profile (the account creation
    /// API): the identifier and name chosen since.
    var user_profile: SignupProfileBody?
    /// Password grants.
    var username: String?
    var password: String?
    /// The recovery grant: the account's email and a saved recovery code (or the emailed
    /// one in `code`).
    var email: String?
    var recovery_code: String?

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        grant_type = try container.decodeIfPresent(String.self, forKey: .grant_type)
        client_id = try container.decodeIfPresent(String.self, forKey: .client_id)
        client_secret = try container.decodeIfPresent(String.self, forKey: .client_secret)
        auth_session = try container.decodeIfPresent(String.self, forKey: .auth_session)
        do {
            // The object first: the usual case then throws nothing (a thrown decoding error
            // costs more than decoding the value).
            authn_response = try container.decodeIfPresent(PublicKeyCredentialResponse.self, forKey: .authn_response)
        } catch DecodingError.typeMismatch where (try? container.decode(String.self, forKey: .authn_response)) != nil {
            // Android's Credential Manager hands the app its response as a JSON string
            // (registrationResponseJson, authenticationResponseJson); an app may forward it
            // as it is rather than as an object.
            let text = try container.decode(String.self, forKey: .authn_response)
            authn_response = try JSONDecoder().decode(PublicKeyCredentialResponse.self, from: Data(text.utf8))
        }
        scope = try container.decodeIfPresent(String.self, forKey: .scope)
        audience = try container.decodeIfPresent(String.self, forKey: .audience)
        refresh_token = try container.decodeIfPresent(String.self, forKey: .refresh_token)
        realm = try container.decodeIfPresent(String.self, forKey: .realm)
        organization = try container.decodeIfPresent(String.self, forKey: .organization)
        code = try container.decodeIfPresent(String.self, forKey: .code)
        redirect_uri = try container.decodeIfPresent(String.self, forKey: .redirect_uri)
        code_verifier = try container.decodeIfPresent(String.self, forKey: .code_verifier)
        user_profile = try container.decodeIfPresent(SignupProfileBody.self, forKey: .user_profile)
        username = try container.decodeIfPresent(String.self, forKey: .username)
        password = try container.decodeIfPresent(String.self, forKey: .password)
        email = try container.decodeIfPresent(String.self, forKey: .email)
        recovery_code = try container.decodeIfPresent(String.self, forKey: .recovery_code)
    }

    init(form: [String: String]) {
        grant_type = form["grant_type"]
        client_id = form["client_id"]
        client_secret = form["client_secret"]
        auth_session = form["auth_session"]
        authn_response = nil
        scope = form["scope"]
        audience = form["audience"]
        code = form["code"]
        redirect_uri = form["redirect_uri"]
        code_verifier = form["code_verifier"]
        refresh_token = form["refresh_token"]
        realm = form["realm"]
        organization = form["organization"]
        user_profile = nil
        username = form["username"]
        password = form["password"]
        email = form["email"]
        recovery_code = form["recovery_code"]
    }

    enum CodingKeys: String, CodingKey {
        case grant_type, client_id, client_secret, auth_session, authn_response, scope, audience, refresh_token, realm, organization, code, redirect_uri, code_verifier, user_profile, username, password, email, recovery_code
    }
}

/// `POST /dbconnections/signup` body (Auth0's database sign-up).
struct PasswordSignupRequest: Decodable {
    let client_id: String?
    let client_secret: String?
    let connection: String?
    let email: String?
    let password: String?
    let name: String?
}

/// `POST /dbconnections/signup` answer, in Auth0's shape.
struct PasswordSignupResponse: Encodable {
    let _id: String
    let email: String
}

/// `POST /oauth/revoke` parameters (RFC 7009).
struct RevocationRequest: Decodable {
    var token: String?
    var token_type_hint: String?
    var client_id: String?
    var client_secret: String?

    init(form: [String: String]) {
        token = form["token"]
        token_type_hint = form["token_type_hint"]
        client_id = form["client_id"]
        client_secret = form["client_secret"]
    }
}

/// `POST /recovery/start` body.
struct RecoveryStartRequest: Decodable {
    let client_id: String?
    let client_secret: String?
    let email: String?
}
