import CBOR

/// `packed` (WebAuthn L3 §8.2): either a batch certificate (`x5c`) or self attestation.
enum PackedAttestation {
    static func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationResult {
        try AttestationSteps.requireMap(input, .packed)
        let algorithm = try AttestationSteps.algorithm(input, .packed)
        let signature = try AttestationSteps.signature(input, .packed)

        if input.statement[textKey: "ecdaaKeyId"] != nil {
            throw AttestationSteps.invalid(.packed, "ECDAA attestation was removed from WebAuthn and is not supported")
        }

        guard let certificates = try AttestationSteps.certificates(input, .packed), let leaf = certificates.first else {
            // §8.2 step 3: self attestation.
            guard algorithm == input.credentialKey.algorithm else {
                throw AttestationSteps.invalid(
                    .packed,
                    "self attestation alg \(algorithm) differs from the credential key's \(input.credentialKey.algorithm)"
                )
            }
            try AttestationSteps.verifySignature(
                signature, over: input.signedParts, key: input.credentialKey.material,
                algorithm: algorithm, signer: "the credential public key", .packed
            )
            return AttestationResult(
                format: .packed, type: .self, trust: try AttestationSteps.notApplicable(input, .packed),
                certificates: [], components: []
            )
        }

        // §8.2 step 2: x5c.
        try AttestationSteps.verifySignature(
            signature, over: input.signedParts, key: leaf.publicKey,
            algorithm: algorithm, signer: "x5c[0] \(leaf)", .packed
        )
        try checkCertificateRequirements(leaf)
        try AttestationSteps.checkAAGUIDExtension(leaf, input, .packed)
        return AttestationResult(
            format: .packed,
            type: .basic,
            trust: try AttestationSteps.trust(certificates, input, .packed),
            certificates: certificates,
            components: []
        )
    }

    /// §8.2.1: version 3; subject C, O, OU "Authenticator Attestation" and CN; not a CA.
    private static func checkCertificateRequirements(_ leaf: AttestationCertificate) throws(WebAuthnError) {
        guard leaf.version == 3 else {
            throw AttestationSteps.invalid(.packed, "the attestation certificate must be X.509 v3, is v\(leaf.version)")
        }
        let subject = leaf.subject
        for (oid, name) in [(X509Name.country, "C"), (X509Name.organization, "O"), (X509Name.commonName, "CN")] where subject.values(of: oid).isEmpty {
            throw AttestationSteps.invalid(.packed, "the attestation certificate subject has no \(name): \(subject)")
        }
        guard subject.values(of: X509Name.organizationalUnit).contains("Authenticator Attestation") else {
            throw AttestationSteps.invalid(.packed, "the attestation certificate subject OU must be \"Authenticator Attestation\": \(subject)")
        }
        try AttestationSteps.checkNotCA(leaf, .packed)
    }
}
