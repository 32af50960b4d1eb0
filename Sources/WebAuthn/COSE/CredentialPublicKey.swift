public import CBOR
import Crypto
import CryptoExtras
public import Foundation

/// A credential public key decoded from its COSE_Key encoding (RFC 9052 §7, RFC 9053).
///
/// Decoding checks everything that can be checked without a signature: the key type fits
/// the algorithm, EC points lie on their named curve, RSA moduli meet the policy, and the
/// algorithm is one this verifier supports. ``coseKey`` keeps the bytes as received, for
/// storage.
public struct CredentialPublicKey: Sendable {
    /// The algorithm the key is bound to.
    public let algorithm: COSEAlgorithmIdentifier
    /// The parsed key.
    public let material: PublicKeyMaterial
    /// The COSE_Key bytes exactly as received.
    public let coseKey: [UInt8]

    /// COSE key types (RFC 9053 §7, draft-ietf-cose-dilithium for AKP).
    private enum KeyType: Int64 {
        case okp = 1, ec2 = 2, rsa = 3, akp = 7
    }

    /// Decodes a COSE_Key from bytes that must contain exactly one CBOR map.
    public init(coseKey bytes: some Collection<UInt8>, policy: KeyPolicy = KeyPolicy()) throws(WebAuthnError) {
        let array = Array(bytes)
        let node: CBORNode
        do {
            node = try CBORDecoder().decode(array)
        } catch {
            throw .cbor(error, in: "credential public key")
        }
        try self.init(node: node, policy: policy)
    }

    /// Decodes a COSE_Key from a CBOR node (for example the one inside authenticator data).
    public init(node: CBORNode, policy: KeyPolicy = KeyPolicy()) throws(WebAuthnError) {
        guard case .map = node.value else {
            throw WebAuthnError(.malformedPublicKey, "COSE key must be a CBOR map, found a \(node.value.typeName)")
        }
        guard let ktyNode = node[intKey: 1], let ktyValue = ktyNode.value.int64 else {
            throw WebAuthnError(.malformedPublicKey, "COSE key has no integer key type (label 1)")
        }
        guard let algNode = node[intKey: 3], let algValue = algNode.value.int64 else {
            throw WebAuthnError(.malformedPublicKey, "COSE key has no integer algorithm (label 3)")
        }
        let algorithm = COSEAlgorithmIdentifier(rawValue: algValue)
        guard let keyType = KeyType(rawValue: ktyValue) else {
            throw WebAuthnError(.unsupportedAlgorithm, "COSE key type \(ktyValue) is not supported (algorithm \(algorithm))")
        }
        if algorithm == .rs1 && !policy.allowsLegacyRS1ForTPM {
            throw WebAuthnError(.unsupportedAlgorithm, "RS1 (-65535) is accepted only when the legacy TPM switch is on")
        }

        self.algorithm = algorithm
        self.coseKey = Array(node.encodedBytes)
        switch keyType {
        case .ec2: material = try Self.ec2Key(node, algorithm)
        case .okp: material = try Self.okpKey(node, algorithm)
        case .rsa: material = try Self.rsaKey(node, algorithm, policy)
        case .akp: material = try Self.akpKey(node, algorithm)
        }
    }

    /// Checks a signature made with this key's algorithm over the concatenation of `parts`.
    public func isValidSignature(_ signature: some DataProtocol, over parts: [ArraySlice<UInt8>]) -> Bool {
        guard let scheme = algorithm.signatureScheme else { return false }
        return material.isValidSignature(signature, over: parts, scheme: scheme)
    }

    // MARK: - Key types

    private static func ec2Key(_ node: CBORNode, _ algorithm: COSEAlgorithmIdentifier) throws(WebAuthnError) -> PublicKeyMaterial {
        let curve = try integerParameter(node, -1, "crv")
        let expected: (curve: Int64, size: Int, name: String)
        switch algorithm {
        case .es256, .esp256: expected = (1, 32, "P-256")
        case .es384, .esp384: expected = (2, 48, "P-384")
        case .es512, .esp512: expected = (3, 66, "P-521")
        default:
            throw WebAuthnError(.unsupportedAlgorithm, "algorithm \(algorithm) is not supported for EC2 keys (curve \(curve))")
        }
        guard curve == expected.curve else {
            throw WebAuthnError(.malformedPublicKey, "\(algorithm) requires curve \(expected.curve) (\(expected.name)), COSE key has curve \(curve)")
        }
        let x = try byteParameter(node, -2, "x")
        guard let yNode = node[intKey: -3], case .bytes(let y) = yNode.value else {
            throw WebAuthnError(.malformedPublicKey, "EC2 key must carry an uncompressed point: label -3 (y) must be a byte string")
        }
        guard x.count == expected.size, y.count == expected.size else {
            throw WebAuthnError(.malformedPublicKey, "\(expected.name) coordinates must be \(expected.size) bytes, got x=\(x.count) y=\(y.count)")
        }
        let point = [0x04] + x + y
        do {
            switch expected.curve {
            case 1: return .p256(try P256.Signing.PublicKey(x963Representation: point))
            case 2: return .p384(try P384.Signing.PublicKey(x963Representation: point))
            default: return .p521(try P521.Signing.PublicKey(x963Representation: point))
            }
        } catch {
            throw WebAuthnError(.malformedPublicKey, "EC2 point is not on curve \(expected.name)")
        }
    }

