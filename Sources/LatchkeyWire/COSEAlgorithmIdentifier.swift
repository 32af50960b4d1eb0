/// A COSE algorithm identifier (IANA "COSE Algorithms" registry), as used in
/// `pubKeyCredParams`, credential public keys and attestation statements.
public struct COSEAlgorithmIdentifier: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The registered integer value.
    public let rawValue: Int64

    /// Accepts any value, including algorithms Latchkey cannot verify.
    public init(rawValue: Int64) { self.rawValue = rawValue }

    /// ES256: ECDSA P-256 with SHA-256.
    public static let es256 = Self(rawValue: -7)
    /// ES384: ECDSA P-384 with SHA-384.
    public static let es384 = Self(rawValue: -35)
    /// ES512: ECDSA P-521 with SHA-512.
    public static let es512 = Self(rawValue: -36)
    /// ESP256: the fully specified ES256 (RFC 9864).
    public static let esp256 = Self(rawValue: -9)
    /// ESP384: the fully specified ES384 (RFC 9864).
    public static let esp384 = Self(rawValue: -51)
    /// ESP512: the fully specified ES512 (RFC 9864).
    public static let esp512 = Self(rawValue: -52)
    /// EdDSA; the key's curve says which (only Ed25519 is supported).
    public static let edDSA = Self(rawValue: -8)
    /// Ed25519: the fully specified EdDSA with Ed25519 (RFC 9864).
    public static let ed25519 = Self(rawValue: -19)
    /// Ed448, fully specified; not supported.
    public static let ed448 = Self(rawValue: -53)
    /// RS256: RSASSA-PKCS1-v1_5 with SHA-256.
    public static let rs256 = Self(rawValue: -257)
    /// RS384: RSASSA-PKCS1-v1_5 with SHA-384.
    public static let rs384 = Self(rawValue: -258)
    /// RS512: RSASSA-PKCS1-v1_5 with SHA-512.
    public static let rs512 = Self(rawValue: -259)
    /// PS256: RSASSA-PSS with SHA-256.
    public static let ps256 = Self(rawValue: -37)
    /// PS384: RSASSA-PSS with SHA-384.
    public static let ps384 = Self(rawValue: -38)
    /// PS512: RSASSA-PSS with SHA-512.
    public static let ps512 = Self(rawValue: -39)
    /// RS1: RSASSA-PKCS1-v1_5 with SHA-1, produced by legacy TPMs; off unless enabled.
    public static let rs1 = Self(rawValue: -65535)
    /// ML-DSA-44; not supported by swift-crypto.
    public static let mldsa44 = Self(rawValue: -48)
    /// ML-DSA-65.
    public static let mldsa65 = Self(rawValue: -49)
    /// ML-DSA-87.
    public static let mldsa87 = Self(rawValue: -50)

    /// The registered name, for messages and output.
    public var name: String {
        switch self {
        case .es256: return "ES256"
        case .es384: return "ES384"
        case .es512: return "ES512"
        case .esp256: return "ESP256"
        case .esp384: return "ESP384"
        case .esp512: return "ESP512"
        case .edDSA: return "EdDSA"
        case .ed25519: return "Ed25519"
        case .ed448: return "Ed448"
        case .rs256: return "RS256"
        case .rs384: return "RS384"
        case .rs512: return "RS512"
        case .ps256: return "PS256"
        case .ps384: return "PS384"
        case .ps512: return "PS512"
        case .rs1: return "RS1"
        case .mldsa44: return "ML-DSA-44"
        case .mldsa65: return "ML-DSA-65"
        case .mldsa87: return "ML-DSA-87"
        case Self(rawValue: -47): return "ES256K"
        default: return "COSE algorithm \(rawValue)"
        }
    }

    public var description: String { "\(name) (\(rawValue))" }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(Int64.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
