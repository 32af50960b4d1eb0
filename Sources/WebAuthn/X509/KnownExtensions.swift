import SwiftASN1

/// The extensions the chain verifier understands. A critical extension outside this set
/// makes a chain fail (RFC 5280 §4.2).
enum KnownExtension {
    static let basicConstraints = "2.5.29.19"
    static let keyUsage = "2.5.29.15"
    static let extendedKeyUsage = "2.5.29.37"
    static let subjectAlternativeName = "2.5.29.17"
    static let certificatePolicies = "2.5.29.32"
    static let subjectKeyIdentifier = "2.5.29.14"
    static let authorityKeyIdentifier = "2.5.29.35"
    /// FIDO `id-fido-gen-ce-aaguid`: the authenticator model, which must match authData.
    static let fidoAAGUID = "1.3.6.1.4.1.45724.1.1.4"

    /// Extensions whose presence as critical is acceptable. Certificate policies are
    /// accepted without policy processing (the initial policy set is any-policy and no
    /// explicit policy is required), which is what TPM vendors' critical policies need.
    static let understood: Set<String> = [
        basicConstraints, keyUsage, extendedKeyUsage, subjectAlternativeName, certificatePolicies,
        subjectKeyIdentifier, authorityKeyIdentifier,
    ]
}

/// BasicConstraints (RFC 5280 §4.2.1.9).
struct BasicConstraints: Sendable {
    /// Whether the subject is a CA.
    let isCertificateAuthority: Bool
    /// The maximum number of intermediates that may follow, when limited.
    let pathLengthConstraint: Int?

    /// Reads the extension; an explicit `cA FALSE` (the DEFAULT) is accepted, as the
    /// Chromium virtual authenticator writes it.
    init(_ value: ArraySlice<UInt8>) throws(WebAuthnError) {
        let node = try ASN1Reading.parse(value, "basicConstraints")
        var fields = try ASN1Reading.children(node, .sequence, "basicConstraints")[...]
        var isCA = false
        if let first = fields.first, first.identifier == .boolean {
            isCA = try ASN1Reading.boolean(first, "basicConstraints cA")
            fields = fields.dropFirst()
        }
        var pathLength: Int?
        if let next = fields.first {
            pathLength = try ASN1Reading.smallInteger(next, "basicConstraints pathLenConstraint")
            fields = fields.dropFirst()
        }
        guard fields.isEmpty else { throw ASN1Reading.malformed("basicConstraints has unexpected trailing fields") }
        self.isCertificateAuthority = isCA
        self.pathLengthConstraint = pathLength
    }

    /// The constraints of a certificate: absent means "not a CA".
    static func of(_ certificate: AttestationCertificate) throws(WebAuthnError) -> BasicConstraints? {
        guard let ext = certificate.extension(KnownExtension.basicConstraints) else { return nil }
        return try BasicConstraints(ext.value)
    }
}

/// KeyUsage (RFC 5280 §4.2.1.3), read as its bit string.
struct KeyUsage: Sendable {
    private let bits: ArraySlice<UInt8>

    init(_ value: ArraySlice<UInt8>) throws(WebAuthnError) {
        let node = try ASN1Reading.parse(value, "keyUsage")
        let bytes = try ASN1Reading.primitive(node, .bitString, "keyUsage")
        // The first content byte counts unused bits; the named bits follow.
        bits = bytes.dropFirst()
    }

    /// Whether bit `index` (0 = digitalSignature, 5 = keyCertSign) is set.
    func contains(bit index: Int) -> Bool {
        let byteIndex = index / 8
        guard byteIndex < bits.count else { return false }
        let byte = bits[bits.startIndex + byteIndex]
        return byte & (0x80 >> UInt8(index % 8)) != 0
    }

    static let keyCertSign = 5
}

/// ExtendedKeyUsage (RFC 5280 §4.2.1.12).
enum ExtendedKeyUsage {
    /// The purpose OIDs in the extension.
    static func purposes(_ value: ArraySlice<UInt8>) throws(WebAuthnError) -> [String] {
        let node = try ASN1Reading.parse(value, "extendedKeyUsage")
        return try ASN1Reading.children(node, .sequence, "extendedKeyUsage").map { node throws(WebAuthnError) in
            try ASN1Reading.objectIdentifier(node, "extendedKeyUsage purpose")
        }
    }
}

/// SubjectAlternativeName (RFC 5280 §4.2.1.6), reduced to the forms attestation uses.
enum SubjectAlternativeName {
    /// The `directoryName` entries (TPM attestation certificates carry the TPM vendor there).
    static func directoryNames(_ value: ArraySlice<UInt8>) throws(WebAuthnError) -> [X509Name] {
        let node = try ASN1Reading.parse(value, "subjectAltName")
        var names: [X509Name] = []
        for general in try ASN1Reading.children(node, .sequence, "subjectAltName") where general.identifier == .context(4) {
            names.append(try X509Name(node: try ASN1Reading.explicitChild(general, "directoryName"), "subjectAltName directoryName"))
        }
        return names
    }

    /// The `dNSName` entries.
    static func dnsNames(_ value: ArraySlice<UInt8>) throws(WebAuthnError) -> [String] {
        let node = try ASN1Reading.parse(value, "subjectAltName")
        return try ASN1Reading.children(node, .sequence, "subjectAltName").compactMap { general in
            guard general.identifier == .context(2), case .primitive(let bytes) = general.content else { return nil }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}
