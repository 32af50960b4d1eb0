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
        let jws = try CompactJWS(response)
        let certificates = try jws.certificates()
        guard let leaf = certificates.first else {
            throw AttestationSteps.invalid(.androidSafetyNet, "the JWS header has no x5c certificates")
        }
        // Step 3: the JWS signature, made by the leaf certificate.
        try jws.verifySignature(with: leaf)
        let payload = try jws.payload()

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

    private static func leafNames(_ leaf: AttestationCertificate) throws(WebAuthnError) -> [String] {
        var names = leaf.subject.values(of: X509Name.commonName)
        if let san = leaf.extension(KnownExtension.subjectAlternativeName) {
            names += try SubjectAlternativeName.dnsNames(san.value)
        }
        return names
    }
}

/// A JWS in compact serialization (RFC 7515 §7.1), kept as the exact text that was signed.
struct CompactJWS {
    private let signingInput: [UInt8]
    private let header: Header
    private let payloadBytes: [UInt8]
    private let signature: [UInt8]

    struct Header: Decodable {
        var alg: String
        var x5c: [String]?
    }

    /// The SafetyNet payload members WebAuthn reads.
    struct SafetyNetPayload: Decodable {
        var nonce: String?
        var timestampMs: Int64?
        var ctsProfileMatch: Bool?
        var basicIntegrity: Bool?
    }

    init(_ bytes: ArraySlice<UInt8>) throws(WebAuthnError) {
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw AttestationSteps.invalid(.androidSafetyNet, "response is not a compact JWS (found \(parts.count) dot-separated parts)")
        }
        guard let headerBytes = Base64URL.decode(String(decoding: parts[0], as: UTF8.self)),
            let payloadBytes = Base64URL.decode(String(decoding: parts[1], as: UTF8.self)),
            let signature = Base64URL.decode(String(decoding: parts[2], as: UTF8.self))
        else {
            throw AttestationSteps.invalid(.androidSafetyNet, "a JWS part is not base64url")
        }
        do {
            header = try JSONDecoder().decode(Header.self, from: Data(headerBytes))
        } catch {
            throw AttestationSteps.invalid(.androidSafetyNet, "the JWS header is not a JSON object with alg")
        }
        signingInput = Array(parts[0]) + [UInt8(ascii: ".")] + Array(parts[1])
        self.payloadBytes = payloadBytes
        self.signature = signature
    }

    func certificates() throws(WebAuthnError) -> [AttestationCertificate] {
        var certificates: [AttestationCertificate] = []
        for (index, text) in (header.x5c ?? []).enumerated() {
            guard let der = Base64URL.decode(text) else {
                throw AttestationSteps.invalid(.androidSafetyNet, "JWS x5c[\(index)] is not base64")
            }
            do {
                certificates.append(try AttestationCertificate(derEncoded: der))
            } catch {
                throw AttestationSteps.invalid(.androidSafetyNet, "JWS x5c[\(index)] is not a certificate: \(error.reason)")
            }
        }
        return certificates
    }

    func verifySignature(with leaf: AttestationCertificate) throws(WebAuthnError) {
        let scheme: SignatureScheme
        var signature = self.signature
        switch header.alg {
        case "RS256": scheme = .rsaPKCS1v15(.sha256)
        case "RS384": scheme = .rsaPKCS1v15(.sha384)
        case "RS512": scheme = .rsaPKCS1v15(.sha512)
        case "PS256": scheme = .rsaPSS(.sha256)
        case "ES256":
            // JWS ECDSA signatures are r || s (RFC 7518 §3.4); the verifier takes DER.
            guard let raw = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else {
                throw AttestationSteps.invalid(.androidSafetyNet, "the ES256 JWS signature is not 64 bytes")
            }
            signature = Array(raw.derRepresentation)
            scheme = .ecdsa(.sha256)
        default:
            throw WebAuthnError(.unsupportedAlgorithm, "android-safetynet: JWS algorithm \(header.alg) is not supported")
        }
        guard let key = leaf.publicKey, key.isValidSignature(signature, over: [signingInput[...]], scheme: scheme) else {
            throw AttestationSteps.invalid(.androidSafetyNet, "the JWS signature (\(header.alg)) does not verify with x5c[0] \(leaf)")
        }
    }

    func payload() throws(WebAuthnError) -> SafetyNetPayload {
        do {
            return try JSONDecoder().decode(SafetyNetPayload.self, from: Data(payloadBytes))
        } catch {
            throw AttestationSteps.invalid(.androidSafetyNet, "the JWS payload is not a SafetyNet JSON object")
        }
    }
}
