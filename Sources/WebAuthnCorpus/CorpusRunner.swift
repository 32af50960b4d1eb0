public import Foundation
public import WebAuthn

/// The outcome of one case, as the CLI prints it.
public struct CaseOutcome: Sendable {
    /// The case identifier.
    public let id: String
    /// `valid` or `invalid`.
    public let verdict: String
    /// The error code when invalid.
    public let code: String?
    /// What failed, when invalid.
    public let reason: String?
    /// For valid registrations: the attestation type.
    public let attestationType: String?
    /// For valid registrations: whether the attestation chains to a trust anchor.
    public let trusted: Bool?

    /// Whether the case verified.
    public var isValid: Bool { verdict == "valid" }

    /// One JSON object on one line, members in a fixed order: `id`, `verdict`, `code`,
    /// `reason`, then `attestationType` and `trusted` when present.
    public var jsonLine: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        func json(_ value: some Encodable) -> String {
            (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
        }
        var members = ["\"id\":\(json(id))", "\"verdict\":\(json(verdict))", "\"code\":\(json(code))", "\"reason\":\(json(reason))"]
        if let attestationType { members.append("\"attestationType\":\(json(attestationType))") }
        if let trusted { members.append("\"trusted\":\(json(trusted))") }
        return "{" + members.joined(separator: ",") + "}"
    }

    static func valid(_ id: String, attestationType: String? = nil, trusted: Bool? = nil) -> CaseOutcome {
        CaseOutcome(id: id, verdict: "valid", code: nil, reason: nil, attestationType: attestationType, trusted: trusted)
    }

    static func invalid(_ id: String, code: String, reason: String) -> CaseOutcome {
        CaseOutcome(id: id, verdict: "invalid", code: code, reason: reason, attestationType: nil, trusted: nil)
    }
}

/// Runs corpus cases through the one verification pipeline, ``WebAuthnVerifier``.
///
/// How a case becomes a ceremony:
/// - `expected.origin` and `expected.rpId` are the allowed origins and RP IDs;
///   `allowCrossOrigin` and `topOrigin` make the cross-origin policy.
/// - `trustAnchorsPEM` are the anchors for whatever format the response uses.
/// - A response with an `attestationObject` is a registration; one with `authenticatorData`
///   and `signature` is an authentication, checked against `credentialPublicKey` and
///   `priorSignCount` with the credential itself as the only allowed credential.
/// - Certificates are judged at ``CorpusCase/verificationTime(now:)``.
/// - SafetyNet freshness is the server's check, applied at that same instant (at most 60 s
///   old, never in the future) unless the case sets `skipSafetyNetTimestampCheck`, as its
///   upstream test did. The timestamp must always fall within the signing certificate's
///   validity.
public struct CorpusRunner: Sendable {
    /// Whether RS1 is accepted from legacy TPMs (real Windows devices produce it).
    public var allowsLegacyRS1ForTPM: Bool
    /// The clock used when a case names no time.
    public var now: Date
    /// Revocation facts to apply to every case (the corpus itself carries none).
    public var revokedCertificates: Set<RevokedCertificate>

    /// Accepts RS1 from legacy TPMs by default, unlike ``KeyPolicy``, since real Windows
    /// devices produce it.
    public init(allowsLegacyRS1ForTPM: Bool = true, now: Date, revokedCertificates: Set<RevokedCertificate> = []) {
        self.allowsLegacyRS1ForTPM = allowsLegacyRS1ForTPM
        self.now = now
        self.revokedCertificates = revokedCertificates
    }

    /// Verifies one entry of a corpus file.
    public func run(_ entry: CorpusFile.Entry, index: Int) -> CaseOutcome {
        switch entry {
        case .valid(let corpusCase):
            return run(corpusCase)
        case .malformed(let id, let reason):
            return .invalid(id ?? "#\(index)", code: "malformed_case", reason: reason)
        }
    }

    /// Verifies one case.
    public func run(_ corpusCase: CorpusCase) -> CaseOutcome {
        do {
            return try verify(corpusCase)
        } catch {
            return .invalid(corpusCase.id, code: error.code.rawValue, reason: error.reason)
        }
    }

