import Authenticator
import CBOR
import Crypto
import Foundation
import SwiftASN1
import PKITestSupport
import WebAuthn
import X509

/// Attestation statements for the certificate-based formats, signed by generated keys.
enum AttestationBuilders {
    /// The subject §8.2.1 requires of a packed attestation certificate.
    static let packedSubject = TestPKI.name("Test Authenticator", organization: "Latchkey Test", unit: "Authenticator Attestation")

    static func aaguidExtension(_ aaguid: AAGUID, critical: Bool = false) -> Certificate.Extension {
        TestPKI.custom([1, 3, 6, 1, 4, 1, 45724, 1, 1, 4], critical: critical, value: DERWriter.octetString(aaguid.bytes))
    }

    /// `packed` with x5c: `chain` is leaf first; `key` signs.
    static func packed(chain: [[UInt8]], key: P256.Signing.PrivateKey, alg: Int64 = -7) -> RegistrationFixture.Attest {
        { authData, clientDataHash, _ in
            let signature = try key.signature(for: authData + clientDataHash).derRepresentation
            return ("packed", ["alg": .int(alg), "sig": .bytes(Array(signature)), "x5c": .array(chain.map { .bytes($0) })])
        }
    }

    /// `fido-u2f`: the batch key signs the U2F registration message.
    static func fidoU2F(certificate: [UInt8], key: P256.Signing.PrivateKey) -> RegistrationFixture.Attest {
        { authData, clientDataHash, fixture in
            let message = [0x00] + Array(authData.prefix(32)) + clientDataHash + fixture.credentialID + Array(Self.x963(fixture.key))
            let signature = try key.signature(for: message).derRepresentation
            return ("fido-u2f", ["sig": .bytes(Array(signature)), "x5c": [.bytes(certificate)]])
        }
    }

    /// `apple`: the credential certificate carries the nonce.
    static func apple(issuer: TestIssuer, nonceOverride: [UInt8]? = nil, certifiedKey: P256.Signing.PublicKey? = nil) -> RegistrationFixture.Attest {
        { authData, clientDataHash, fixture in
            let nonce = nonceOverride ?? Array(SHA256.hash(data: authData + clientDataHash))
            let value = DERWriter.sequence(DERWriter.tlv([0xa1], DERWriter.octetString(nonce)))
            guard case .es256(let credentialKey) = fixture.key else { throw TestFailure("apple needs an ES256 credential") }
            let leaf = try TestPKI.leaf(
                subject: TestPKI.name("credential", organization: "Apple Inc."),
                publicKey: Certificate.PublicKey(certifiedKey ?? credentialKey.publicKey),
                issuer: issuer
            ) {
                TestPKI.custom([1, 2, 840, 113635, 100, 8, 2], value: value)
            }
            return ("apple", ["x5c": [.bytes(leaf), .bytes(issuer.der)]])
        }
    }

    /// `android-key`: the credential key's certificate carries a key description. Any
    /// credential algorithm an X.509 certificate can carry (EC, RSA, Ed25519).
    static func androidKey(
        issuer: TestIssuer,
        challengeOverride: [UInt8]? = nil,
        softwareEnforced: [UInt8] = [],
        teeEnforced: [UInt8] = Self.teeGeneratedForSigning
    ) -> RegistrationFixture.Attest {
        { authData, clientDataHash, fixture in
            let description = DERWriter.sequence(
                DERWriter.integer(3), DERWriter.enumerated(1), DERWriter.integer(4), DERWriter.enumerated(1),
                DERWriter.octetString(challengeOverride ?? clientDataHash), DERWriter.octetString([]),
                DERWriter.sequence(softwareEnforced), DERWriter.sequence(teeEnforced)
            )
            let leaf = try TestPKI.leaf(
                subject: TestPKI.name("Android Keystore Key"),
                publicKey: try certificateKey(fixture.key),
                issuer: issuer
            ) {
                TestPKI.custom([1, 3, 6, 1, 4, 1, 11129, 2, 1, 17], value: description)
            }
            let signature = try fixture.key.signature(for: authData + clientDataHash)
            return ("android-key", ["alg": .int(fixture.key.algorithm.rawValue), "sig": .bytes(signature), "x5c": [.bytes(leaf), .bytes(issuer.der)]])
        }
    }

    /// The credential key as a certificate's subject public key.
    static func certificateKey(_ key: CredentialPrivateKey) throws -> Certificate.PublicKey {
        switch key {
        case .es256(let key): return Certificate.PublicKey(key.publicKey)
        case .es384(let key): return Certificate.PublicKey(key.publicKey)
        case .es512(let key): return Certificate.PublicKey(key.publicKey)
        case .rsa(let key, _): return Certificate.PublicKey(key.publicKey)
        case .ed25519(let key, _): return Certificate.PublicKey(key.publicKey)
        case .mldsa65, .mldsa87: throw TestFailure("X.509 certificates here cannot carry \(key.algorithm) keys")
        }
    }

    /// The credential algorithms an `android-key` certificate can certify.
    static let androidKeyAlgorithms: [COSEAlgorithmIdentifier] = [.es256, .es384, .es512, .rs256, .rs384, .rs512, .ps256, .ps384, .ps512, .edDSA, .ed25519]

    /// `[1] EXPLICIT SET { KM_PURPOSE_SIGN }` and `[702] EXPLICIT KM_ORIGIN_GENERATED`.
    static let teeGeneratedForSigning = purpose(2) + origin(0)
    static func purpose(_ values: UInt8...) -> [UInt8] { DERWriter.tlv([0xa1], DERWriter.set(values.flatMap { DERWriter.integer($0) })) }
    static func origin(_ value: UInt8) -> [UInt8] { DERWriter.tlv([0xbf, 0x85, 0x3e], DERWriter.integer(value)) }
    static let allApplications = DERWriter.tlv([0xbf, 0x84, 0x58], DERWriter.null)

