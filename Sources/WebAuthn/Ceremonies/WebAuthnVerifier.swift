public import Foundation

/// The relying-party verification pipeline: every API face ends here.
///
/// The verifier is pure. It reads no clock (registration takes the instant at which
/// certificates are judged), draws no random numbers and does no I/O; trust anchors and
/// revocation facts arrive in the ``RelyingPartyPolicy``.
public struct WebAuthnVerifier: Sendable {
    /// The policy every ceremony is verified under.
    public let policy: RelyingPartyPolicy

    /// The allowed RP IDs with their SHA-256, computed once.
    private let relyingPartyIDHashes: [(relyingPartyID: String, hash: [UInt8])]

    public init(policy: RelyingPartyPolicy) {
        self.policy = policy
        self.relyingPartyIDHashes = CeremonySteps.relyingPartyIDHashes(policy.relyingPartyIDs)
    }

    /// The longest credential ID accepted (WebAuthn L3 §7.1 step 26).
    public static let maximumCredentialIDLength = 1023
    /// The shortest credential ID a registration may create (WebAuthn L3 §6.1: authenticators
    /// make IDs of at least 16 bytes). See ``CeremonySteps/checkRegisteredCredentialID(_:rawId:)``.
    public static let minimumRegisteredCredentialIDLength = 16

    /// Checks that a credential ID named by a client can name a credential at all: 1 to 1023
    /// bytes. Callers that look a credential up before verifying an assertion run this first,
    /// so that no lookup is made with an empty or oversized ID.
    public static func checkCredentialIDLength(_ credentialID: [UInt8]) throws(WebAuthnError) {
        try CeremonySteps.checkCredentialIDLength(credentialID)
    }

    /// Verifies a registration (WebAuthn L3 §7.1).
    /// - Parameters:
    ///   - response: The client's `RegistrationResponseJSON`.
    ///   - ceremony: What the relying party asked for in the creation options.
    ///   - time: The instant at which attestation certificates and timestamps are judged.
    /// - Returns: The verified registration, ready to store.
    /// - Throws: ``WebAuthnError`` naming the first check that failed.
    public func verifyRegistration(
        _ response: RegistrationResponseJSON,
        for ceremony: RegistrationCeremony,
        at time: Date
    ) throws(WebAuthnError) -> VerifiedRegistration {
        try CeremonySteps.checkType(response.type)
        try CeremonySteps.checkCredentialID(id: response.id, rawId: response.rawId.bytes)

        // Steps 7-12: client data.
        let clientData = try CollectedClientData(bytes: response.response.clientDataJSON.bytes)
        let origin = try CeremonySteps.checkClientData(
            clientData, acceptedTypes: ceremony.acceptedClientDataTypes, challenge: ceremony.challenge, policy: policy
        )
        // Step 13.
        let clientDataHash = CeremonySteps.clientDataHash(clientData)
        // Step 14: decode the attestation object.
        let attestationObject = try AttestationObject(bytes: response.response.attestationObject.bytes)
        let authenticatorData = attestationObject.authenticatorData
        // Step 15.
        let relyingPartyID = try CeremonySteps.checkRelyingPartyIDHash(authenticatorData, allowed: relyingPartyIDHashes)
        // Steps 16-18: UP unless conditional create, UV when required, BE/BS.
        try CeremonySteps.checkFlags(
            authenticatorData.flags,
            requiresUserPresence: !ceremony.isConditionalCreate,
            userVerification: ceremony.userVerification
        )
        guard let credential = authenticatorData.attestedCredentialData else {
            throw WebAuthnError(.malformedAuthenticatorData, "the AT flag is not set: a registration must carry attested credential data")
        }
        // Step 26 and the ID's form, checked early so that nothing else runs on a bad ID.
        try CeremonySteps.checkRegisteredCredentialID(credential.credentialID, rawId: response.rawId.bytes)
        // The relying party's registration policy: device-bound only, AAGUID lists.
        try policy.registration.check(aaguid: credential.aaguid, flags: authenticatorData.flags)
        // Step 20: the credential key and its algorithm.
        let publicKey = try credentialPublicKey(credential, format: attestationObject.format)
        guard ceremony.allowedAlgorithms.contains(publicKey.algorithm) else {
            throw WebAuthnError(
                .algorithmNotAllowed,
                "the credential uses \(publicKey.algorithm), which is not among the requested algorithms (\(ceremony.allowedAlgorithms.map(\.name).joined(separator: ", ")))"
            )
        }
        // Steps 22-25: the attestation statement and its trust.
        let attestation = try verifyStatement(attestationObject, credential: credential, publicKey: publicKey, clientDataHash: clientDataHash, at: time)
        // The model's standing in the metadata (§7.1 step 23's "trustworthiness" inputs).
        let metadata = try checkMetadataStatus(credential.aaguid, attestation: attestation)
        return VerifiedRegistration(
            credentialID: credential.credentialID,
            publicKey: publicKey,
            signCount: authenticatorData.signCount,
            aaguid: credential.aaguid,
            flags: authenticatorData.flags,
            transports: response.response.transports ?? [],
            isDiscoverable: response.clientExtensionResults.credProps?.rk,
            attestation: attestation,
            metadata: metadata,
            relyingPartyID: relyingPartyID,
            origin: origin,
            topOrigin: clientData.topOrigin,
            authenticatorExtensions: authenticatorData.extensions,
            attestationObject: response.response.attestationObject.bytes,
            clientDataJSON: clientData.rawBytes
        )
    }

