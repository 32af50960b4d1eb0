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

    /// For an EC key; `n` and `e` are left out.
    public init(kty: String, crv: String, x: String, y: String, kid: String, use: String, alg: String) {
        self.kty = kty
        self.crv = crv
        self.x = x
        self.y = y
        self.n = nil
        self.e = nil
        self.kid = kid
        self.use = use
        self.alg = alg
    }

    /// For an RSA key; `crv`, `x` and `y` are left out.
    public init(kty: String, kid: String, use: String, alg: String, n: String, e: String) {
        self.kty = kty
        self.crv = nil
        self.x = nil
        self.y = nil
        self.n = n
        self.e = e
        self.kid = kid
        self.use = use
        self.alg = alg
    }
}

/// A JWK Set (RFC 7517 §5).
public struct JSONWebKeySet: Codable, Sendable, Hashable {
    /// The published keys.
    public let keys: [JSONWebKey]

    public init(keys: [JSONWebKey]) { self.keys = keys }
}
