import CBOR
import Crypto
import Foundation

/// What every attestation statement verifier receives: the statement, the data it signs,
/// and the relying party's policy. Built once per registration by the pipeline.
struct AttestationInput: Sendable {
    /// The `attStmt` value.
    let statement: CBORNode
    /// The authenticator data the statement covers.
    let authenticatorData: AuthenticatorData
    /// The attested credential inside it.
    let credential: AttestedCredentialData
    /// The decoded credential public key.
    let credentialKey: CredentialPublicKey
    /// SHA-256 of clientDataJSON.
    let clientDataHash: [UInt8]
    /// The instant at which certificates and timestamps are judged.
    let time: Date
    /// Trust anchors, revocation facts and strictness.
    let policy: AttestationPolicy
    /// Key size and legacy algorithm limits.
    let keyPolicy: KeyPolicy

    /// `authenticatorData || clientDataHash`, the bytes most formats sign, as parts so
    /// that nothing is copied.
    var signedParts: [ArraySlice<UInt8>] { [authenticatorData.rawBytes[...], clientDataHash[...]] }

    /// The same input with another statement, for the members of a `compound` statement.
    func with(statement: CBORNode) -> AttestationInput {
        AttestationInput(
            statement: statement,
            authenticatorData: authenticatorData,
            credential: credential,
            credentialKey: credentialKey,
            clientDataHash: clientDataHash,
            time: time,
            policy: policy,
            keyPolicy: keyPolicy
        )
    }
}

/// Steps that several formats share: reading statement members, checking signatures and
/// certificates, and deciding trust.
enum AttestationSteps {
    static func invalid(_ format: AttestationFormat, _ reason: String, file: String = #fileID, line: UInt = #line) -> WebAuthnError {
        WebAuthnError(.attestationInvalid, "\(format): \(reason)", file: file, line: line)
    }

    /// The statement's members after checking it is a map.
    static func requireMap(_ input: AttestationInput, _ format: AttestationFormat) throws(WebAuthnError) {
        guard case .map = input.statement.value else {
            throw invalid(format, "attStmt must be a map, found a \(input.statement.value.typeName)")
        }
    }

    /// `alg`: a COSE algorithm this verifier supports for attestation signatures.
    static func algorithm(_ input: AttestationInput, _ format: AttestationFormat) throws(WebAuthnError) -> COSEAlgorithmIdentifier {
        guard let value = input.statement[textKey: "alg"]?.value.int64 else {
            throw invalid(format, "attStmt.alg is missing or not an integer")
        }
        let algorithm = COSEAlgorithmIdentifier(rawValue: value)
        if algorithm == .rs1 && !(format == .tpm && input.keyPolicy.allowsLegacyRS1ForTPM) {
            throw WebAuthnError(.unsupportedAlgorithm, "\(format): RS1 (-65535) is accepted only for tpm with the legacy switch on")
        }
        guard algorithm.signatureScheme != nil else {
            throw WebAuthnError(.unsupportedAlgorithm, "\(format): attestation algorithm \(algorithm) is not supported")
        }
        return algorithm
    }

    /// `sig`: the attestation signature bytes.
    static func signature(_ input: AttestationInput, _ format: AttestationFormat) throws(WebAuthnError) -> ArraySlice<UInt8> {
        guard let node = input.statement[textKey: "sig"], case .bytes(let bytes) = node.value else {
            throw invalid(format, "attStmt.sig is missing or not a byte string")
        }
        return bytes
    }

    /// `x5c`: the certificates, leaf first. `nil` when absent; an error when malformed or empty.
    static func certificates(_ input: AttestationInput, _ format: AttestationFormat) throws(WebAuthnError) -> [AttestationCertificate]? {
        guard let node = input.statement[textKey: "x5c"] else { return nil }
        guard case .array(let elements) = node.value, !elements.isEmpty else {
            throw invalid(format, "attStmt.x5c must be a non-empty array of certificates")
        }
        var certificates: [AttestationCertificate] = []
        for (index, element) in elements.enumerated() {
            guard case .bytes(let der) = element.value else {
                throw invalid(format, "x5c[\(index)] is not a byte string")
            }
            do {
                certificates.append(try AttestationCertificate(derEncoded: der))
            } catch {
                throw invalid(format, "x5c[\(index)] is not a certificate: \(error.reason)")
            }
        }
        return certificates
    }

    /// Checks an attestation signature made with `algorithm` by `key`.
    static func verifySignature(
        _ signature: some DataProtocol,
        over parts: [ArraySlice<UInt8>],
        key: PublicKeyMaterial?,
        algorithm: COSEAlgorithmIdentifier,
        signer: String,
        _ format: AttestationFormat
    ) throws(WebAuthnError) {
        guard let key else { throw invalid(format, "\(signer) has a public key type this verifier does not support") }
        guard let scheme = algorithm.signatureScheme, key.isValidSignature(signature, over: parts, scheme: scheme) else {
            throw invalid(format, "the attestation signature does not verify with \(signer) (\(key.typeName), \(algorithm))")
        }
    }

