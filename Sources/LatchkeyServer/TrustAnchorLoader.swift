import Foundation
import WebAuthn

/// Reads the configured attestation trust anchors (PEM files, per format).
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
}
