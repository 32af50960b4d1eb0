import Crypto

/// `fido-u2f` (WebAuthn L3 §8.6): a U2F batch certificate signs a U2F registration message.
enum FIDOU2FAttestation {
    static func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationResult {
        try AttestationSteps.requireMap(input, .fidoU2F)
        let signature = try AttestationSteps.signature(input, .fidoU2F)
        guard let certificates = try AttestationSteps.certificates(input, .fidoU2F), let leaf = certificates.first else {
            throw AttestationSteps.invalid(.fidoU2F, "attStmt.x5c is missing")
        }
        // Step 2: exactly one certificate with a P-256 key.
        guard certificates.count == 1 else {
            throw AttestationSteps.invalid(.fidoU2F, "x5c must hold exactly one certificate, found \(certificates.count)")
        }
        guard case .p256? = leaf.publicKey else {
            throw AttestationSteps.invalid(.fidoU2F, "the attestation certificate key must be EC P-256, is \(leaf.publicKey?.typeName ?? leaf.publicKeyAlgorithmOID)")
        }
        // Steps 3-4: the credential key must be P-256, sent as the uncompressed point.
        guard case .p256(let credentialKey) = input.credentialKey.material else {
            throw AttestationSteps.invalid(.fidoU2F, "the credential key must be EC P-256, is \(input.credentialKey.material.typeName)")
        }
        // Step 5: 0x00 || rpIdHash || clientDataHash || credentialId || publicKeyU2F.
        let verificationData: [ArraySlice<UInt8>] = [
            [0x00], input.authenticatorData.relyingPartyIDHash[...], input.clientDataHash[...],
            input.credential.credentialID[...], Array(credentialKey.x963Representation)[...],
        ]
        // Step 6.
        try AttestationSteps.verifySignature(
            signature, over: verificationData, key: leaf.publicKey, algorithm: .es256,
            signer: "x5c[0] \(leaf)", .fidoU2F
        )
        return AttestationResult(
            format: .fidoU2F,
            type: .basic,
            trust: try AttestationSteps.trust(certificates, input, .fidoU2F),
            certificates: certificates,
            components: []
        )
    }
}