    /// Verifies the attestation statement of a stored or received attestation object on
    /// its own (WebAuthn L3 §7.1 steps 20-25 without the ceremony checks), for example to
    /// re-evaluate trust after the trust anchors change.
    /// - Parameters:
    ///   - attestationObject: The attestation object bytes.
    ///   - clientDataHash: SHA-256 of the clientDataJSON the statement was made for.
    ///   - time: The instant at which certificates and timestamps are judged.
    public func verifyAttestation(
        _ attestationObject: some Collection<UInt8>,
        clientDataHash: [UInt8],
        at time: Date
    ) throws(WebAuthnError) -> AttestationResult {
        let object = try AttestationObject(bytes: attestationObject)
        guard let credential = object.authenticatorData.attestedCredentialData else {
            throw WebAuthnError(.malformedAuthenticatorData, "the AT flag is not set: an attestation object must carry attested credential data")
        }
        let publicKey = try credentialPublicKey(credential, format: object.format)
        return try verifyStatement(object, credential: credential, publicKey: publicKey, clientDataHash: clientDataHash, at: time)
    }

    /// The metadata entry of the authenticator's model, refusing the registration when its
    /// latest status is one the policy refuses. The AAGUID of an untrusted attestation is
    /// only a claim, but refusing on a claim of a compromised model is still right.
    private func checkMetadataStatus(_ aaguid: AAGUID, attestation: AttestationResult) throws(WebAuthnError) -> MetadataMatch? {
        guard let entry = policy.attestation.metadata?.entry(aaguid: aaguid, certificates: attestation.certificates) else { return nil }
        if let latest = entry.latestStatus, policy.attestation.refusedStatuses.contains(latest.status) {
            throw WebAuthnError(
                .authenticatorStatusRefused,
                "authenticator model \(entry.description.map { "\"\($0.prefix(80))\" " } ?? "")(\(entry.identifier)) has FIDO metadata status \(latest.status)\(latest.effectiveDate.map { " since \($0)" } ?? ""), which the relying party refuses (refuse_statuses)"
            )
        }
        return MetadataMatch(entry)
    }

    /// The credential key under the key policy. RS1 keys come only from legacy TPMs, so
    /// the legacy switch applies to `tpm` attestations only.
    private func credentialPublicKey(_ credential: AttestedCredentialData, format: AttestationFormat) throws(WebAuthnError) -> CredentialPublicKey {
        var keyPolicy = policy.keyPolicy
        keyPolicy.allowsLegacyRS1ForTPM = keyPolicy.allowsLegacyRS1ForTPM && format == .tpm
        return try CredentialPublicKey(node: credential.credentialPublicKey, policy: keyPolicy)
    }

    private func verifyStatement(
        _ object: AttestationObject,
        credential: AttestedCredentialData,
        publicKey: CredentialPublicKey,
        clientDataHash: [UInt8],
        at time: Date
    ) throws(WebAuthnError) -> AttestationResult {
        try AttestationStatementVerification.verify(
            object.format,
            AttestationInput(
                statement: object.statement,
                authenticatorData: object.authenticatorData,
                credential: credential,
                credentialKey: publicKey,
                clientDataHash: clientDataHash,
                time: time,
                policy: policy.attestation,
                keyPolicy: policy.keyPolicy
            )
        )
    }

    /// Verifies an assertion (WebAuthn L3 §7.2).
    /// - Parameters:
    ///   - response: The client's `AuthenticationResponseJSON`.
    ///   - ceremony: What the relying party asked for in the request options.
    ///   - credential: The stored record of the credential named by `response.rawId`.
    /// - Returns: The verified assertion with the counter and flags to store.
    /// - Throws: ``WebAuthnError`` naming the first check that failed.
    public func verifyAuthentication(
        _ response: AuthenticationResponseJSON,
        for ceremony: AuthenticationCeremony,
        credential: CredentialRecord
    ) throws(WebAuthnError) -> VerifiedAuthentication {
        try CeremonySteps.checkType(response.type)
        try CeremonySteps.checkCredentialID(id: response.id, rawId: response.rawId.bytes)
        let credentialID = response.rawId.bytes
        try CeremonySteps.checkCredentialIDLength(credentialID)
        // Step 5: one of the allowed credentials.
        if !ceremony.allowedCredentialIDs.isEmpty && !ceremony.allowedCredentialIDs.contains(credentialID) {
            throw WebAuthnError(.credentialNotAllowed, "credential \(Base64URL.encode(credentialID.prefix(96))) is not in allowCredentials")
        }
        guard credentialID == credential.credentialID else {
            throw WebAuthnError(.credentialNotAllowed, "the assertion names credential \(Base64URL.encode(credentialID.prefix(96))), not the stored record's")
        }
        // Step 6: the user handle belongs to the credential's owner.
        // An empty user handle (as Safari has sent) counts as absent.
        let userHandle = response.response.userHandle?.bytes.isEmpty == false ? response.response.userHandle?.bytes : nil
        if let userHandle, let owner = credential.userHandle, !Bytes.constantTimeEqual(userHandle, owner) {
            throw WebAuthnError(.userHandleMismatch, "the response's userHandle does not belong to the credential's owner")
        }
        if ceremony.allowedCredentialIDs.isEmpty && userHandle == nil {
            throw WebAuthnError(.userHandleMismatch, "a discoverable login must return a userHandle; the response has none")
        }
        // Steps 11-16: client data.
        let clientData = try CollectedClientData(bytes: response.response.clientDataJSON.bytes)
        let origin = try CeremonySteps.checkClientData(
            clientData, acceptedTypes: ceremony.acceptedClientDataTypes, challenge: ceremony.challenge, policy: policy
        )
        let authenticatorData = try AuthenticatorData(bytes: response.response.authenticatorData.bytes)
        // Step 17.
        let relyingPartyID = try CeremonySteps.checkRelyingPartyIDHash(authenticatorData, allowed: relyingPartyIDHashes)
        // Steps 18-20.
        try CeremonySteps.checkFlags(
            authenticatorData.flags,
            requiresUserPresence: ceremony.requiresUserPresence,
            userVerification: ceremony.userVerification
        )
        // Step 21: BE is fixed at registration; BS may change.
        if let eligible = credential.isBackupEligible, eligible != authenticatorData.flags.isBackupEligible {
            throw WebAuthnError(
                .backupStateInvalid,
                "BE is \(authenticatorData.flags.isBackupEligible ? "set" : "clear") but was \(eligible ? "set" : "clear") at registration"
            )
        }
        // Steps 23-24: the signature over authenticatorData || SHA-256(clientDataJSON).
        let clientDataHash = CeremonySteps.clientDataHash(clientData)
        guard credential.publicKey.isValidSignature(
            response.response.signature.bytes,
            over: [authenticatorData.rawBytes[...], clientDataHash[...]]
        ) else {
            throw WebAuthnError(.badSignature, "the assertion signature does not verify with the credential's \(credential.publicKey.algorithm) key")
        }
        // Step 25: the counter.
        let status = try signCountStatus(stored: credential.signCount, received: authenticatorData.signCount)
        return VerifiedAuthentication(
            credentialID: credentialID,
            userHandle: userHandle,
            signCount: max(authenticatorData.signCount, credential.signCount),
            signCountStatus: status,
            flags: authenticatorData.flags,
            relyingPartyID: relyingPartyID,
            origin: origin,
            topOrigin: clientData.topOrigin,
            authenticatorExtensions: authenticatorData.extensions
        )
    }

    /// 0 on both sides means the authenticator keeps no counter; otherwise the received
    /// counter must be greater than the stored one (a drop back to 0 is a regression).
    private func signCountStatus(stored: UInt32, received: UInt32) throws(WebAuthnError) -> SignCountStatus {
        if stored == 0 && received == 0 { return .notSupported }
        if received > stored { return .increased }
        if policy.signCountPolicy == .reject {
            throw WebAuthnError(.signCountRegressed, "the signature counter is \(received), not greater than the stored \(stored)")
        }
        return .regressed(stored: stored, received: received)
    }
}