    private static func okpKey(_ node: CBORNode, _ algorithm: COSEAlgorithmIdentifier) throws(WebAuthnError) -> PublicKeyMaterial {
        let curve = try integerParameter(node, -1, "crv")
        guard algorithm == .edDSA || algorithm == .ed25519 || algorithm == .ed448 else {
            throw WebAuthnError(.unsupportedAlgorithm, "algorithm \(algorithm) is not supported for OKP keys")
        }
        // crv 6 is Ed25519, crv 7 is Ed448 (RFC 9053 Table 18).
        if curve == 7 || algorithm == .ed448 {
            throw WebAuthnError(.unsupportedAlgorithm, "Ed448 (OKP curve 7) is not supported")
        }
        guard curve == 6 else {
            throw WebAuthnError(.malformedPublicKey, "\(algorithm) requires OKP curve 6 (Ed25519), COSE key has curve \(curve)")
        }
        let x = try byteParameter(node, -2, "x")
        guard x.count == 32, let key = try? Curve25519.Signing.PublicKey(rawRepresentation: x) else {
            throw WebAuthnError(.malformedPublicKey, "Ed25519 public key must be 32 bytes, got \(x.count)")
        }
        return .ed25519(key)
    }

    private static func rsaKey(
        _ node: CBORNode,
        _ algorithm: COSEAlgorithmIdentifier,
        _ policy: KeyPolicy
    ) throws(WebAuthnError) -> PublicKeyMaterial {
        switch algorithm {
        case .rs256, .rs384, .rs512, .ps256, .ps384, .ps512, .rs1: break
        default: throw WebAuthnError(.unsupportedAlgorithm, "algorithm \(algorithm) is not supported for RSA keys")
        }
        let modulus = try byteParameter(node, -1, "n")
        let exponent = try byteParameter(node, -2, "e")
        let key = try RSAKeyParsing.key(modulus: modulus, exponent: exponent)
        try RSAKeyParsing.checkSize(key, policy: policy)
        return .rsa(key)
    }

    private static func akpKey(_ node: CBORNode, _ algorithm: COSEAlgorithmIdentifier) throws(WebAuthnError) -> PublicKeyMaterial {
        let publicKey = try byteParameter(node, -1, "pub")
        do {
            switch algorithm {
            case .mldsa65: return .mldsa65(try MLDSA65.PublicKey(rawRepresentation: publicKey))
            case .mldsa87: return .mldsa87(try MLDSA87.PublicKey(rawRepresentation: publicKey))
            case .mldsa44: throw WebAuthnError(.unsupportedAlgorithm, "ML-DSA-44 (-48) is not supported")
            default: throw WebAuthnError(.unsupportedAlgorithm, "algorithm \(algorithm) is not supported for AKP keys")
            }
        } catch let error as WebAuthnError {
            throw error
        } catch {
            throw WebAuthnError(.malformedPublicKey, "\(algorithm) public key of \(publicKey.count) bytes is malformed")
        }
    }

    // MARK: - Parameters

    private static func integerParameter(_ node: CBORNode, _ label: Int64, _ name: String) throws(WebAuthnError) -> Int64 {
        guard let value = node[intKey: label]?.value.int64 else {
            throw WebAuthnError(.malformedPublicKey, "COSE key has no integer \(name) (label \(label))")
        }
        return value
    }

    private static func byteParameter(_ node: CBORNode, _ label: Int64, _ name: String) throws(WebAuthnError) -> [UInt8] {
        guard let value = node[intKey: label], case .bytes(let bytes) = value.value else {
            throw WebAuthnError(.malformedPublicKey, "COSE key has no byte string \(name) (label \(label))")
        }
        return Array(bytes)
    }
}

/// RSA key construction shared by COSE keys and TPM public areas.
enum RSAKeyParsing {
    /// Builds a key from big-endian modulus and exponent bytes. Keys down to 1024 bits are
    /// built so that ``checkSize(_:policy:)`` can report them as weak rather than malformed.
    static func key(modulus: [UInt8], exponent: [UInt8]) throws(WebAuthnError) -> _RSA.Signing.PublicKey {
        let trimmedModulus = Array(modulus.drop { $0 == 0 })
        guard trimmedModulus.count >= 128 else {
            throw WebAuthnError(.weakKey, "RSA modulus of \(trimmedModulus.count * 8) bits is below 1024 bits")
        }
        // RSAPublicKey ::= SEQUENCE { modulus INTEGER, publicExponent INTEGER } (RFC 8017 A.1.1)
        let body = derInteger(trimmedModulus) + derInteger(exponent)
        do {
            return try _RSA.Signing.PublicKey(unsafeDERRepresentation: [0x30] + derLength(body.count) + body)
        } catch {
            throw WebAuthnError(.malformedPublicKey, "RSA key with a \(trimmedModulus.count)-byte modulus is malformed")
        }
    }

    /// Enforces the policy's minimum modulus size.
    static func checkSize(_ key: _RSA.Signing.PublicKey, policy: KeyPolicy) throws(WebAuthnError) {
        guard key.keySizeInBits >= policy.minimumRSAModulusBits else {
            throw WebAuthnError(.weakKey, "RSA modulus is \(key.keySizeInBits) bits; at least \(policy.minimumRSAModulusBits) are required")
        }
    }

    /// A DER INTEGER holding the unsigned big-endian `magnitude`.
    private static func derInteger(_ magnitude: [UInt8]) -> [UInt8] {
        var content = Array(magnitude.drop { $0 == 0 })
        if content.first.map({ $0 & 0x80 != 0 }) ?? true { content.insert(0, at: 0) }
        return [0x02] + derLength(content.count) + content
    }

    private static func derLength(_ count: Int) -> [UInt8] {
        guard count >= 128 else { return [UInt8(count)] }
        let bytes = withUnsafeBytes(of: UInt32(count).bigEndian, Array.init).drop { $0 == 0 }
        return [0x80 | UInt8(bytes.count)] + bytes
    }
}