    /// If the leaf carries `id-fido-gen-ce-aaguid`, it must not be critical and must equal
    /// the AAGUID in authenticator data. Conditional in the specification itself: §8.2 step
    /// "If attestnCert contains an extension with OID 1.3.6.1.4.1.45724.1.1.4
    /// (id-fido-gen-ce-aaguid) verify that the value of this extension matches the aaguid in
    /// authenticatorData", and §8.2.1 requires the extension only of roots shared by several
    /// models, which a verifier cannot tell.
    static func checkAAGUIDExtension(_ leaf: AttestationCertificate, _ input: AttestationInput, _ format: AttestationFormat) throws(WebAuthnError) {
        guard let ext = leaf.extension(KnownExtension.fidoAAGUID) else { return }
        guard !ext.isCritical else { throw invalid(format, "the AAGUID extension (1.3.6.1.4.1.45724.1.1.4) must not be critical") }
        let node = try ASN1Reading.parse(ext.value, "AAGUID extension")
        let value = try ASN1Reading.octetString(node, "AAGUID extension")
        guard Array(value) == input.credential.aaguid.bytes else {
            throw invalid(
                format,
                "certificate extension 1.3.6.1.4.1.45724.1.1.4 names AAGUID \(Bytes.hex(value)), authenticator data has \(input.credential.aaguid)"
            )
        }
    }

    /// The certificate must certify the credential public key itself (apple, android-key).
    static func checkCertifiesCredentialKey(_ leaf: AttestationCertificate, _ input: AttestationInput, _ format: AttestationFormat) throws(WebAuthnError) {
        guard let certifiedKey = leaf.publicKey, certifiedKey.isSameKey(as: input.credentialKey.material) else {
            throw invalid(format, "x5c[0]'s public key is not the credential public key")
        }
    }

    /// Checks a leaf's Basic Constraints. §8.2.1 (packed) and §8.3.1 (tpm): "The attestation
    /// certificate MUST have the following fields/extensions: … The Basic Constraints
    /// extension MUST have the CA component set to false." The extension is required, not
    /// only "false if present"; an empty sequence (cA defaulting to false) satisfies it.
    static func checkNotCA(_ leaf: AttestationCertificate, _ format: AttestationFormat) throws(WebAuthnError) {
        let constraints: BasicConstraints?
        do {
            constraints = try BasicConstraints.of(leaf)
        } catch {
            throw invalid(format, "attestation certificate basicConstraints: \(error.reason)")
        }
        guard let constraints else {
            throw invalid(format, "the attestation certificate has no basicConstraints extension; it must have one with cA false")
        }
        if constraints.isCertificateAuthority {
            throw invalid(format, "the attestation certificate must not be a CA (basicConstraints cA is true)")
        }
    }

    /// Decides trust for a statement with certificates, applying revocation facts and the
    /// policy's requirement.
    static func trust(
        _ certificates: [AttestationCertificate],
        _ input: AttestationInput,
        _ format: AttestationFormat,
        leafHandledExtensions: Set<String> = []
    ) throws(WebAuthnError) -> AttestationTrust {
        for certificate in certificates where input.policy.revokedCertificates.contains(RevokedCertificate(certificate)) {
            throw WebAuthnError(.certificateRevoked, "\(format): \(certificate) (serial \(Bytes.hex(certificate.serialNumber))) is revoked by its issuer")
        }
        guard let leaf = certificates.first else { return try notApplicable(input, format) }
        // The model's metadata entry vouches with its own roots, in any format.
        let entry = input.policy.metadata?.entry(aaguid: input.credential.aaguid, certificates: certificates)
        let anchors = (input.policy.trustAnchors[format] ?? []) + (entry?.attestationRoots ?? [])
        guard !anchors.isEmpty else {
            if input.policy.requirement == .trusted {
                throw WebAuthnError(.attestationUntrusted, "\(format): no trust anchors are configured for this format and no metadata entry names this authenticator, and policy requires trusted attestation")
            }
            return .untrusted(reason: "no trust anchors are configured for \(format) and no metadata entry names this authenticator")
        }
        let verifier = CertificateChainVerifier(
            anchors: anchors,
            time: input.time,
            keyPolicy: input.keyPolicy,
            leafHandledExtensions: leafHandledExtensions
        )
        switch verifier.verify(leaf: leaf, intermediates: Array(certificates.dropFirst())) {
        case .trusted(let path, let anchor):
            try checkRevocationLists(path + [anchor], input, format)
            return .trusted(anchor: anchor.subject.description)
        case .untrusted(let reasons):
            let reason = "no certificate path from \(leaf) to a \(format) trust anchor: " + reasons.joined(separator: "; ")
            if input.policy.requirement == .any { return .untrusted(reason: reason) }
            throw WebAuthnError(.attestationUntrusted, reason)
        }
    }

    /// Each certificate on a trusted path against the revocation lists its issuer on that
    /// path signed.
    private static func checkRevocationLists(_ path: [AttestationCertificate], _ input: AttestationInput, _ format: AttestationFormat) throws(WebAuthnError) {
        guard !input.policy.revocationLists.isEmpty else { return }
        for (certificate, issuer) in zip(path, path.dropFirst()) {
            for list in input.policy.revocationLists where list.revokes(certificate, issuedBy: issuer) {
                throw WebAuthnError(
                    .certificateRevoked,
                    "\(format): \(certificate) (serial \(Bytes.hex(certificate.serialNumber))) is on the revocation list \(issuer) published on \(list.thisUpdate.iso8601)"
                )
            }
        }
    }

    /// Trust for statements without certificates (none, self).
    static func notApplicable(_ input: AttestationInput, _ format: AttestationFormat) throws(WebAuthnError) -> AttestationTrust {
        if input.policy.requirement == .trusted {
            throw WebAuthnError(.attestationUntrusted, "\(format): the statement has no certificate to trust, and policy requires trusted attestation")
        }
        return .notApplicable
    }
}
