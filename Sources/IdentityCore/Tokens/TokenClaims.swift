/// The claims of an access token (a JWT in the shape of RFC 9068).
struct AccessTokenClaims: RegisteredClaims, Codable, Sendable {
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
    /// How the user signed in (RFC 8176), as in the ID token; absent from tokens issued
    /// before it was added.
    var amr: [String]?
    /// How strongly, as in the ID token; absent when no value says it (a basic sign-in, a
    /// refreshed token).
    var acr: String?
}

/// The claims of an ID token (OpenID Connect Core §2, §5.1).
struct IDTokenClaims: RegisteredClaims, Codable, Sendable {
    var iss: String
    var sub: String
    var aud: String
    var iat: Int64
    var exp: Int64
    var auth_time: Int64
    var sid: String
    /// The client's `nonce` from the authorization request, against replay of the ID token.
    var nonce: String?
    /// How strongly the sign-in authenticated (``AuthenticationLevel``): `phr`, `phrh`, or
    /// the NIST AAL the client asked for in `acr_values`.
    var acr: String?
    /// How the user authenticated (RFC 8176): `pop` for a proof of possession of a key,
    /// plus `user` when the authenticator verified the user; `pwd` for a password.
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
    /// The account's ID at the identity server it was imported from, beside `sub`.
    var external_id: String?
}

/// The registered claims (RFC 7519 §4.1) every token Latchkey signs begins with, in this
/// order.
protocol RegisteredClaims {
    var iss: String { get }
    var sub: String { get }
    var aud: String { get }
    var iat: Int64 { get }
    var exp: Int64 { get }
}

extension JSONObjectWriter {
    /// Writes `iss`, `sub`, `aud`, `iat` and `exp`.
    mutating func registered(_ claims: some RegisteredClaims) {
        member("iss", claims.iss)
        member("sub", claims.sub)
        member("aud", claims.aud)
        member("iat", claims.iat)
        member("exp", claims.exp)
    }
}

extension AccessTokenClaims {
    /// The claims as JSON, the members `Codable` would write.
    var json: [UInt8] {
        var writer = JSONWriter(capacity: 384)
        writer.object { claims in
            claims.registered(self)
            claims.member("jti", jti)
            claims.member("scope", scope)
            claims.member("client_id", client_id)
            claims.member("sid", sid)
            claims.member("auth_time", auth_time)
            claims.member("amr", amr)
            claims.member("acr", acr)
        }
        return writer.bytes
    }
}

extension IDTokenClaims {
    /// The claims as JSON, the members `Codable` would write.
    var json: [UInt8] {
        var writer = JSONWriter(capacity: 512)
        writer.object { claims in
            claims.registered(self)
            claims.member("auth_time", auth_time)
            claims.member("sid", sid)
            claims.member("nonce", nonce)
            claims.member("acr", acr)
            claims.member("amr", amr)
            claims.member("name", name)
            claims.member("given_name", given_name)
            claims.member("family_name", family_name)
            claims.member("nickname", nickname)
            claims.member("picture", picture)
            claims.member("preferred_username", preferred_username)
            claims.member("updated_at", updated_at)
            claims.member("email", email)
            claims.member("email_verified", email_verified)
            claims.member("phone_number", phone_number)
            claims.member("phone_number_verified", phone_number_verified)
            claims.member("external_id", external_id)
        }
        return writer.bytes
    }
}

/// The claims of a logout token (OpenID Connect Back-Channel Logout 1.0 §2.4, with its
/// first errata's `exp`). It has no `nonce`, which the specification forbids so that a logout
/// token can never pass for an ID token.
struct LogoutTokenClaims: Codable, Sendable {
    /// The one event it announces.
    static let event = "http://schemas.openid.net/event/backchannel-logout"

    var iss: String
    var sub: String
    var aud: String
    var iat: Int64
    var exp: Int64
    var jti: String
    /// `{event: {}}`.
    var events: [String: [String: String]]
    /// The login session that ended: the `sid` of the ID tokens it issued.
    var sid: String
}
