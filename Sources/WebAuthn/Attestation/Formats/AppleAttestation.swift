import Crypto
import SwiftASN1

/// `apple` (WebAuthn L3 §8.8): Apple's anonymization CA certifies each credential key and
/// binds it to this ceremony with a nonce extension.
enum AppleAttestation {
    /// The extension that carries the nonce.
    static let nonceExtension = "1.2.840.113635.100.8.2"

    static func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationResult {
        try AttestationSteps.requireMap(input, .apple)
        guard let certificates = try AttestationSteps.certificates(input, .apple), let leaf = certificates.first else {
            throw AttestationSteps.invalid(.apple, "attStmt.x5c is missing")
        }
        // Steps 2-4: nonce = SHA-256(authData || clientDataHash) must be in the extension.
        var hasher = SHA256()
        for part in input.signedParts { hasher.update(data: part) }
        let nonce = Array(hasher.finalize())
        guard let ext = leaf.extension(nonceExtension) else {
            throw AttestationSteps.invalid(.apple, "credCert has no nonce extension \(nonceExtension)")
        }
        let certified = try nonceValue(ext.value)
        guard certified == nonce else {
            throw AttestationSteps.invalid(.apple, "credCert nonce \(Bytes.hex(certified)) differs from SHA-256(authData || clientDataHash) \(Bytes.hex(nonce))")
        }
        // Step 5: the certified key is the credential key.
        try AttestationSteps.checkCertifiesCredentialKey(leaf, input, .apple)
        return AttestationResult(
            format: .apple,
            type: .anonCA,
            trust: try AttestationSteps.trust(certificates, input, .apple, leafHandledExtensions: [nonceExtension]),
            certificates: certificates,
            components: []
        )
    }

    /// The extension is `SEQUENCE { [1] EXPLICIT OCTET STRING nonce }`.
    private static func nonceValue(_ value: ArraySlice<UInt8>) throws(WebAuthnError) -> [UInt8] {
        let node = try ASN1Reading.parse(value, "apple nonce extension")
        let fields = try ASN1Reading.children(node, .sequence, "apple nonce extension")
        guard let tagged = fields.first(where: { $0.identifier == .context(1) }) else {
            throw AttestationSteps.invalid(.apple, "nonce extension has no [1] field")
        }
        return Array(try ASN1Reading.octetString(try ASN1Reading.explicitChild(tagged, "apple nonce"), "apple nonce"))
    }
}
