/// A public key in JWK form (RFC 7517), as `/.well-known/jwks.json` publishes it: the keys
/// that sign access and ID tokens.
public struct JSONWebKey: Codable, Sendable, Hashable {
    /// `EC`.
    public let kty: String
    /// `P-256`.
    public let crv: String
    /// The x coordinate, base64url.
    public let x: String
    /// The y coordinate, base64url.
    public let y: String
    /// The key ID, the `kid` of the tokens it signs.
    public let kid: String
    /// `sig`.
    public let use: String
    /// `ES256`.
    public let alg: String

    /// Creates a key.
    public init(kty: String, crv: String, x: String, y: String, kid: String, use: String, alg: String) {
        self.kty = kty
        self.crv = crv
        self.x = x
        self.y = y
        self.kid = kid
        self.use = use
        self.alg = alg
    }
}

/// A JWK Set (RFC 7517 §5).
public struct JSONWebKeySet: Codable, Sendable, Hashable {
    /// The published keys.
    public let keys: [JSONWebKey]

    /// Creates a set.
    public init(keys: [JSONWebKey]) { self.keys = keys }
}
