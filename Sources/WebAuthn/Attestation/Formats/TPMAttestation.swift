import CBOR


/// `tpm` (WebAuthn L3 §8.3): a TPM attestation identity key certifies the credential key's
/// public area, and a certificate vouches for the TPM.
enum TPMAttestation {
    /// `tcg-kp-AIKCertificate`.
    static let aikCertificatePurpose = "2.23.133.8.3"
    static let manufacturerAttribute = "2.23.133.2.1"
    static let modelAttribute = "2.23.133.2.2"
    static let versionAttribute = "2.23.133.2.3"

    static func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationResult {
        try AttestationSteps.requireMap(input, .tpm)
        guard let version = input.statement[textKey: "ver"], case .text("2.0") = version.value else {
            throw AttestationSteps.invalid(.tpm, "attStmt.ver must be \"2.0\"")
        }
        let algorithm = try AttestationSteps.algorithm(input, .tpm)
        let signature = try AttestationSteps.signature(input, .tpm)
        guard let certificates = try AttestationSteps.certificates(input, .tpm), let aikCertificate = certificates.first else {
            throw AttestationSteps.invalid(.tpm, "attStmt.x5c is missing (ECDAA is not supported)")
        }
        guard let pubAreaNode = input.statement[textKey: "pubArea"], case .bytes(let pubAreaBytes) = pubAreaNode.value,
            let certInfoNode = input.statement[textKey: "certInfo"], case .bytes(let certInfoBytes) = certInfoNode.value
        else {
            throw AttestationSteps.invalid(.tpm, "attStmt.pubArea and attStmt.certInfo must be byte strings")
        }

        // Step 2: pubArea describes the credential public key.
        let publicArea = try TPMPublicArea(pubAreaBytes)
        guard publicArea.matches(input.credentialKey) else {
            throw AttestationSteps.invalid(.tpm, "pubArea's key is not the credential public key")
        }
        // Step 4: certInfo.
        let certifyInfo = try TPMCertifyInfo(certInfoBytes)
        guard let scheme = algorithm.signatureScheme, let digest = Self.digest(of: scheme) else {
            throw WebAuthnError(.unsupportedAlgorithm, "tpm: attestation algorithm \(algorithm) has no hash")
        }
        // extraData is the hash of attToBeSigned with the hash of `alg`.
        let expectedExtraData = Array(digest.digest(of: input.signedParts).bytes)
        guard certifyInfo.extraData == expectedExtraData else {
            throw AttestationSteps.invalid(.tpm, "certInfo.extraData is not the \(digest) hash of authData || clientDataHash")
        }
        // attested.name is nameAlg || H_nameAlg(pubArea).
        guard let nameDigest = publicArea.nameAlgorithm.digest else {
            throw AttestationSteps.invalid(.tpm, "pubArea.nameAlg is not a hash")
        }
        let expectedName = Bytes.bigEndian(publicArea.nameAlgorithm.rawValue) + Array(nameDigest.digest(of: [pubAreaBytes]).bytes)
        guard certifyInfo.attestedName == expectedName else {
            throw AttestationSteps.invalid(.tpm, "certInfo.attested.name does not name pubArea")
        }
        // Step 5: the AIK signed certInfo.
        try AttestationSteps.verifySignature(
            signature, over: [certInfoBytes], key: aikCertificate.publicKey,
            algorithm: algorithm, signer: "the AIK certificate \(aikCertificate)", .tpm
        )
        try checkAIKCertificate(aikCertificate)
        try AttestationSteps.checkAAGUIDExtension(aikCertificate, input, .tpm)

        return AttestationResult(
            format: .tpm,
            type: .attCA,
            trust: try AttestationSteps.trust(certificates, input, .tpm),
            certificates: certificates,
            components: []
        )
    }

    private static func digest(of scheme: SignatureScheme) -> DigestAlgorithm? {
        switch scheme {
        case .ecdsa(let hash), .rsaPKCS1v15(let hash), .rsaPSS(let hash): return hash
        default: return nil
        }
    }

    /// §8.3.1: version 3, empty subject, the TPM identity in the SAN, the AIK purpose in
    /// the EKU, and not a CA.
    private static func checkAIKCertificate(_ certificate: AttestationCertificate) throws(WebAuthnError) {
        guard certificate.version == 3 else {
            throw AttestationSteps.invalid(.tpm, "the AIK certificate must be X.509 v3, is v\(certificate.version)")
        }
        guard certificate.subject.isEmpty else {
            throw AttestationSteps.invalid(.tpm, "the AIK certificate subject must be empty, is \(certificate.subject)")
        }
        guard let san = certificate.extension(KnownExtension.subjectAlternativeName) else {
            throw AttestationSteps.invalid(.tpm, "the AIK certificate has no subjectAltName")
        }
        // Some TPMs put the three attributes in one RDN, others in three; read them all.
        let attributes = try SubjectAlternativeName.directoryNames(san.value).flatMap(\.attributes).map(\.oid)
        for (oid, name) in [(manufacturerAttribute, "manufacturer"), (modelAttribute, "model"), (versionAttribute, "version")]
        where !attributes.contains(oid) {
            throw AttestationSteps.invalid(.tpm, "the AIK certificate subjectAltName has no TPM \(name) (\(oid))")
        }
        guard let eku = certificate.extension(KnownExtension.extendedKeyUsage),
            try ExtendedKeyUsage.purposes(eku.value).contains(aikCertificatePurpose)
        else {
            throw AttestationSteps.invalid(.tpm, "the AIK certificate extendedKeyUsage lacks tcg-kp-AIKCertificate (\(aikCertificatePurpose))")
        }
        try AttestationSteps.checkNotCA(certificate, .tpm)
    }
}
