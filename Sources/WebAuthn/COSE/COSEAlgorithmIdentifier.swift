public import LatchkeyWire

/// What the verifier knows about each algorithm: whether it can check it, and how.
extension COSEAlgorithmIdentifier {
    /// Every algorithm this verifier can check, in a sensible order of preference for
    /// `pubKeyCredParams`. RS1 is left out: it needs the legacy switch.
    public static let supported: [COSEAlgorithmIdentifier] = [
        .es256, .edDSA, .ed25519, .esp256, .es384, .esp384, .es512, .esp512,
        .ps256, .ps384, .ps512, .rs256, .rs384, .rs512, .mldsa65, .mldsa87,
    ]

    /// The signature scheme, or `nil` when the algorithm is not supported.
    public var signatureScheme: SignatureScheme? {
        switch self {
        case .es256, .esp256: return .ecdsa(.sha256)
        case .es384, .esp384: return .ecdsa(.sha384)
        case .es512, .esp512: return .ecdsa(.sha512)
        case .edDSA, .ed25519: return .ed25519
        case .rs256: return .rsaPKCS1v15(.sha256)
        case .rs384: return .rsaPKCS1v15(.sha384)
        case .rs512: return .rsaPKCS1v15(.sha512)
        case .rs1: return .rsaPKCS1v15(.sha1)
        case .ps256: return .rsaPSS(.sha256)
        case .ps384: return .rsaPSS(.sha384)
        case .ps512: return .rsaPSS(.sha512)
        case .mldsa65: return .mldsa65
        case .mldsa87: return .mldsa87
        default: return nil
        }
    }
}
