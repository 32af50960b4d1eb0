import SwiftASN1
import Crypto
import CryptoExtras

/// The algorithm an issuer used to sign a certificate (RFC 5280 `AlgorithmIdentifier`).
struct CertificateSignatureAlgorithm: Sendable, Hashable, CustomStringConvertible {
    /// The algorithm OID in dotted form.
    let oid: String
    /// The scheme to verify with, or `nil` when the algorithm is not accepted.
    let scheme: SignatureScheme?

    init(node: ASN1Node) throws(WebAuthnError) {
        let parts = try ASN1Reading.children(node, .sequence, "signature algorithm")
        guard let first = parts.first else { throw ASN1Reading.malformed("signature algorithm is empty") }
        oid = try ASN1Reading.objectIdentifier(first, "signature algorithm")
        switch oid {
        case "1.2.840.10045.4.3.2": scheme = .ecdsa(.sha256)
        case "1.2.840.10045.4.3.3": scheme = .ecdsa(.sha384)
        case "1.2.840.10045.4.3.4": scheme = .ecdsa(.sha512)
        case "1.2.840.113549.1.1.11": scheme = .rsaPKCS1v15(.sha256)
        case "1.2.840.113549.1.1.12": scheme = .rsaPKCS1v15(.sha384)
        case "1.2.840.113549.1.1.13": scheme = .rsaPKCS1v15(.sha512)
        case "1.3.101.112": scheme = .ed25519
        case "1.2.840.113549.1.1.10": scheme = Self.pssScheme(parts.dropFirst().first)
        // SHA-1 certificate signatures (1.2.840.113549.1.1.5, 1.2.840.10045.4.1) are
        // collision-prone and are not accepted in a chain; trust anchors' own
        // self-signatures are never checked, so SHA-1-signed roots still work as anchors.
        default: scheme = nil
        }
    }

    var description: String {
        scheme.map { "\($0) (\(oid))" } ?? oid
    }

    /// RSASSA-PSS parameters (RFC 4055): only the common form with a SHA-2 hash, MGF1 with
    /// the same hash, and a salt as long as the hash can be verified by swift-crypto.
    private static func pssScheme(_ parameters: ASN1Node?) -> SignatureScheme? {
        guard let parameters, case .constructed(let fields) = parameters.content else { return nil }
        var hash: DigestAlgorithm?
        var saltLength = 20
        for field in fields {
            if field.identifier == .context(0),
                let algorithm = try? ASN1Reading.explicitChild(field, "hashAlgorithm"),
                case .constructed(let inner) = algorithm.content,
                let oidNode = Array(inner).first,
                let oid = try? ASN1Reading.objectIdentifier(oidNode, "hash")
            {
                hash = ["2.16.840.1.101.3.4.2.1": .sha256, "2.16.840.1.101.3.4.2.2": .sha384, "2.16.840.1.101.3.4.2.3": .sha512][oid]
            } else if field.identifier == .context(2),
                let value = try? ASN1Reading.explicitChild(field, "saltLength"),
                let length = try? ASN1Reading.smallInteger(value, "saltLength")
            {
                saltLength = length
            }
        }
        guard let hash else { return nil }
        let digestLength = [DigestAlgorithm.sha256: 32, .sha384: 48, .sha512: 64][hash]
        return saltLength == digestLength ? .rsaPSS(hash) : nil
    }
}

/// Reads a SubjectPublicKeyInfo into a key this module can verify with.
enum SubjectPublicKeyInfo {
    /// - Returns: the key (or `nil` when its type is not supported) and the algorithm OID.
    static func parse(_ node: ASN1Node) throws(WebAuthnError) -> (PublicKeyMaterial?, String) {
        let parts = try ASN1Reading.children(node, .sequence, "subjectPublicKeyInfo")
        guard parts.count == 2 else { throw ASN1Reading.malformed("subjectPublicKeyInfo must have 2 parts") }
        let algorithm = try ASN1Reading.children(parts[0], .sequence, "subjectPublicKeyInfo algorithm")
        guard let oidNode = algorithm.first else { throw ASN1Reading.malformed("subjectPublicKeyInfo algorithm is empty") }
        let oid = try ASN1Reading.objectIdentifier(oidNode, "public key algorithm")
        let keyBytes = try ASN1Reading.bitStringBytes(parts[1], "subjectPublicKey")
        let spki = Array(node.encodedBytes)

        switch oid {
        case "1.2.840.10045.2.1":
            guard algorithm.count == 2 else { throw ASN1Reading.malformed("EC public key must name its curve") }
            let curve = try ASN1Reading.objectIdentifier(algorithm[1], "EC curve")
            return (ecKey(curve: curve, point: keyBytes), oid)
        case "1.2.840.113549.1.1.1":
            // Keys down to 1024 bits parse; the chain verifier applies the key policy.
            return ((try? _RSA.Signing.PublicKey(unsafeDERRepresentation: spki)).map { .rsa($0) }, oid)
        case "1.3.101.112":
            return ((try? Curve25519.Signing.PublicKey(rawRepresentation: keyBytes)).map { .ed25519($0) }, oid)
        default:
            return (nil, oid)
        }
    }

    private static func ecKey(curve: String, point: ArraySlice<UInt8>) -> PublicKeyMaterial? {
        switch curve {
        case "1.2.840.10045.3.1.7":
            return (try? P256.Signing.PublicKey(x963Representation: point)).map { .p256($0) }
                ?? (try? P256.Signing.PublicKey(compressedRepresentation: point)).map { .p256($0) }
        case "1.3.132.0.34":
            return (try? P384.Signing.PublicKey(x963Representation: point)).map { .p384($0) }
                ?? (try? P384.Signing.PublicKey(compressedRepresentation: point)).map { .p384($0) }
        case "1.3.132.0.35":
            return (try? P521.Signing.PublicKey(x963Representation: point)).map { .p521($0) }
                ?? (try? P521.Signing.PublicKey(compressedRepresentation: point)).map { .p521($0) }
        default:
            return nil
        }
    }
}
