import Crypto
public import Foundation
import SwiftASN1

/// An X.509 certificate from an attestation statement or a trust anchor.
///
/// ## Why not swift-certificates' `Certificate`
/// Real authenticators ship certificates that are not strict RFC 5280 DER, and
/// swift-certificates rejects them at parse time:
/// - TPM intermediates with a negative serial number (Infineon/NTC chains),
/// - TPM attestation certificates whose critical CertificatePolicies carry a qualifier
///   strict parsers reject,
/// - the Chromium virtual authenticator's BasicConstraints with `cA FALSE` written out
///   although it is the DEFAULT,
/// - YubiKey U2F certificates whose signature BIT STRING declares unused bits.
///
/// This type reads the node structure with swift-asn1 in strict DER (tags and lengths),
/// then reads fields leniently in exactly those places: the serial is kept as raw bytes,
/// CertificatePolicies are not parsed, an explicit DEFAULT boolean is accepted, and the
/// signature BIT STRING's unused-bits count is ignored.
/// Nothing is re-encoded: the signature of each certificate is verified over the original
/// `tbsCertificate` bytes, so leniency never changes what a signature covers.
public struct AttestationCertificate: Sendable, Hashable, CustomStringConvertible {
    /// The certificate's DER bytes as received.
    public let derBytes: [UInt8]
    /// The exact `tbsCertificate` bytes the issuer signed.
    let tbsBytes: ArraySlice<UInt8>
    /// The X.509 version (1, 2 or 3).
    public let version: Int
    /// The serial number's content bytes, as encoded (possibly negative).
    public let serialNumber: [UInt8]
    /// The issuer name.
    public let issuer: X509Name
    /// The subject name.
    public let subject: X509Name
    /// The start of the validity period.
    public let notBefore: Date
    /// The end of the validity period.
    public let notAfter: Date
    /// The subject public key, when its type is supported.
    public let publicKey: PublicKeyMaterial?
    /// The `subjectPublicKey` BIT STRING's bytes, for the key identifier.
    let subjectPublicKeyBytes: ArraySlice<UInt8>
    /// The SubjectPublicKeyInfo algorithm OID, for messages about unsupported keys.
    public let publicKeyAlgorithmOID: String
    /// The extensions in order.
    public let extensions: [CertificateExtension]
    /// The signature algorithm the issuer used.
    let signatureAlgorithm: CertificateSignatureAlgorithm
    /// The issuer's signature over ``tbsBytes``.
    let signature: ArraySlice<UInt8>

    /// Parses a DER certificate.
    /// - Throws: ``WebAuthnError/Code/attestationInvalid`` naming the field that is malformed.
    public init(derEncoded bytes: some Collection<UInt8>) throws(WebAuthnError) {
        let der = Array(bytes)
        let root = try ASN1Reading.parse(der[...], "certificate")
        let top = try ASN1Reading.children(root, .sequence, "certificate")
        guard top.count == 3 else {
            throw ASN1Reading.malformed("certificate must have 3 parts, found \(top.count)")
        }
        let tbs = try ASN1Reading.children(top[0], .sequence, "tbsCertificate")
        var fields = tbs[...]

        var version = 1
        if let first = fields.first, first.identifier == .context(0) {
            version = try ASN1Reading.smallInteger(try ASN1Reading.explicitChild(first, "version"), "version") + 1
            fields = fields.dropFirst()
        }
        guard fields.count >= 6 else {
            throw ASN1Reading.malformed("tbsCertificate has \(fields.count) fields after the version, at least 6 are required")
        }
        let serial = try ASN1Reading.primitive(fields.removeFirst(), .integer, "serialNumber")
        let innerAlgorithm = try CertificateSignatureAlgorithm(node: fields.removeFirst())
        let issuer = try X509Name(node: fields.removeFirst(), "issuer")
        let validity = try ASN1Reading.children(fields.removeFirst(), .sequence, "validity")
        guard validity.count == 2 else { throw ASN1Reading.malformed("validity must hold notBefore and notAfter") }
        let subject = try X509Name(node: fields.removeFirst(), "subject")
        let spki = fields.removeFirst()

        var extensions: [CertificateExtension] = []
        for field in fields where field.identifier == .context(3) {
            let list = try ASN1Reading.children(try ASN1Reading.explicitChild(field, "extensions"), .sequence, "extensions")
            extensions = try list.map { node throws(WebAuthnError) in try CertificateExtension(node: node) }
        }
        let outerAlgorithm = try CertificateSignatureAlgorithm(node: top[1])
        // RFC 5280 §4.1.1.2: the signed and the unsigned algorithm fields must agree.
        guard outerAlgorithm == innerAlgorithm else {
            throw ASN1Reading.malformed("signatureAlgorithm \(outerAlgorithm) differs from tbsCertificate.signature \(innerAlgorithm)")
        }

        self.derBytes = der
        self.tbsBytes = top[0].encodedBytes
        self.version = version
        self.serialNumber = Array(serial)
        self.issuer = issuer
        self.subject = subject
        self.notBefore = try ASN1Time.date(validity[0], "notBefore")
        self.notAfter = try ASN1Time.date(validity[1], "notAfter")
        (self.publicKey, self.publicKeyAlgorithmOID) = try SubjectPublicKeyInfo.parse(spki)
        let spkiParts = try ASN1Reading.children(spki, .sequence, "subjectPublicKeyInfo")
        self.subjectPublicKeyBytes = try ASN1Reading.bitStringBytes(spkiParts[1], "subjectPublicKey")
        self.extensions = extensions
        self.signatureAlgorithm = outerAlgorithm
        self.signature = try ASN1Reading.signatureBytes(top[2], "signatureValue")
    }

