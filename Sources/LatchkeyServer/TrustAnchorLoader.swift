import Foundation
import WebAuthn

/// Reads the configured attestation trust anchors (PEM files, per format) and revocation lists.
enum TrustAnchorLoader {
    static func load(_ files: [AttestationFormat: [String]]) throws(ConfigurationError) -> [AttestationFormat: [AttestationCertificate]] {
        var anchors: [AttestationFormat: [AttestationCertificate]] = [:]
        for (format, paths) in files {
            for (index, path) in paths.enumerated() {
                let key = "passkeys.attestation.trust_anchors.\(format.rawValue)[\(index)]"
                let text: String
                do {
                    text = try String(contentsOfFile: path, encoding: .utf8)
                } catch {
                    throw ConfigurationError(key: key, "cannot read \(path): \(error.localizedDescription)")
                }
                do {
                    anchors[format, default: []] += try AttestationCertificate.parsePEM(text)
                } catch {
                    throw ConfigurationError(key: key, "\(path) holds no usable PEM certificate: \(error.reason)")
                }
            }
        }
        return anchors
    }

    /// Reads the configured revocation lists: PEM (`X509 CRL`) or DER files.
    static func loadRevocationLists(_ paths: [String]) throws(ConfigurationError) -> [CertificateRevocationList] {
        var lists: [CertificateRevocationList] = []
        for (index, path) in paths.enumerated() {
            let key = "passkeys.attestation.crl_files[\(index)]"
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ConfigurationError(key: key, "cannot read \(path)")
            }
            do {
                if let text = String(data: data, encoding: .utf8), text.contains("-----BEGIN X509 CRL-----") {
                    lists += try CertificateRevocationList.parsePEM(text)
                } else {
                    lists.append(try CertificateRevocationList(derEncoded: Array(data)))
                }
            } catch {
                throw ConfigurationError(key: key, "\(path) is not a CRL (PEM or DER): \(error.reason)")
            }
        }
        return lists
    }
}