    private func verify(_ corpusCase: CorpusCase) throws(WebAuthnError) -> CaseOutcome {
        let expected = corpusCase.expected
        let policy = try makePolicy(corpusCase)
        let verifier = WebAuthnVerifier(policy: policy)
        let challenge = Base64URL.decode(expected.challenge) ?? Array(expected.challenge.utf8)
        let userVerification: UserVerificationRequirement = expected.requireUserVerification == true ? .required : .preferred
        let responseJSON = corpusCase.response.data()

        if corpusCase.response["response"]?["attestationObject"] != nil {
            let response = try RegistrationResponseJSON.decode(from: responseJSON)
            var algorithms = expected.supportedAlgs.map { $0.map(COSEAlgorithmIdentifier.init(rawValue:)) } ?? COSEAlgorithmIdentifier.supported
            if expected.supportedAlgs == nil && allowsLegacyRS1ForTPM { algorithms.append(.rs1) }
            let ceremony = RegistrationCeremony(
                challenge: challenge,
                userVerification: userVerification,
                allowedAlgorithms: algorithms,
                isConditionalCreate: expected.requireUserPresence == false,
                acceptedClientDataTypes: expected.expectedType?.values ?? ["webauthn.create"]
            )
            let result = try verifier.verifyRegistration(response, for: ceremony, at: corpusCase.verificationTime(now: now))
            return .valid(corpusCase.id, attestationType: result.attestation.type.rawValue, trusted: result.attestation.trust.isTrusted)
        }

        let response = try AuthenticationResponseJSON.decode(from: responseJSON)
        guard let keyText = corpusCase.credentialPublicKey, let keyBytes = Base64URL.decode(keyText) else {
            throw WebAuthnError(.malformedPublicKey, "an authentication case needs credentialPublicKey (base64url COSE key)")
        }
        let record = CredentialRecord(
            credentialID: response.rawId.bytes,
            publicKey: try CredentialPublicKey(coseKey: keyBytes, policy: policy.keyPolicy),
            signCount: corpusCase.priorSignCount ?? 0
        )
        let ceremony = AuthenticationCeremony(
            challenge: challenge,
            userVerification: userVerification,
            allowedCredentialIDs: [response.rawId.bytes],
            requiresUserPresence: expected.requireUserPresence ?? true,
            acceptedClientDataTypes: expected.expectedType?.values ?? ["webauthn.get"]
        )
        _ = try verifier.verifyAuthentication(response, for: ceremony, credential: record)
        return .valid(corpusCase.id)
    }

    private func makePolicy(_ corpusCase: CorpusCase) throws(WebAuthnError) -> RelyingPartyPolicy {
        let expected = corpusCase.expected
        var anchors: [AttestationCertificate] = []
        for pem in corpusCase.trustAnchorsPEM ?? [] {
            anchors += try AttestationCertificate.parsePEM(pem)
        }
        let anchorsByFormat = anchors.isEmpty ? [:] : Dictionary(uniqueKeysWithValues: AttestationFormat.all.map { ($0, anchors) })
        return RelyingPartyPolicy(
            relyingPartyIDs: expected.rpId.values,
            origins: OriginPolicy(expected.origin.values),
            crossOrigin: expected.allowCrossOrigin == true ? .allowed(topOrigins: expected.topOrigin.map { OriginPolicy($0.values) }) : .forbidden,
            keyPolicy: KeyPolicy(allowsLegacyRS1ForTPM: allowsLegacyRS1ForTPM),
            attestation: AttestationPolicy(
                trustAnchors: anchorsByFormat,
                revokedCertificates: revokedCertificates,
                safetyNet: SafetyNetPolicy(
                    requiresCTSProfileMatch: expected.enforceSafetyNetCtsProfileMatch ?? true,
                    maximumAge: corpusCase.skipSafetyNetTimestampCheck == true ? nil : SafetyNetPolicy().maximumAge
                )
            ),
            signCountPolicy: .reject
        )
    }
}
