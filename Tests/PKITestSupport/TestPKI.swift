public import Crypto
public import Foundation
public import SwiftASN1
public import WebAuthn
public import X509

/// A certificate authority generated for a test, with its key.
public struct TestIssuer: Sendable {
    public let name: DistinguishedName
    public let key: Certificate.PrivateKey
    public let certificate: Certificate
    /// The same key, for signing what is not a certificate (revocation lists).
    public let signingKey: P256.Signing.PrivateKey

    public var der: [UInt8] { (try? TestPKI.der(certificate)) ?? [] }
    /// The certificate as the engine parses it, for use as a trust anchor.
    public var anchor: AttestationCertificate { try! AttestationCertificate(derEncoded: der) }
}

/// Generates throwaway PKIs with swift-certificates so that attestation tests describe
/// their certificates instead of embedding opaque blobs.
public enum TestPKI {
    /// The instant every test judges certificates at.
    public static let now = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z
    public static let day: TimeInterval = 86_400

    public static func name(_ commonName: String, organization: String = "Latchkey Test", unit: String? = nil, country: String = "US") -> DistinguishedName {
        try! DistinguishedName {
            CountryName(country)
            OrganizationName(organization)
            if let unit { OrganizationalUnitName(unit) }
            CommonName(commonName)
        }
    }

    public static func root(
        _ commonName: String,
        key: P256.Signing.PrivateKey = P256.Signing.PrivateKey(),
        notBefore: Date = now - 365 * day,
        notAfter: Date = now + 3650 * day
    ) throws -> TestIssuer {
        try authority(commonName, key: key, issuer: nil, constraints: .isCertificateAuthority(maxPathLength: nil), notBefore: notBefore, notAfter: notAfter)
    }

    public static func intermediate(
        _ commonName: String,
        issuer: TestIssuer,
        isCertificateAuthority: Bool = true,
        pathLength: Int? = nil,
        notBefore: Date = now - 30 * day,
        notAfter: Date = now + 365 * day
    ) throws -> TestIssuer {
        try authority(
            commonName,
            key: P256.Signing.PrivateKey(),
            issuer: issuer,
            constraints: isCertificateAuthority ? .isCertificateAuthority(maxPathLength: pathLength) : .notCertificateAuthority,
            notBefore: notBefore,
            notAfter: notAfter
        )
    }

