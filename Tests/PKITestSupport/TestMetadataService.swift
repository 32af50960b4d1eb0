import Crypto
public import Foundation
import WebAuthn
import X509

/// A FIDO Metadata Service of a test's own: a root, a BLOB signing certificate under it,
/// and BLOBs signed with ES256 as MDS3 §3.1.7 lays them out.
public struct TestMetadataService: Sendable {
    /// The metadata root, to configure in place of FIDO's.
    public let root: TestIssuer
    private let signerKey: P256.Signing.PrivateKey
    private let signerCertificate: [UInt8]

    /// Creates a service whose certificates are valid around `now`.
    public init(now: Date = TestPKI.now) throws {
        root = try TestPKI.root("Test Metadata Root", notBefore: now - 365 * TestPKI.day, notAfter: now + 3650 * TestPKI.day)
        signerKey = P256.Signing.PrivateKey()
        signerCertificate = try TestPKI.leaf(
            subject: TestPKI.name("mds.test.example"),
            publicKey: Certificate.PublicKey(signerKey.publicKey),
            issuer: root,
            notBefore: now - TestPKI.day,
            notAfter: now + 365 * TestPKI.day
        )
    }

    /// The root as PEM, for a `root_certificate` file.
    public var rootPEM: String { Self.pem(root.der) }

    /// A signed BLOB with these entries.
    public func blob(number: Int, nextUpdate: String, entries: [[String: Any]], legalHeader: String = "Test metadata; not for production.") throws -> [UInt8] {
        let header = try JSONSerialization.data(withJSONObject: ["alg": "ES256", "typ": "JWT", "x5c": [Data(signerCertificate).base64EncodedString()]])
        let payload = try JSONSerialization.data(withJSONObject: [
            "legalHeader": legalHeader, "no": number, "nextUpdate": nextUpdate, "entries": entries,
        ] as [String: Any])
        let signingInput = Base64URL.encode(header) + "." + Base64URL.encode(payload)
        let signature = try signerKey.signature(for: Array(signingInput.utf8)).rawRepresentation
        return Array((signingInput + "." + Base64URL.encode(signature)).utf8)
    }

    /// A BLOB entry for a FIDO2 model (`aaguid`) or a U2F one (`keyIdentifiers`).
    /// `statuses` are `(status, effectiveDate)` pairs in BLOB order.
    public static func entry(
        aaguid: String? = nil,
        keyIdentifiers: [String]? = nil,
        description: String,
        icon: String? = nil,
        roots: [[UInt8]],
        statuses: [(String, String)] = [("FIDO_CERTIFIED_L1", "2024-01-01")]
    ) -> [String: Any] {
        var statement: [String: Any] = [
            "description": description,
            "attestationRootCertificates": roots.map { Data($0).base64EncodedString() },
            "schema": 3,
        ]
        if let aaguid { statement["aaguid"] = aaguid }
        if let icon { statement["icon"] = icon }
        var entry: [String: Any] = [
            "metadataStatement": statement,
            "statusReports": statuses.map { ["status": $0.0, "effectiveDate": $0.1] },
            "timeOfLastStatusChange": statuses.last?.1 ?? "2024-01-01",
        ]
        if let aaguid { entry["aaguid"] = aaguid }
        if let keyIdentifiers { entry["attestationCertificateKeyIdentifiers"] = keyIdentifiers }
        return entry
    }

    /// DER as a PEM certificate.
    public static func pem(_ der: [UInt8]) -> String {
        let body = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN CERTIFICATE-----\n\(body)\n-----END CERTIFICATE-----\n"
    }

    /// `YYYY-MM-DD` of a date, in UTC.
    public static func day(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        return formatter.string(from: date)
    }
}
