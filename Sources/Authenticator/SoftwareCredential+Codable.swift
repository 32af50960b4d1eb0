import Crypto
import CryptoExtras
import Foundation
import WebAuthn

/// Software credentials persist as JSON so that a command-line authenticator or a test
/// fixture can keep its passkeys between runs:
///
/// ```json
/// { "credentialID": "…", "relyingPartyID": "localhost", "userHandle": "…", "userName": "a@example.com",
///   "privateKey": { "algorithm": -7, "format": "raw", "key": "…" }, "signCount": 3, "isSynced": false }
/// ```
///
/// Binary members are unpadded base64url. The private key is written in the clear: keep the
/// file where only its owner can read it, and never use a software credential to protect a
/// real account.
extension SoftwareCredential: Codable {
    private enum CodingKeys: String, CodingKey {
        case credentialID, relyingPartyID, userHandle, userName, privateKey, signCount, isSynced
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let credentialID = try container.decode(Base64URLBytes.self, forKey: .credentialID).bytes
        guard !credentialID.isEmpty else {
            throw DecodingError.dataCorruptedError(forKey: .credentialID, in: container, debugDescription: "the credential ID is empty")
        }
        self.init(
            credentialID: credentialID,
            relyingPartyID: try container.decode(String.self, forKey: .relyingPartyID),
            userHandle: try container.decode(Base64URLBytes.self, forKey: .userHandle).bytes,
            userName: try container.decode(String.self, forKey: .userName),
            privateKey: try container.decode(CredentialPrivateKey.self, forKey: .privateKey),
            signCount: try container.decode(UInt32.self, forKey: .signCount),
            isSynced: try container.decode(Bool.self, forKey: .isSynced)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Base64URLBytes(credentialID), forKey: .credentialID)
        try container.encode(relyingPartyID, forKey: .relyingPartyID)
        try container.encode(Base64URLBytes(userHandle), forKey: .userHandle)
        try container.encode(userName, forKey: .userName)
        try container.encode(privateKey, forKey: .privateKey)
        try container.encode(signCount, forKey: .signCount)
        try container.encode(isSynced, forKey: .isSynced)
    }
}

/// A private key persists as its COSE algorithm plus the key in the one representation
/// swift-crypto reads back for that family: the raw scalar for ECDSA, the raw seed for
/// Ed25519, PKCS #1 DER for RSA and the 32-byte seed for ML-DSA. `format` names the
/// representation so that the file explains itself; decoding checks it against the
/// algorithm.
extension CredentialPrivateKey: Codable {
    private enum CodingKeys: String, CodingKey {
        case algorithm, format, key
    }

    /// How the key bytes are represented.
    private enum Format: String, Codable {
        /// `rawRepresentation` (ECDSA scalar, Ed25519 seed).
        case raw
        /// `derRepresentation` (RSA).
        case der
        /// `seedRepresentation` (ML-DSA).
        case seed
    }

    private var format: Format {
        switch self {
        case .es256, .es384, .es512, .ed25519: return .raw
        case .rsa: return .der
        case .mldsa65, .mldsa87: return .seed
        }
    }

    var keyBytes: Data {
        switch self {
        case .es256(let key): return key.rawRepresentation
        case .es384(let key): return key.rawRepresentation
        case .es512(let key): return key.rawRepresentation
        case .ed25519(let key, _): return key.rawRepresentation
        case .rsa(let key, _): return key.derRepresentation
        case .mldsa65(let key): return key.seedRepresentation
        case .mldsa87(let key): return key.seedRepresentation
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let algorithm = try container.decode(COSEAlgorithmIdentifier.self, forKey: .algorithm)
        let key = try container.decode(Base64URLBytes.self, forKey: .key).bytes
        let expected = try Self.format(for: algorithm, container: container)
        if let format = try container.decodeIfPresent(Format.self, forKey: .format), format != expected {
            throw DecodingError.dataCorruptedError(
                forKey: .format, in: container,
                debugDescription: "expected format \"\(expected.rawValue)\" for \(algorithm.name), found \"\(format.rawValue)\""
            )
        }
        do {
            switch algorithm {
            case .es256: self = .es256(try P256.Signing.PrivateKey(rawRepresentation: key))
            case .es384: self = .es384(try P384.Signing.PrivateKey(rawRepresentation: key))
            case .es512: self = .es512(try P521.Signing.PrivateKey(rawRepresentation: key))
            case .edDSA, .ed25519: self = .ed25519(try Curve25519.Signing.PrivateKey(rawRepresentation: key), algorithm: algorithm)
            case .mldsa65: self = .mldsa65(try MLDSA65.PrivateKey(seedRepresentation: key, publicKey: nil))
            case .mldsa87: self = .mldsa87(try MLDSA87.PrivateKey(seedRepresentation: key, publicKey: nil))
            default: self = .rsa(try _RSA.Signing.PrivateKey(derRepresentation: key), algorithm: algorithm)
            }
        } catch {
            throw DecodingError.dataCorruptedError(
                forKey: .key, in: container,
                debugDescription: "is not a valid \(algorithm.name) private key in \(expected.rawValue) form (\(key.count) bytes)"
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(algorithm, forKey: .algorithm)
        try container.encode(format, forKey: .format)
        try container.encode(Base64URLBytes(keyBytes), forKey: .key)
    }

    /// The representation an algorithm's keys are stored in; the same algorithms that
    /// ``generate(_:)`` creates keys for.
    private static func format(for algorithm: COSEAlgorithmIdentifier, container: KeyedDecodingContainer<CodingKeys>) throws -> Format {
        switch algorithm {
        case .es256, .es384, .es512, .edDSA, .ed25519: return .raw
        case .rs256, .rs384, .rs512, .ps256, .ps384, .ps512, .rs1: return .der
        case .mldsa65, .mldsa87: return .seed
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .algorithm, in: container,
                debugDescription: "the software authenticator has no keys for \(algorithm)"
            )
        }
    }
}