    /// A CA certificate; self-signed when `issuer` is nil.
    private static func authority(
        _ commonName: String,
        key: P256.Signing.PrivateKey,
        issuer: TestIssuer?,
        constraints: BasicConstraints,
        notBefore: Date,
        notAfter: Date
    ) throws -> TestIssuer {
        let name = name(commonName)
        let privateKey = Certificate.PrivateKey(key)
        let certificate = try Certificate(
            version: .v3,
            serialNumber: .init(),
            publicKey: privateKey.publicKey,
            notValidBefore: notBefore,
            notValidAfter: notAfter,
            issuer: issuer?.name ?? name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(constraints)
                KeyUsage(keyCertSign: true, cRLSign: true)
            },
            issuerPrivateKey: issuer?.key ?? privateKey
        )
        return TestIssuer(name: name, key: privateKey, certificate: certificate, signingKey: key)
    }

    /// A leaf certificate for `publicKey`, issued by `issuer`, with the given extensions.
    public static func leaf(
        subject: DistinguishedName,
        publicKey: Certificate.PublicKey,
        issuer: TestIssuer,
        notBefore: Date = now - day,
        notAfter: Date = now + 365 * day,
        @ExtensionsBuilder extensions: () throws -> Result<Certificate.Extensions, any Error> = { .success(Certificate.Extensions()) }
    ) throws -> [UInt8] {
        let certificate = try Certificate(
            version: .v3,
            serialNumber: .init(),
            publicKey: publicKey,
            notValidBefore: notBefore,
            notValidAfter: notAfter,
            issuer: issuer.name,
            subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try extensions().get(),
            issuerPrivateKey: issuer.key
        )
        return try der(certificate)
    }

    /// A `packed` batch attestation certificate for `key` (WebAuthn L3 §8.2.1: the
    /// "Authenticator Attestation" unit, not a CA), issued by `issuer`.
    public static func packedAttestationCertificate(
        for key: P256.Signing.PrivateKey,
        issuer: TestIssuer,
        notBefore: Date = now - day,
        notAfter: Date = now + 365 * day
    ) throws -> [UInt8] {
        try leaf(
            subject: name("Test Authenticator", unit: "Authenticator Attestation"),
            publicKey: Certificate.PublicKey(key.publicKey),
            issuer: issuer,
            notBefore: notBefore,
            notAfter: notAfter
        ) {
            Critical(BasicConstraints.notCertificateAuthority)
        }
    }

    /// A CRL (RFC 5280 §5) from `issuer` listing `serialNumbers` (INTEGER content bytes),
    /// signed with ECDSA SHA-256; `signedBy` signs instead, to make a forged list.
    public static func revocationList(
        issuer: TestIssuer,
        revoking serialNumbers: [[UInt8]],
        thisUpdate: Date = now - day,
        signedBy signer: P256.Signing.PrivateKey? = nil
    ) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(issuer.name)
        let ecdsaWithSHA256 = DERWriter.sequence(DERWriter.tlv([0x06], [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02]))
        let entries = serialNumbers.map { DERWriter.sequence(DERWriter.tlv([0x02], $0), utcTime(thisUpdate)) }
        let tbs = DERWriter.sequence(
            DERWriter.tlv([0x02], [0x01]),
            ecdsaWithSHA256,
            serializer.serializedBytes,
            utcTime(thisUpdate),
            utcTime(thisUpdate + 30 * day),
            DERWriter.tlv([0x30], entries.flatMap { $0 })
        )
        let signature = try (signer ?? issuer.signingKey).signature(for: tbs).derRepresentation
        return DERWriter.sequence(tbs, ecdsaWithSHA256, DERWriter.tlv([0x03], [0x00] + Array(signature)))
    }

    /// UTCTime (YYMMDDHHMMSSZ) of `date`.
    static func utcTime(_ date: Date) -> [UInt8] {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyMMddHHmmss'Z'"
        return DERWriter.tlv([0x17], Array(formatter.string(from: date).utf8))
    }

    public static func der(_ certificate: Certificate) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }

    /// A custom extension whose value is the given DER.
    public static func custom(_ oid: ASN1ObjectIdentifier, critical: Bool = false, value: [UInt8]) -> Certificate.Extension {
        Certificate.Extension(oid: oid, critical: critical, value: value[...])
    }
}

/// A tiny DER writer for the structures tests assemble by hand (Android key descriptions,
/// Apple nonces), where writing the tags out is clearer than a builder.
public enum DERWriter {
    public static func tlv(_ tag: [UInt8], _ content: [UInt8]) -> [UInt8] {
        var length: [UInt8]
        if content.count < 128 {
            length = [UInt8(content.count)]
        } else {
            var value = content.count
            var bytes: [UInt8] = []
            while value > 0 {
                bytes.insert(UInt8(value & 0xff), at: 0)
                value >>= 8
            }
            length = [0x80 | UInt8(bytes.count)] + bytes
        }
        return tag + length + content
    }

    public static func sequence(_ parts: [UInt8]...) -> [UInt8] { tlv([0x30], parts.flatMap { $0 }) }
    public static func set(_ parts: [UInt8]...) -> [UInt8] { tlv([0x31], parts.flatMap { $0 }) }
    public static func octetString(_ bytes: [UInt8]) -> [UInt8] { tlv([0x04], bytes) }
    public static func integer(_ value: UInt8) -> [UInt8] { tlv([0x02], [value]) }
    public static func enumerated(_ value: UInt8) -> [UInt8] { tlv([0x0a], [value]) }
    public static let null: [UInt8] = [0x05, 0x00]
}
