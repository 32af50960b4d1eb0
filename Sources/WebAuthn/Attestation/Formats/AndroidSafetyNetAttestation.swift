import CBOR
import Crypto
import Foundation

/// `android-safetynet` (WebAuthn L3 §8.5): a SafetyNet attestation JWS whose nonce binds it
/// to this ceremony. Google retired the SafetyNet API in 2025; registrations made with it
/// still verify.
enum AndroidSafetyNetAttestation {
    static func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationResult {
        try AttestationSteps.requireMap(input, .androidSafetyNet)
        guard let version = input.statement[textKey: "ver"], case .text(let ver) = version.value, !ver.isEmpty else {
            throw AttestationSteps.invalid(.androidSafetyNet, "attStmt.ver must be a non-empty text string")
        }
        guard let responseNode = input.statement[textKey: "response"], case .bytes(let response) = responseNode.value else {
            throw AttestationSteps.invalid(.androidSafetyNet, "attStmt.response must be a byte string")
        }
        let jws = try CompactJWS(response) { AttestationSteps.invalid(.androidSafetyNet, $0) }
        let certificates = try jws.certificates()
        guard let leaf = certificates.first else {
            throw AttestationSteps.invalid(.androidSafetyNet, "the JWS header has no x5c certificates")
        }
        // Step 3: the JWS signature, made by the leaf certificate.
        try jws.verifySignature(with: leaf)
        let payload: SafetyNetPayload = try jws.payload(as: "a SafetyNet JSON object")

        // Step 2: nonce = base64(SHA-256(authData || clientDataHash)).
        var hasher = SHA256()
        for part in input.signedParts { hasher.update(data: part) }
        let expectedNonce = Array(hasher.finalize())
        guard let nonce = payload.nonce.flatMap({ Base64URL.decode($0) }), nonce == expectedNonce else {
            throw AttestationSteps.invalid(
                .androidSafetyNet,
                "response nonce \(payload.nonce ?? "(missing)") is not base64(SHA-256(authData || clientDataHash))"
            )
        }
        // Step 3: the signer is attest.android.com.
        let names = try leafNames(leaf)
        guard names.contains("attest.android.com") else {
            throw AttestationSteps.invalid(.androidSafetyNet, "the JWS was signed for \(names.joined(separator: ", ")), not attest.android.com")
        }
        // Step 4: basicIntegrity always, ctsProfileMatch unless the policy waives it.
        guard payload.basicIntegrity == true else {
            throw AttestationSteps.invalid(.androidSafetyNet, "basicIntegrity is \(payload.basicIntegrity.map(String.init) ?? "missing"); it must be true")
        }
        if input.policy.safetyNet.requiresCTSProfileMatch && payload.ctsProfileMatch != true {
            throw AttestationSteps.invalid(.androidSafetyNet, "ctsProfileMatch is \(payload.ctsProfileMatch.map(String.init) ?? "missing"), policy requires true")
        }
        try checkTimestamp(payload.timestampMs, leaf: leaf, input)

        return AttestationResult(
            format: .androidSafetyNet,
            type: .basic,
            trust: try AttestationSteps.trust(certificates, input, .androidSafetyNet),
            certificates: certificates,
            components: []
        )
    }

    /// The response was signed at `timestampMs`, so that instant must fall within the
    /// signing certificate's validity. Freshness against the clock is checked only when
    /// the policy sets a maximum age.
    private static func checkTimestamp(_ timestampMs: Int64?, leaf: AttestationCertificate, _ input: AttestationInput) throws(WebAuthnError) {
        guard let timestampMs else {
            throw AttestationSteps.invalid(.androidSafetyNet, "the response has no timestampMs")
        }
        let signedAt = Date(timeIntervalSince1970: Double(timestampMs) / 1000)
        guard leaf.isValid(at: signedAt) else {
            throw AttestationSteps.invalid(
                .androidSafetyNet,
                "timestampMs \(signedAt.iso8601) is outside the signing certificate's validity (\(leaf.notBefore.iso8601) to \(leaf.notAfter.iso8601))"
            )
        }
        guard let maximumAge = input.policy.safetyNet.maximumAge else { return }
        // Compared in whole milliseconds, the timestamp's own unit: as Doubles, an instant
        // pinned to the same millisecond can land a fraction before it.
        let verifiedAtMs = Int64((input.time.timeIntervalSince1970 * 1000).rounded())
        let ageMs = verifiedAtMs - timestampMs
        if ageMs > Int64(maximumAge * 1000) {
            throw AttestationSteps.invalid(
                .androidSafetyNet,
                "the response has expired: timestampMs \(signedAt.iso8601) is \(ageMs / 1000) s before \(input.time.iso8601), at most \(Int(maximumAge)) s are allowed"
            )
        }
        if -ageMs > Int64(input.policy.safetyNet.allowedClockSkew * 1000) {
            throw AttestationSteps.invalid(
                .androidSafetyNet,
                "timestampMs \(signedAt.iso8601) is \(-ageMs) ms after the verification time \(input.time.iso8601)"
            )
        }
    }

    /// The SafetyNet payload members WebAuthn reads.
    struct SafetyNetPayload: Decodable {
        var nonce: String?
        var timestampMs: Int64?
        var ctsProfileMatch: Bool?
        var basicIntegrity: Bool?
    }

    private static func leafNames(_ leaf: AttestationCertificate) throws(WebAuthnError) -> [String] {
        var names = leaf.subject.values(of: X509Name.commonName)
        if let san = leaf.extension(KnownExtension.subjectAlternativeName) {
            names += try SubjectAlternativeName.dnsNames(san.value)
        }
        return names
    }
}
