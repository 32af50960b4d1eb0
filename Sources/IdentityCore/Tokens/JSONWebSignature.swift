import Crypto
import Foundation
import WebAuthn
import LatchkeyWire

/// Compact JWS with ES256 (RFC 7515, RFC 7518 §3.4), built on swift-crypto. Latchkey only
/// signs with P-256, so the verifier accepts nothing else: `alg` must be `ES256`.
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

    /// The base64url-encoded protected header naming a P-256 key.
    static func encodedHeader(keyID: String, type: String) -> String {
        // Encoding these three strings cannot fail.
        Base64URL.encode((try? encoder.encode(Header(alg: "ES256", typ: type, kid: keyID))) ?? Data())
    }

    /// Signs a JSON payload with `key` under an already encoded header
    /// (``encodedHeader(keyID:type:)``).
    static func sign(payload: [UInt8], header: String, key: P256.Signing.PrivateKey) throws -> String {
        let signingInput = header + "." + Base64URL.encode(payload)
        let signature = try key.signature(for: Data(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature.rawRepresentation)
    }

    /// The key ID and verified payload bytes of a token, or `nil` when the token is
    /// malformed, not ES256, names an unknown key, or its signature does not verify.
    static func verify(_ token: String, keys: (String) -> P256.Signing.PublicKey?) -> (keyID: String, payload: Data)? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, token.utf8.count <= 8192,
            let headerBytes = Base64URL.decode(parts[0]),
            let payload = Base64URL.decode(parts[1]),
            let signatureBytes = Base64URL.decode(parts[2]),
            let header = try? JSONDecoder().decode(Header.self, from: Data(headerBytes)),
            header.alg == "ES256", let keyID = header.kid, let key = keys(keyID),
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes)
        else { return nil }
        let signingInput = Data(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        guard key.isValidSignature(signature, for: signingInput) else { return nil }
        return (keyID, Data(payload))
    }
}

extension JSONWebKey {
    /// An ES256 signing key's public half.
    init(keyID: String, publicKey: P256.Signing.PublicKey) {
        let point = Array(publicKey.x963Representation.dropFirst())
        self.init(kty: "EC", crv: "P-256", x: Base64URL.encode(point.prefix(32)), y: Base64URL.encode(point.suffix(32)), kid: keyID, use: "sig", alg: "ES256")
    }
}
