/// The claims of an access token (a JWT in the shape of RFC 9068).
struct AccessTokenClaims: Codable, Sendable {
    var iss: String
    var sub: String
    var aud: String
    var iat: Int64
    var exp: Int64
    var jti: String
    var scope: String
    var client_id: String
    /// The login session (refresh-token family); revoking it revokes this token.
    var sid: String
    var auth_time: Int64
}

/// The claims of an ID token (OpenID Connect Core §2, §5.1).
struct IDTokenClaims: Codable, Sendable {
    var iss: String
    var sub: String
    var aud: String
    var iat: Int64
    var exp: Int64
    var auth_time: Int64
    var sid: String
    /// The client's `nonce` from the authorization request, against replay of the ID token.
    var nonce: String?
    /// How the user authenticated (RFC 8176): `pop` for a proof of possession of a key,
    /// plus `user` when the authenticator verified the user.
    var amr: [String]
    var name: String?
    var given_name: String?
    var family_name: String?
    var nickname: String?
    var picture: String?
    var preferred_username: String?
    var updated_at: Int64?
    var email: String?
    var email_verified: Bool?
    var phone_number: String?
    var phone_number_verified: Bool?
}
