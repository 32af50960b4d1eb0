import Crypto

/// A hash function used inside a signature scheme.
public enum DigestAlgorithm: Sendable, Hashable, CustomStringConvertible {
    /// SHA-1; accepted only where a legacy switch allows it.
    case sha1
    /// SHA-256.
    case sha256
    /// SHA-384.
    case sha384
    /// SHA-512.
    case sha512

    public var description: String {
        switch self {
        case .sha1: return "SHA-1"
        case .sha256: return "SHA-256"
        case .sha384: return "SHA-384"
        case .sha512: return "SHA-512"
        }
    }

    /// Hashes the concatenation of `parts` without copying them into one buffer.
    func digest(of parts: [ArraySlice<UInt8>]) -> any Digest {
        switch self {
        case .sha1: return hash(Insecure.SHA1(), parts)
        case .sha256: return hash(SHA256(), parts)
        case .sha384: return hash(SHA384(), parts)
        case .sha512: return hash(SHA512(), parts)
        }
    }

    private func hash<H: HashFunction>(_ function: H, _ parts: [ArraySlice<UInt8>]) -> H.Digest {
        var function = function
        for part in parts { function.update(data: part) }
        return function.finalize()
    }
}

/// How a signature is computed: the primitive, its encoding and its hash.
public enum SignatureScheme: Sendable, Hashable, CustomStringConvertible {
    /// ECDSA with the given hash; the signature is an ASN.1 DER `Ecdsa-Sig-Value`.
    case ecdsa(DigestAlgorithm)
    /// Ed25519 (PureEdDSA).
    case ed25519
    /// RSASSA-PKCS1-v1_5 with the given hash.
    case rsaPKCS1v15(DigestAlgorithm)
    /// RSASSA-PSS with MGF1, the given hash and a salt as long as the hash.
    case rsaPSS(DigestAlgorithm)
    /// ML-DSA-65 (FIPS 204) with an empty context.
    case mldsa65
    /// ML-DSA-87 (FIPS 204) with an empty context.
    case mldsa87

    public var description: String {
        switch self {
        case .ecdsa(let hash): return "ECDSA with \(hash)"
        case .ed25519: return "Ed25519"
        case .rsaPKCS1v15(let hash): return "RSASSA-PKCS1-v1_5 with \(hash)"
        case .rsaPSS(let hash): return "RSASSA-PSS with \(hash)"
        case .mldsa65: return "ML-DSA-65"
        case .mldsa87: return "ML-DSA-87"
        }
    }
}

extension Digest {
    /// The digest bytes.
    var bytes: [UInt8] { Array(self) }
}
