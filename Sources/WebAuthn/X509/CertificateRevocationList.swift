public import Foundation
import SwiftASN1

/// A certificate revocation list (RFC 5280 §5), kept with its signed bytes so that the
/// pipeline can check it against the issuer it finds on a certificate path: a CRL counts
/// only when its issuer's key on that path signed it.
public struct CertificateRevocationList: Sendable {
    /// The issuer's name, as in the certificates it issued.
    public let issuer: X509Name
    /// `thisUpdate`.
    public let thisUpdate: Date
    /// `nextUpdate`, when given. A later-dated list may add revocations, never remove them
    /// (except `certificateHold`), so an old list still proves what it lists.
    public let nextUpdate: Date?
    /// The serial numbers (content bytes) of the revoked certificates.
    public let revokedSerialNumbers: Set<[UInt8]>

    private let tbsBytes: ArraySlice<UInt8>
    private let signatureAlgorithm: CertificateSignatureAlgorithm
    private let signature: ArraySlice<UInt8>

    /// Parses a DER-encoded `CertificateList`.
    public init(derEncoded bytes: some Collection<UInt8>) throws(WebAuthnError) {
        let der = Array(bytes)
        let root = try ASN1Reading.parse(der[...], "CRL")
        let top = try ASN1Reading.children(root, .sequence, "CRL")
        guard top.count == 3 else { throw ASN1Reading.malformed("a CRL has 3 parts, found \(top.count)") }
        var fields = try ASN1Reading.children(top[0], .sequence, "tbsCertList")[...]
        if let first = fields.first, first.identifier == .integer {
            let version = try ASN1Reading.smallInteger(first, "CRL version")
            guard version == 1 else { throw ASN1Reading.malformed("CRL version \(version + 1) is not 2") }
            fields.removeFirst()
        }
        guard fields.count >= 3 else { throw ASN1Reading.malformed("tbsCertList is missing its signature, issuer or thisUpdate") }
        let innerAlgorithm = try CertificateSignatureAlgorithm(node: fields.removeFirst())
        issuer = try X509Name(node: fields.removeFirst(), "CRL issuer")
        thisUpdate = try ASN1Time.date(fields.removeFirst(), "thisUpdate")
        if let next = fields.first, next.identifier == .utcTime || next.identifier == .generalizedTime {
            nextUpdate = try ASN1Time.date(fields.removeFirst(), "nextUpdate")
        } else {
            nextUpdate = nil
        }
        var serials: Set<[UInt8]> = []
        if let list = fields.first, list.identifier == .sequence {
            fields.removeFirst()
            for entry in try ASN1Reading.children(list, .sequence, "revokedCertificates") {
                let parts = try ASN1Reading.children(entry, .sequence, "revokedCertificates entry")
                guard let serial = parts.first else { throw ASN1Reading.malformed("a revokedCertificates entry has no serial number") }
                serials.insert(Array(try ASN1Reading.primitive(serial, .integer, "userCertificate")))
            }
        }
        revokedSerialNumbers = serials
        let outerAlgorithm = try CertificateSignatureAlgorithm(node: top[1])
        guard outerAlgorithm == innerAlgorithm else {
            throw ASN1Reading.malformed("CRL signatureAlgorithm \(outerAlgorithm) differs from tbsCertList.signature \(innerAlgorithm)")
        }
        signatureAlgorithm = outerAlgorithm
        tbsBytes = top[0].encodedBytes
        signature = try ASN1Reading.signatureBytes(top[2], "CRL signatureValue")
    }

    /// Reads every CRL in `text`: PEM `X509 CRL` blocks.
    public static func parsePEM(_ text: String) throws(WebAuthnError) -> [CertificateRevocationList] {
        var lists: [CertificateRevocationList] = []
        var body: String?
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed == "-----BEGIN X509 CRL-----" {
                body = ""
            } else if trimmed == "-----END X509 CRL-----", let encoded = body {
                guard let der = Base64URL.decode(encoded) else { throw ASN1Reading.malformed("a PEM CRL is not base64") }
                lists.append(try CertificateRevocationList(derEncoded: der))
                body = nil
            } else if body != nil {
                body? += trimmed
            }
        }
        guard !lists.isEmpty else { throw ASN1Reading.malformed("no PEM CRL (-----BEGIN X509 CRL-----) found") }
        return lists
    }

    /// Whether `issuer`'s key signed this list.
    func isSigned(by issuer: AttestationCertificate) -> Bool {
        guard issuer.subject.matches(self.issuer), let key = issuer.publicKey, let scheme = signatureAlgorithm.scheme else { return false }
        return key.isValidSignature(signature, over: [tbsBytes], scheme: scheme)
    }

    /// Whether this list, signed by `issuer`, revokes `certificate`.
    func revokes(_ certificate: AttestationCertificate, issuedBy issuer: AttestationCertificate) -> Bool {
        certificate.issuer.matches(self.issuer) && revokedSerialNumbers.contains(certificate.serialNumber) && isSigned(by: issuer)
    }
}
