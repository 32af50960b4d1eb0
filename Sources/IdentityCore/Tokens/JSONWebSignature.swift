import Crypto
import CryptoExtras
import Foundation
import WebAuthn
import LatchkeyWire

/// Compact JWS (RFC 7515) with the algorithms Latchkey signs with (RFC 7518 §3.3–3.5): ES256,
/// RS256 and PS256, built on swift-crypto. The verifier accepts exactly the algorithm of the
/// key a token names, so a token cannot choose a weaker reading of its own signature.
enum JSONWebSignature {
    struct Header: Codable {
        var alg: String
        var typ: String?
        var kid: String?
    }

    /// Claims are encoded by one shared encoder; its options never change after this.
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()

    /// The base64url-encoded protected header naming a key of `algorithm`.
    static func encodedHeader(keyID: String, type: String, algorithm: SigningAlgorithm = .es256) -> String {
        // Encoding these three strings cannot fail.
        Base64URL.encode((try? encoder.encode(Header(alg: algorithm.rawValue, typ: type, kid: keyID))) ?? Data())
    }

    /// Signs a JSON payload with `key` under an already encoded header
    /// (``encodedHeader(keyID:type:algorithm:)``) naming the key's algorithm.
    static func sign(payload: [UInt8], header: String, key: SigningPrivateKey) throws -> String {
        let signingInput = header + "." + Base64URL.encode(payload)
        return signingInput + "." + Base64URL.encode(try key.signature(for: Data(signingInput.utf8)))
    }

    /// Signs a JSON payload with a P-256 key under an already encoded ES256 header.
    static func sign(payload: [UInt8], header: String, key: P256.Signing.PrivateKey) throws -> String {
        try sign(payload: payload, header: header, key: .p256(key))
    }

    /// The key ID and verified payload bytes of a token, or `nil` when the token is
    /// malformed, names an unknown key or another algorithm than the key's, or its signature
    /// does not verify.
    static func verify(_ token: String, keys: (String) -> SigningPublicKey?) -> (keyID: String, payload: Data)? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, token.utf8.count <= 8192,
            let headerBytes = Base64URL.decode(parts[0]),
            let payload = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2]),
            let header = try? JSONDecoder().decode(Header.self, from: Data(headerBytes)),
            let keyID = header.kid, let key = keys(keyID), header.alg == key.algorithm.rawValue
        else { return nil }
        let signingInput = Data(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        guard key.isValidSignature(signature, for: signingInput) else { return nil }
        return (keyID, Data(payload))
    }

    /// Verifies with P-256 keys only, as ES256.
    static func verify(_ token: String, keys: (String) -> P256.Signing.PublicKey?) -> (keyID: String, payload: Data)? {
        verify(token) { keyID in keys(keyID).map { .p256($0) } }
    }
}

/// A private key that signs tokens, with its algorithm.
enum SigningPrivateKey: Sendable {
    case p256(P256.Signing.PrivateKey)
    case rsa(_RSA.Signing.PrivateKey, SigningAlgorithm)

    /// Reads a stored key of `algorithm` (``SigningKeyRecord/privateKey``).
    init(stored bytes: [UInt8], algorithm: SigningAlgorithm) throws {
        switch algorithm {
        case .es256: self = .p256(try P256.Signing.PrivateKey(rawRepresentation: bytes))
        case .rs256, .ps256: self = .rsa(try _RSA.Signing.PrivateKey(derRepresentation: bytes), algorithm)
        }
    }

    /// A new key for `algorithm`: a P-256 key, or an RSA-2048 key (PKCS#1 DER when stored).
    static func new(_ algorithm: SigningAlgorithm) throws -> (key: SigningPrivateKey, stored: [UInt8]) {
        switch algorithm {
        case .es256:
            let key = P256.Signing.PrivateKey()
            return (.p256(key), Array(key.rawRepresentation))
        case .rs256, .ps256:
            let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            return (.rsa(key, algorithm), Array(key.derRepresentation))
        }
    }

    var algorithm: SigningAlgorithm {
        switch self {
        case .p256: .es256
        case .rsa(_, let algorithm): algorithm
        }
    }

    var publicKey: SigningPublicKey {
        switch self {
        case .p256(let key): .p256(key.publicKey)
        case .rsa(let key, let algorithm): .rsa(key.publicKey, algorithm)
        }
    }

    /// The JWS signature bytes: ECDSA's r‖s; RSA's PKCS#1 v1.5 (RS256) or PSS with a
    /// 32-byte salt (PS256; swift-crypto's `.PSS` salts with the digest's length).
    func signature(for data: Data) throws -> Data {
        switch self {
        case .p256(let key): try key.signature(for: data).rawRepresentation
        case .rsa(let key, let algorithm): try key.signature(for: data, padding: algorithm == .ps256 ? .PSS : .insecurePKCS1v1_5).rawRepresentation
        }
    }
}

/// A public key that verifies tokens, with its algorithm.
enum SigningPublicKey: Sendable {
    case p256(P256.Signing.PublicKey)
    case rsa(_RSA.Signing.PublicKey, SigningAlgorithm)

    var algorithm: SigningAlgorithm {
        switch self {
        case .p256: .es256
        case .rsa(_, let algorithm): algorithm
        }
    }

    func isValidSignature(_ signature: [UInt8], for data: Data) -> Bool {
        switch self {
        case .p256(let key):
            guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.isValidSignature(signature, for: data)
        case .rsa(let key, let algorithm):
            return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: data, padding: algorithm == .ps256 ? .PSS : .insecurePKCS1v1_5)
        }
    }

    /// The key's JWK (RFC 7517, RFC 7518 §6.2–6.3).
    func jwk(keyID: String) -> JSONWebKey? {
        switch self {
        case .p256(let key):
            return JSONWebKey(keyID: keyID, publicKey: key)
        case .rsa(let key, let algorithm):
            guard let primitives = try? key.getKeyPrimitives() else { return nil }
            return JSONWebKey(
                kty: "RSA", kid: keyID, use: "sig", alg: algorithm.rawValue, n: Base64URL.encode(primitives.modulus), e: Base64URL.encode(primitives.publicExponent)
            )
        }
    }
}

extension JSONWebKey {
    /// An ES256 signing key's public half.
    init(keyID: String, publicKey: P256.Signing.PublicKey) {
        let point = Array(publicKey.x963Representation.dropFirst())
        self.init(kty: "EC", crv: "P-256", x: Base64URL.encode(point.prefix(32)), y: Base64URL.encode(point.suffix(32)), kid: keyID, use: "sig", alg: "ES256")
    }
}
