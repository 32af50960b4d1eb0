/// A public key in JWK form (RFC 7517), as `/.well-known/jwks.json` and discovery's
/// `jwks_uri` publish it: the keys that sign access and ID tokens, an EC P-256 key (ES256) or
/// an RSA key (RS256, PS256).
public struct JSONWebKey: Codable, Sendable, Hashable {
    /// `EC` or `RSA`.
    public let kty: String
    /// `P-256` (EC keys).
    public let crv: String?
    /// The x coordinate, base64url (EC keys).
    public let x: String?
    /// The y coordinate, base64url (EC keys).
    public let y: String?
    /// The modulus, base64url (RSA keys).
    public let n: String?
    /// The public exponent, base64url (RSA keys).
    public let e: String?
    /// The key ID, the `kid` of the tokens it signs.
    public let kid: String
    /// `sig`.
    public let use: String
    /// `ES256`, `RS256` or `PS256`.
    public let alg: String
}

// The public initializers live in an extension so that the struct keeps its memberwise
// initializer, which each of them fills with the members its key type leaves out.
extension JSONWebKey {
    /// For an EC key; `n` and `e` are left out.
    public init(kty: String, crv: String, x: String, y: String, kid: String, use: String, alg: String) {
        self.init(kty: kty, crv: crv, x: x, y: y, n: nil, e: nil, kid: kid, use: use, alg: alg)
    }

    /// For an RSA key; `crv`, `x` and `y` are left out.
    public init(kty: String, kid: String, use: String, alg: String, n: String, e: String) {
        self.init(kty: kty, crv: nil, x: nil, y: nil, n: n, e: e, kid: kid, use: use, alg: alg)
    }
}

/// A JWK Set (RFC 7517 §5).
public struct JSONWebKeySet: Codable, Sendable, Hashable {
    /// The published keys.
    public let keys: [JSONWebKey]

    public init(keys: [JSONWebKey]) { self.keys = keys }
}