    /// Parses every certificate in a PEM text (`-----BEGIN CERTIFICATE-----` blocks).
    public static func parsePEM(_ pem: String) throws(WebAuthnError) -> [AttestationCertificate] {
        var certificates: [AttestationCertificate] = []
        var body: String?
        for line in pem.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed == "-----BEGIN CERTIFICATE-----" {
                body = ""
            } else if trimmed == "-----END CERTIFICATE-----", let text = body {
                guard let der = Base64URL.decode(text) else {
                    throw ASN1Reading.malformed("PEM certificate body is not base64")
                }
                certificates.append(try AttestationCertificate(derEncoded: der))
                body = nil
            } else if body != nil {
                body? += trimmed
            }
        }
        guard !certificates.isEmpty else { throw ASN1Reading.malformed("no PEM certificate found") }
        return certificates
    }

    /// The extension with the given OID, if present.
    public func `extension`(_ oid: String) -> CertificateExtension? {
        extensions.first { $0.oid == oid }
    }

    /// Whether `date` lies within the validity period (both ends inclusive).
    public func isValid(at date: Date) -> Bool {
        notBefore <= date && date <= notAfter
    }

    /// Whether `issuer` signed this certificate: the names chain and the signature over the
    /// original `tbsCertificate` bytes verifies with the issuer's key.
    func isSigned(by issuer: AttestationCertificate) -> Bool {
        guard let key = issuer.publicKey, let scheme = signatureAlgorithm.scheme else { return false }
        return key.isValidSignature(signature, over: [tbsBytes], scheme: scheme)
    }

    public var description: String { "\"\(subject)\"" }

    /// The key identifier FIDO metadata names attestation certificates by
    /// (`attestationCertificateKeyIdentifiers`): lower-case hex SHA-1 of the
    /// `subjectPublicKey` bits, RFC 5280 §4.2.1.2 method 1.
    public var keyIdentifier: String {
        Bytes.hex(Array(Insecure.SHA1.hash(data: subjectPublicKeyBytes)))
    }

    public static func == (lhs: AttestationCertificate, rhs: AttestationCertificate) -> Bool { lhs.derBytes == rhs.derBytes }
    public func hash(into hasher: inout Hasher) { hasher.combine(derBytes) }
}

/// One certificate extension with its value bytes left encoded until a verifier asks.
public struct CertificateExtension: Sendable, Hashable {
    /// The extension OID in dotted form.
    public let oid: String
    /// Whether the extension is marked critical.
    public let isCritical: Bool
    /// The contents of `extnValue`.
    public let value: ArraySlice<UInt8>

    init(node: ASN1Node) throws(WebAuthnError) {
        let parts = try ASN1Reading.children(node, .sequence, "extension")
        guard parts.count == 2 || parts.count == 3 else {
            throw ASN1Reading.malformed("extension must have 2 or 3 parts, found \(parts.count)")
        }
        oid = try ASN1Reading.objectIdentifier(parts[0], "extension id")
        // An explicit `critical FALSE` is not DER but real certificates contain it.
        isCritical = parts.count == 3 ? try ASN1Reading.boolean(parts[1], "extension \(oid) critical flag") : false
        value = try ASN1Reading.octetString(parts[parts.count - 1], "extension \(oid) value")
    }
}