    /// The parts of a TPM attestation a test may change.
    struct TPMOptions {
        var extraDataOverride: [UInt8]?
        var subject = DistinguishedName()
        var includeEKU = true
        var includeBasicConstraints = true
        var pubAreaKeyOverride: P256.Signing.PublicKey?
    }

    /// `tpm` with an ECC credential: pubArea, certInfo and an AIK certificate.
    static func tpm(issuer: TestIssuer, options: TPMOptions = TPMOptions()) -> RegistrationFixture.Attest {
        { authData, clientDataHash, fixture in
            guard case .es256(let credentialKey) = fixture.key else { throw TestFailure("tpm test needs an ES256 credential") }
            let point = Array((options.pubAreaKeyOverride ?? credentialKey.publicKey).x963Representation.dropFirst())
            var pubArea: [UInt8] = [0x00, 0x23, 0x00, 0x0b, 0x00, 0x06, 0x04, 0x72, 0x00, 0x00, 0x00, 0x10, 0x00, 0x10, 0x00, 0x03, 0x00, 0x10]
            pubArea += [0x00, 0x20] + point.prefix(32) + [0x00, 0x20] + point.suffix(32)
            let extraData = options.extraDataOverride ?? Array(SHA256.hash(data: authData + clientDataHash))
            var certInfo: [UInt8] = [0xff, 0x54, 0x43, 0x47, 0x80, 0x17, 0x00, 0x00]
            certInfo += [0x00, UInt8(extraData.count)] + extraData
            certInfo += [UInt8](repeating: 0, count: 17 + 8)
            let name: [UInt8] = [0x00, 0x0b] + Array(SHA256.hash(data: pubArea))
            certInfo += [0x00, UInt8(name.count)] + name + [0x00, 0x00]

            let aikKey = P256.Signing.PrivateKey()
            let tpmName = DistinguishedName([
                RelativeDistinguishedName([
                    .init(type: [2, 23, 133, 2, 3], utf8String: "id:00020000"),
                    .init(type: [2, 23, 133, 2, 2], utf8String: "NPCT6xx"),
                    .init(type: [2, 23, 133, 2, 1], utf8String: "id:FFFFF1D0"),
                ])
            ])
            let aik = try TestPKI.leaf(subject: options.subject, publicKey: Certificate.PublicKey(aikKey.publicKey), issuer: issuer) {
                if options.includeBasicConstraints {
                    Critical(BasicConstraints.notCertificateAuthority)
                }
                if options.includeEKU {
                    try ExtendedKeyUsage([ExtendedKeyUsage.Usage(oid: [2, 23, 133, 8, 3])])
                }
                Critical(SubjectAlternativeNames([.directoryName(tpmName)]))
            }
            let signature = try aikKey.signature(for: certInfo).derRepresentation
            return ("tpm", [
                "ver": "2.0", "alg": -7, "sig": .bytes(Array(signature)), "x5c": [.bytes(aik), .bytes(issuer.der)],
                "certInfo": .bytes(certInfo), "pubArea": .bytes(pubArea),
            ])
        }
    }

    /// The parts of a SafetyNet response a test may change.
    struct SafetyNetOptions {
        var hostname = "attest.android.com"
        var nonceOverride: String?
        var ctsProfileMatch = true
        var basicIntegrity: Bool? = true
        var timestamp = TestPKI.now
    }

    /// `android-safetynet`: an ES256 JWS signed by an attest.android.com certificate.
    static func safetyNet(issuer: TestIssuer, options: SafetyNetOptions = SafetyNetOptions()) -> RegistrationFixture.Attest {
        { authData, clientDataHash, _ in
            let signingKey = P256.Signing.PrivateKey()
            let leaf = try TestPKI.leaf(
                subject: TestPKI.name(options.hostname, organization: "Google LLC"),
                publicKey: Certificate.PublicKey(signingKey.publicKey),
                issuer: issuer
            )
            let header = try JSONSerialization.data(withJSONObject: ["alg": "ES256", "x5c": [Data(leaf).base64EncodedString(), Data(issuer.der).base64EncodedString()]])
            let nonce = options.nonceOverride ?? Data(SHA256.hash(data: authData + clientDataHash)).base64EncodedString()
            var members: [String: Any] = [
                "nonce": nonce, "timestampMs": Int64(options.timestamp.timeIntervalSince1970 * 1000),
                "apkPackageName": "com.google.android.gms", "ctsProfileMatch": options.ctsProfileMatch,
            ]
            members["basicIntegrity"] = options.basicIntegrity
            let payload = try JSONSerialization.data(withJSONObject: members)
            let signingInput = Base64URL.encode(header) + "." + Base64URL.encode(payload)
            let signature = try signingKey.signature(for: Array(signingInput.utf8)).rawRepresentation
            let jws = signingInput + "." + Base64URL.encode(signature)
            return ("android-safetynet", ["ver": "12345", "response": .bytes(Array(jws.utf8))])
        }
    }

    /// `compound`: the members' statements in order.
    static func compound(_ members: [RegistrationFixture.Attest]) -> RegistrationFixture.Attest {
        { authData, clientDataHash, fixture in
            let statements = try members.map { member -> CBORItem in
                let (format, statement) = try member(authData, clientDataHash, fixture)
                return ["fmt": .text(format), "attStmt": statement]
            }
            return ("compound", .array(statements))
        }
    }

    static func x963(_ key: CredentialPrivateKey) -> Data {
        if case .es256(let key) = key { return key.publicKey.x963Representation }
        return Data()
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
