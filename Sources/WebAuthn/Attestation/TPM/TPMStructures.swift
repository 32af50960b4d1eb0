import Crypto
import CryptoExtras

/// TPM 2.0 algorithm identifiers used in attestation (TPM 2.0 Part 2, Table 9).
enum TPMAlgorithm: UInt16 {
    case rsa = 0x0001
    case sha1 = 0x0004
    case sha256 = 0x000B
    case sha384 = 0x000C
    case sha512 = 0x000D
    case null = 0x0010
    case ecc = 0x0023

    /// The hash this identifier names, when it names one.
    var digest: DigestAlgorithm? {
        switch self {
        case .sha1: return .sha1
        case .sha256: return .sha256
        case .sha384: return .sha384
        case .sha512: return .sha512
        default: return nil
        }
    }
}

/// A reader of TPM's big-endian wire structures that consumes a slice and names the field
/// that ran short.
struct TPMReader {
    private(set) var remaining: ArraySlice<UInt8>
    private let structure: String

    init(_ bytes: ArraySlice<UInt8>, _ structure: String) {
        self.remaining = bytes
        self.structure = structure
    }

    mutating func uint16(_ field: String) throws(WebAuthnError) -> UInt16 {
        guard let value = Bytes.popBigEndian(UInt16.self, from: &remaining) else { throw truncated(field) }
        return value
    }

    mutating func uint32(_ field: String) throws(WebAuthnError) -> UInt32 {
        guard let value = Bytes.popBigEndian(UInt32.self, from: &remaining) else { throw truncated(field) }
        return value
    }

    mutating func skip(_ count: Int, _ field: String) throws(WebAuthnError) {
        guard Bytes.pop(count, from: &remaining) != nil else { throw truncated(field) }
    }

    /// A TPM2B: a 16-bit size followed by that many bytes.
    mutating func sized(_ field: String) throws(WebAuthnError) -> ArraySlice<UInt8> {
        let size = try uint16("\(field).size")
        guard let bytes = Bytes.pop(Int(size), from: &remaining) else { throw truncated(field) }
        return bytes
    }

    func requireEnd() throws(WebAuthnError) {
        guard remaining.isEmpty else {
            throw AttestationSteps.invalid(.tpm, "\(structure) has \(remaining.count) trailing byte(s)")
        }
    }

    private func truncated(_ field: String) -> WebAuthnError {
        AttestationSteps.invalid(.tpm, "\(structure) is truncated at \(field)")
    }
}

/// `TPMT_PUBLIC`: the public area of the credential key as the TPM sees it.
struct TPMPublicArea {
    enum Key {
        case rsa(modulus: [UInt8], exponent: UInt32)
        case ecc(curveID: UInt16, x: [UInt8], y: [UInt8])
    }

    let nameAlgorithm: TPMAlgorithm
    let key: Key

    init(_ bytes: ArraySlice<UInt8>) throws(WebAuthnError) {
        var reader = TPMReader(bytes, "pubArea")
        let type = try reader.uint16("type")
        let nameAlg = try reader.uint16("nameAlg")
        guard let nameAlgorithm = TPMAlgorithm(rawValue: nameAlg), nameAlgorithm.digest != nil else {
            throw AttestationSteps.invalid(.tpm, "pubArea.nameAlg 0x\(String(nameAlg, radix: 16)) is not a supported hash")
        }
        _ = try reader.uint32("objectAttributes")
        _ = try reader.sized("authPolicy")
        switch TPMAlgorithm(rawValue: type) {
        case .rsa:
            try Self.skipSchemes(&reader, curve: false)
            _ = try reader.uint16("parameters.keyBits")
            let exponent = try reader.uint32("parameters.exponent")
            key = .rsa(modulus: Array(try reader.sized("unique.n")), exponent: exponent)
        case .ecc:
            try Self.skipSchemes(&reader, curve: true)
            let curve = try reader.uint16("parameters.curveID")
            try Self.skipScheme(&reader, "parameters.kdf")
            let x = Array(try reader.sized("unique.x"))
            let y = Array(try reader.sized("unique.y"))
            key = .ecc(curveID: curve, x: x, y: y)
        default:
            throw AttestationSteps.invalid(.tpm, "pubArea.type 0x\(String(type, radix: 16)) is neither RSA nor ECC")
        }
        try reader.requireEnd()
        self.nameAlgorithm = nameAlgorithm
    }

    /// `symmetric` then `scheme`: each an algorithm ID, followed by details unless NULL.
    private static func skipSchemes(_ reader: inout TPMReader, curve: Bool) throws(WebAuthnError) {
        let symmetric = try reader.uint16("parameters.symmetric")
        if symmetric != TPMAlgorithm.null.rawValue {
            // TPMT_SYM_DEF_OBJECT: keyBits and mode follow a non-null algorithm.
            try reader.skip(4, "parameters.symmetric details")
        }
        try skipScheme(&reader, "parameters.scheme")
    }

    private static func skipScheme(_ reader: inout TPMReader, _ field: String) throws(WebAuthnError) {
        let scheme = try reader.uint16(field)
        if scheme != TPMAlgorithm.null.rawValue {
            _ = try reader.uint16("\(field).hashAlg")
        }
    }

    /// Whether this public area describes the same key as the credential public key.
    func matches(_ credential: CredentialPublicKey) -> Bool {
        switch (key, credential.material) {
        case (.rsa(let modulus, let exponent), .rsa(let rsa)):
            guard let primitives = try? rsa.getKeyPrimitives() else { return false }
            // An exponent of 0 means the default, 65537.
            let expected = exponent == 0 ? 65537 : exponent
            let credentialExponent = primitives.publicExponent.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return Array(primitives.modulus.drop { $0 == 0 }) == Array(modulus.drop { $0 == 0 })
                && credentialExponent == UInt64(expected)
        case (.ecc(let curve, let x, let y), let material):
            let point: [UInt8]
            switch (curve, material) {
            case (0x0003, .p256(let key)): point = Array(key.x963Representation)
            case (0x0004, .p384(let key)): point = Array(key.x963Representation)
            case (0x0005, .p521(let key)): point = Array(key.x963Representation)
            default: return false
            }
            return point == [0x04] + x + y
        default:
            return false
        }
    }
}

/// `TPMS_ATTEST` of type `TPM_ST_ATTEST_CERTIFY`: what the attestation key signed.
struct TPMCertifyInfo {
    let extraData: [UInt8]
    let attestedName: [UInt8]

    static let generatedValue: UInt32 = 0xff54_4347
    static let attestCertify: UInt16 = 0x8017

    init(_ bytes: ArraySlice<UInt8>) throws(WebAuthnError) {
        var reader = TPMReader(bytes, "certInfo")
        let magic = try reader.uint32("magic")
        guard magic == Self.generatedValue else {
            throw AttestationSteps.invalid(.tpm, "certInfo.magic is 0x\(String(magic, radix: 16)), expected TPM_GENERATED_VALUE 0xff544347")
        }
        let type = try reader.uint16("type")
        guard type == Self.attestCertify else {
            throw AttestationSteps.invalid(.tpm, "certInfo.type is 0x\(String(type, radix: 16)), expected TPM_ST_ATTEST_CERTIFY 0x8017")
        }
        _ = try reader.sized("qualifiedSigner")
        extraData = Array(try reader.sized("extraData"))
        try reader.skip(17, "clockInfo")
        try reader.skip(8, "firmwareVersion")
        attestedName = Array(try reader.sized("attested.name"))
        _ = try reader.sized("attested.qualifiedName")
        try reader.requireEnd()
    }
}
