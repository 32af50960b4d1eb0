public import Crypto
public import CryptoExtras
public import Foundation

/// A parsed public key of any type this verifier supports, from a COSE key or an X.509
/// SubjectPublicKeyInfo. Every signature check in the module goes through
/// ``isValidSignature(_:over:scheme:)``.
public enum PublicKeyMaterial: Sendable {
    /// NIST P-256.
    case p256(P256.Signing.PublicKey)
    /// NIST P-384.
    case p384(P384.Signing.PublicKey)
    /// NIST P-521.
    case p521(P521.Signing.PublicKey)
    /// Ed25519.
    case ed25519(Curve25519.Signing.PublicKey)
    /// RSA of at least 1024 bits; callers enforce their own minimum via ``rsaModulusBits``.
    case rsa(_RSA.Signing.PublicKey)
    /// ML-DSA-65.
    case mldsa65(MLDSA65.PublicKey)
    /// ML-DSA-87.
    case mldsa87(MLDSA87.PublicKey)

    /// The RSA modulus size in bits, or `nil` for other key types.
    public var rsaModulusBits: Int? {
        if case .rsa(let key) = self { return key.keySizeInBits }
        return nil
    }

    /// A short name of the key type, for messages.
    public var typeName: String {
        switch self {
        case .p256: return "EC P-256"
        case .p384: return "EC P-384"
        case .p521: return "EC P-521"
        case .ed25519: return "Ed25519"
        case .rsa(let key): return "RSA-\(key.keySizeInBits)"
        case .mldsa65: return "ML-DSA-65"
        case .mldsa87: return "ML-DSA-87"
        }
    }

    /// Checks a signature over the concatenation of `parts`.
    ///
    /// Hash-based schemes hash the parts incrementally, so authenticator data and the
    /// client data hash are never copied into one buffer on the hot path.
    /// - Returns: `false` when the signature is malformed, does not verify, or the scheme
    ///   does not fit the key type.
    public func isValidSignature(_ signature: some DataProtocol, over parts: [ArraySlice<UInt8>], scheme: SignatureScheme) -> Bool {
        switch (self, scheme) {
        case (.p256(let key), .ecdsa(let hash)):
            guard let sig = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(sig, for: hash.digest(of: parts))
        case (.p384(let key), .ecdsa(let hash)):
            guard let sig = try? P384.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(sig, for: hash.digest(of: parts))
        case (.p521(let key), .ecdsa(let hash)):
            guard let sig = try? P521.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(sig, for: hash.digest(of: parts))
        case (.ed25519(let key), .ed25519):
            return key.isValidSignature(signature, for: Array(parts.joined()))
        case (.rsa(let key), .rsaPKCS1v15(let hash)):
            let sig = _RSA.Signing.RSASignature(rawRepresentation: signature)
            return key.isValidSignature(sig, for: hash.digest(of: parts), padding: .insecurePKCS1v1_5)
        case (.rsa(let key), .rsaPSS(let hash)):
            let sig = _RSA.Signing.RSASignature(rawRepresentation: signature)
            return key.isValidSignature(sig, for: hash.digest(of: parts), padding: .PSS)
        case (.mldsa65(let key), .mldsa65):
            return key.isValidSignature(signature, for: Array(parts.joined()))
        case (.mldsa87(let key), .mldsa87):
            return key.isValidSignature(signature, for: Array(parts.joined()))
        default:
            return false
        }
    }

    /// Whether two keys are the same key, compared by their canonical encodings.
    public func isSameKey(as other: PublicKeyMaterial) -> Bool {
        switch (self, other) {
        case (.p256(let a), .p256(let b)): return a.x963Representation == b.x963Representation
        case (.p384(let a), .p384(let b)): return a.x963Representation == b.x963Representation
        case (.p521(let a), .p521(let b)): return a.x963Representation == b.x963Representation
        case (.ed25519(let a), .ed25519(let b)): return a.rawRepresentation == b.rawRepresentation
        case (.rsa(let a), .rsa(let b)): return a.derRepresentation == b.derRepresentation
        case (.mldsa65(let a), .mldsa65(let b)): return a.rawRepresentation == b.rawRepresentation
        case (.mldsa87(let a), .mldsa87(let b)): return a.rawRepresentation == b.rawRepresentation
        default: return false
        }
    }
}
