import Foundation

/// Builds and checks a path from an attestation certificate to an injected trust anchor.
///
/// - Anchors come only from the caller. A self-signed root inside `x5c` is treated as
///   an ordinary intermediate, so it can never end a path by itself.
/// - Every candidate issuer with a matching subject is tried, anchors first, because
///   roots can share a subject (the four Google hardware attestation roots do).
/// - Each certificate on the path must be within its validity period at the injected
///   time, every issuer must be a CA allowed to sign certificates and within its path
///   length, and every critical extension must be one the verifier understands.
/// - Signatures are verified over each certificate's original `tbsCertificate` bytes.
struct CertificateChainVerifier {
    let anchors: [AttestationCertificate]
    let time: Date
    let keyPolicy: KeyPolicy
    /// Critical extensions of the leaf that the calling format verifier has handled.
    let leafHandledExtensions: Set<String>

    /// The longest path tried, counted in certificates below the anchor.
    private let maximumPathLength = 8

    /// The outcome of path building.
    enum Outcome {
        /// A path from the leaf to `anchor` exists; `path` starts at the leaf and excludes the anchor.
        case trusted(path: [AttestationCertificate], anchor: AttestationCertificate)
        /// No path exists; the reasons say what each attempt ran into.
        case untrusted([String])
    }

    func verify(leaf: AttestationCertificate, intermediates: [AttestationCertificate]) -> Outcome {
        var reasons: [String] = []
        if let problem = problemWithCertificate(leaf, handled: leafHandledExtensions) {
            return .untrusted([problem])
        }
        if let (path, anchor) = extend([leaf], intermediates: intermediates, reasons: &reasons) {
            return .trusted(path: path, anchor: anchor)
        }
        if reasons.isEmpty {
            reasons.append("no trust anchor or intermediate names \"\(leaf.issuer)\" as its subject")
        }
        return .untrusted(reasons)
    }

    /// Depth-first search from the last certificate of `path` towards an anchor.
    private func extend(
        _ path: [AttestationCertificate],
        intermediates: [AttestationCertificate],
        reasons: inout [String]
    ) -> ([AttestationCertificate], AttestationCertificate)? {
        guard let current = path.last else { return nil }

        for anchor in anchors where anchor.subject.matches(current.issuer) {
            guard current.isSigned(by: anchor) else {
                reasons.append("\(current) is not signed by anchor \(anchor) (\(current.signatureAlgorithm))")
                continue
            }
            if let problem = problemWithIssuer(anchor, intermediatesBelow: path.count - 1) {
                reasons.append(problem)
                continue
            }
            return (path, anchor)
        }

        guard path.count <= maximumPathLength else {
            reasons.append("path from \(path[0]) is longer than \(maximumPathLength) certificates")
            return nil
        }
        for candidate in intermediates where candidate.subject.matches(current.issuer) && !path.contains(candidate) {
            guard current.isSigned(by: candidate) else {
                reasons.append("\(current) is not signed by \(candidate) (\(current.signatureAlgorithm))")
                continue
            }
            if let problem = problemWithIssuer(candidate, intermediatesBelow: path.count - 1)
                ?? problemWithCertificate(candidate, handled: [])
            {
                reasons.append(problem)
                continue
            }
            if let found = extend(path + [candidate], intermediates: intermediates, reasons: &reasons) {
                return found
            }
        }
        return nil
    }

    /// Checks that apply to every certificate on the path, anchors excepted.
    private func problemWithCertificate(_ certificate: AttestationCertificate, handled: Set<String>) -> String? {
        if let problem = problemWithValidity(certificate) { return problem }
        for ext in certificate.extensions where ext.isCritical {
            if !KnownExtension.understood.contains(ext.oid) && !handled.contains(ext.oid) {
                return "\(certificate) has an unhandled critical extension \(ext.oid)"
            }
        }
        if let bits = certificate.publicKey?.rsaModulusBits, bits < keyPolicy.minimumRSAModulusBits {
            return "\(certificate) has an RSA-\(bits) key; at least \(keyPolicy.minimumRSAModulusBits) bits are required"
        }
        return nil
    }

    /// Checks that an issuer (intermediate or anchor) may sign the path below it, which
    /// holds `intermediatesBelow` CA certificates above the leaf.
    private func problemWithIssuer(_ issuer: AttestationCertificate, intermediatesBelow: Int) -> String? {
        if let problem = problemWithValidity(issuer) { return problem }
        let constraints: BasicConstraints?
        do {
            constraints = try BasicConstraints.of(issuer)
        } catch {
            return "\(issuer) has malformed basicConstraints: \(error.reason)"
        }
        // Version 1 roots predate extensions and are accepted as CAs only as anchors.
        let isAnchor = anchors.contains(issuer)
        if let constraints {
            guard constraints.isCertificateAuthority else { return "\(issuer) is not a CA (basicConstraints cA is false)" }
            if let limit = constraints.pathLengthConstraint, intermediatesBelow > limit {
                return "\(issuer) allows \(limit) intermediate(s) below it, the path has \(intermediatesBelow)"
            }
        } else if !(isAnchor && issuer.version < 3) {
            return "\(issuer) has no basicConstraints, so it is not a CA"
        }
        if let ext = issuer.extension(KnownExtension.keyUsage) {
            guard let usage = try? KeyUsage(ext.value) else { return "\(issuer) has a malformed keyUsage" }
            guard usage.contains(bit: KeyUsage.keyCertSign) else { return "\(issuer) keyUsage does not allow keyCertSign" }
        }
        return nil
    }

    private func problemWithValidity(_ certificate: AttestationCertificate) -> String? {
        guard certificate.isValid(at: time) else {
            return "\(certificate) is not valid at \(time.iso8601) (valid \(certificate.notBefore.iso8601) to \(certificate.notAfter.iso8601))"
        }
        return nil
    }
}

extension Date {
    /// RFC 3339 text in UTC with second precision, for messages.
    var iso8601: String {
        let seconds = Int(timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
        let secondOfDay = seconds - days * 86400
        let (year, month, day) = CivilDate.from(daysSince1970: days)
        func pad(_ value: Int, _ width: Int = 2) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(year, 4))-\(pad(month))-\(pad(day))T\(pad(secondOfDay / 3600)):\(pad(secondOfDay % 3600 / 60)):\(pad(secondOfDay % 60))Z"
    }
}
