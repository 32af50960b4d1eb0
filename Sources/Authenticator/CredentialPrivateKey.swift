public import CBOR
public import Crypto
public import CryptoExtras
public import Foundation
public import WebAuthn

/// A credential's private key in the software authenticator, for every algorithm the
/// verifier supports.
public enum CredentialPrivateKey: Sendable {
    /// ES256 (P-256).
    case es256(P256.Signing.PrivateKey)
    /// ES384 (P-384).
    case es384(P384.Signing.PrivateKey)
    /// ES512 (P-521).
    case es512(P521.Signing.PrivateKey)
    /// EdDSA with Ed25519, identified as `algorithm` (-8 or the fully specified -19).
    case ed25519(Curve25519.Signing.PrivateKey, algorithm: COSEAlgorithmIdentifier)
    /// RSA with the given RS*/PS* algorithm.
    case rsa(_RSA.Signing.PrivateKey, algorithm: COSEAlgorithmIdentifier)
    /// ML-DSA-65.
    case mldsa65(MLDSA65.PrivateKey)
    /// ML-DSA-87.
    case mldsa87(MLDSA87.PrivateKey)

    /// Errors creating or using keys.
    public struct KeyError: Error, CustomStringConvertible {
        /// What went wrong.
        public let description: String
    }

    /// Generates a fresh key for `algorithm`.
    public static func generate(_ algorithm: COSEAlgorithmIdentifier) throws -> CredentialPrivateKey {
        switch algorithm {
        case .es256: return .es256(P256.Signing.PrivateKey())
        case .es384: return .es384(P384.Signing.PrivateKey())
        case .es512: return .es512(P521.Signing.PrivateKey())
        case .edDSA, .ed25519: return .ed25519(Curve25519.Signing.PrivateKey(), algorithm: algorithm)
        case .rs256, .rs384, .rs512, .ps256, .ps384, .ps512, .rs1:
            return .rsa(try _RSA.Signing.PrivateKey(keySize: .bits2048), algorithm: algorithm)
        case .mldsa65: return .mldsa65(try MLDSA65.PrivateKey())
        case .mldsa87: return .mldsa87(try MLDSA87.PrivateKey())
        default: throw KeyError(description: "the software authenticator cannot create \(algorithm) keys")
        }
    }

    /// The COSE algorithm the key signs with.
    public var algorithm: COSEAlgorithmIdentifier {
        switch self {
        case .es256: return .es256
        case .es384: return .es384
        case .es512: return .es512
        case .ed25519(_, let algorithm), .rsa(_, let algorithm): return algorithm
        case .mldsa65: return .mldsa65
        case .mldsa87: return .mldsa87
        }
    }

    /// Signs `message` as WebAuthn expects: ECDSA signatures DER-encoded, the others raw.
    public func signature(for message: some DataProtocol) throws -> [UInt8] {
        switch self {
        case .es256(let key): return Array(try key.signature(for: message).derRepresentation)
        case .es384(let key): return Array(try key.signature(for: message).derRepresentation)
        case .es512(let key): return Array(try key.signature(for: message).derRepresentation)
        case .ed25519(let key, _): return Array(try key.signature(for: message))
        case .rsa(let key, let algorithm):
            let padding: _RSA.Signing.Padding = [.ps256, .ps384, .ps512].contains(algorithm) ? .PSS : .insecurePKCS1v1_5
            switch algorithm {
            case .rs384, .ps384: return Array(try key.signature(for: SHA384.hash(data: message), padding: padding).rawRepresentation)
            case .rs512, .ps512: return Array(try key.signature(for: SHA512.hash(data: message), padding: padding).rawRepresentation)
            case .rs1: return Array(try key.signature(for: Insecure.SHA1.hash(data: message), padding: padding).rawRepresentation)
            default: return Array(try key.signature(for: SHA256.hash(data: message), padding: padding).rawRepresentation)
            }
        case .mldsa65(let key): return Array(try key.signature(for: message))
        case .mldsa87(let key): return Array(try key.signature(for: message))
        }
    }

    /// The public key as a COSE_Key map.
    public var coseKey: CBORItem {
        let alg = CBORItem.int(algorithm.rawValue)
        switch self {
        case .es256(let key): return Self.ec2(alg, curve: 1, x963: key.publicKey.x963Representation)
        case .es384(let key): return Self.ec2(alg, curve: 2, x963: key.publicKey.x963Representation)
        case .es512(let key): return Self.ec2(alg, curve: 3, x963: key.publicKey.x963Representation)
        case .ed25519(let key, _): return [1: 1, 3: alg, -1: 6, -2: .bytes(Array(key.publicKey.rawRepresentation))]
        case .rsa(let key, _):
            let primitives = try? key.publicKey.getKeyPrimitives()
            return [1: 3, 3: alg, -1: .bytes(Array(primitives?.modulus ?? Data())), -2: .bytes(Array(primitives?.publicExponent ?? Data()))]
        case .mldsa65(let key): return [1: 7, 3: alg, -1: .bytes(Array(key.publicKey.rawRepresentation))]
        case .mldsa87(let key): return [1: 7, 3: alg, -1: .bytes(Array(key.publicKey.rawRepresentation))]
        }
    }

    /// ``coseKey`` encoded as CBOR.
    public var coseKeyBytes: [UInt8] { CBOREncoder.encode(coseKey) }

    /// The public key as a DER SubjectPublicKeyInfo, what `getPublicKey()` returns in
    /// browsers and Android puts in `response.publicKey`; `nil` for ML-DSA, which those
    /// clients leave out.
    public var subjectPublicKeyInfo: [UInt8]? {
        switch self {
        case .es256(let key): return Array(key.publicKey.derRepresentation)
        case .es384(let key): return Array(key.publicKey.derRepresentation)
        case .es512(let key): return Array(key.publicKey.derRepresentation)
        // RFC 8410 §4: SEQUENCE { SEQUENCE { OID 1.3.101.112 }, BIT STRING { key } }.
        case .ed25519(let key, _): return [0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00] + Array(key.publicKey.rawRepresentation)
        case .rsa(let key, _): return Array(key.publicKey.derRepresentation)
        case .mldsa65, .mldsa87: return nil
        }
    }

    private static func ec2(_ alg: CBORItem, curve: Int64, x963: Data) -> CBORItem {
        let coordinates = Array(x963.dropFirst())
        let half = coordinates.count / 2
        return [1: 2, 3: alg, -1: .int(curve), -2: .bytes(Array(coordinates.prefix(half))), -3: .bytes(Array(coordinates.suffix(half)))]
    }
}
