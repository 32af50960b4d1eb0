import Crypto

/// The checks registration and authentication share, each labelled with its step in
/// WebAuthn L3 (§7.1 for registration, §7.2 for authentication).
enum CeremonySteps {
    /// Checks clientDataJSON's type, challenge, origin, cross-origin context and token
    /// binding, and returns the configured origin it matched.
    static func checkClientData(
        _ clientData: CollectedClientData,
        acceptedTypes: [String],
        challenge: [UInt8],
        policy: RelyingPartyPolicy
    ) throws(WebAuthnError) -> String {
        // §7.1 step 9, §7.2 step 13: type.
        guard acceptedTypes.contains(clientData.type) else {
            throw WebAuthnError(
                .clientDataTypeMismatch,
                "clientDataJSON type is \"\(clientData.type.prefix(64))\", expected \(acceptedTypes.map { "\"\($0)\"" }.joined(separator: " or "))"
            )
        }
        // §7.1 step 10, §7.2 step 14: challenge, compared as bytes in constant time.
        guard let received = Base64URL.decode(clientData.challenge), Bytes.constantTimeEqual(received, challenge) else {
            throw WebAuthnError(
                .challengeMismatch,
                "clientDataJSON challenge \"\(clientData.challenge.prefix(128))\" is not the challenge issued for this ceremony"
            )
        }
        // §7.1 step 11, §7.2 step 15: origin.
        guard let origin = policy.origins.match(clientData.origin) else {
            throw WebAuthnError(
                .originNotAllowed,
                "origin \"\(clientData.origin.prefix(256))\" is not allowed; allowed origins come from \(policy.origins.sourceDescription): \(policy.origins.allowed.joined(separator: ", "))"
            )
        }
        // An Android app names itself in androidPackageName (Credential Manager adds it); the
        // app origin only names the signing certificate, so the package must be one of the
        // apps configured with that certificate.
        if let package = clientData.androidPackageName, let packages = policy.origins.androidPackageNames[origin], !packages.contains(package) {
            throw WebAuthnError(
                .androidPackageNotAllowed,
                "androidPackageName \"\(package.prefix(256))\" is not an app configured for origin \(origin); configured: \(packages.sorted().joined(separator: ", "))"
            )
        }
        // §7.1 step 12, §7.2 step 16: cross-origin iframes and topOrigin.
        try checkCrossOrigin(clientData, policy: policy.crossOrigin)
        // WebAuthn L2 §7.1 step 10: token binding status, when given as an object.
        if let status = clientData.tokenBindingStatus, status != "present", status != "supported" {
            throw WebAuthnError(.tokenBindingInvalid, "tokenBinding.status is \"\(status.prefix(32))\", expected \"present\" or \"supported\"")
        }
        return origin
    }

    private static func checkCrossOrigin(_ clientData: CollectedClientData, policy: CrossOriginPolicy) throws(WebAuthnError) {
        let isCrossOrigin = clientData.crossOrigin == true
        if let topOrigin = clientData.topOrigin, !isCrossOrigin {
            throw WebAuthnError(.crossOriginNotAllowed, "topOrigin \"\(topOrigin.prefix(256))\" is present but crossOrigin is not true")
        }
        guard isCrossOrigin else { return }
        switch policy {
        case .forbidden:
            throw WebAuthnError(
                .crossOriginNotAllowed,
                "the ceremony ran in a cross-origin iframe (top origin \(clientData.topOrigin.map { "\"\($0.prefix(256))\"" } ?? "not given")); cross-origin ceremonies are not allowed"
            )
        case .allowed(let topOrigins):
            guard let topOrigins, let topOrigin = clientData.topOrigin else { return }
            guard topOrigins.match(topOrigin) != nil else {
                throw WebAuthnError(
                    .crossOriginNotAllowed,
                    "topOrigin \"\(topOrigin.prefix(256))\" is not allowed to embed this relying party; allowed: \(topOrigins.allowed.joined(separator: ", "))"
                )
            }
        }
    }

    /// §7.1 step 15, §7.2 step 17: the RP ID hash, matched against every allowed RP ID.
    static func checkRelyingPartyIDHash(
        _ authenticatorData: AuthenticatorData,
        allowed: [(relyingPartyID: String, hash: [UInt8])]
    ) throws(WebAuthnError) -> String {
        for candidate in allowed where candidate.hash == authenticatorData.relyingPartyIDHash {
            return candidate.relyingPartyID
        }
        throw WebAuthnError(
            .rpIDHashMismatch,
            "authenticator data rpIdHash \(Bytes.hex(authenticatorData.relyingPartyIDHash)) is not SHA-256 of any allowed RP ID (\(allowed.map(\.relyingPartyID).joined(separator: ", ")))"
        )
    }

    /// SHA-256 of each RP ID, computed once per verifier.
    static func relyingPartyIDHashes(_ ids: [String]) -> [(relyingPartyID: String, hash: [UInt8])] {
        ids.map { ($0, Array(SHA256.hash(data: Array($0.utf8)))) }
    }

    /// §7.1 steps 16-18, §7.2 steps 18-20: UP, UV, and BS only with BE.
    static func checkFlags(_ flags: AuthenticatorFlags, requiresUserPresence: Bool, userVerification: UserVerificationRequirement) throws(WebAuthnError) {
        if requiresUserPresence && !flags.isUserPresent {
            throw WebAuthnError(.userPresenceRequired, "the UP flag is not set; the ceremony requires user presence")
        }
        if userVerification == .required && !flags.isUserVerified {
            throw WebAuthnError(.userVerificationRequired, "the UV flag is not set; the ceremony requires user verification")
        }
        if flags.isBackedUp && !flags.isBackupEligible {
            throw WebAuthnError(.backupStateInvalid, "BS (backed up) is set but BE (backup eligible) is not")
        }
    }

    /// SHA-256 of clientDataJSON's exact bytes (§7.1 step 13, §7.2 step 23).
    static func clientDataHash(_ clientData: CollectedClientData) -> [UInt8] {
        Array(SHA256.hash(data: clientData.rawBytes))
    }

    /// The JSON `id` and `rawId` must name the same credential.
    static func checkCredentialID(id: String, rawId: [UInt8]) throws(WebAuthnError) {
        guard let decoded = Base64URL.decode(id), decoded == rawId else {
            throw WebAuthnError(.credentialIDMismatch, "id \"\(id.prefix(128))\" does not encode rawId \(Base64URL.encode(rawId.prefix(96)))")
        }
    }

    /// A credential ID in an assertion: 1 to 1023 bytes. IDs shorter than 16 bytes are not
    /// refused here: no registration creates them any more, but credentials registered
    /// before that rule keep working, and a short ID that names nothing fails the lookup.
    static func checkCredentialIDLength(_ credentialID: [UInt8]) throws(WebAuthnError) {
        guard !credentialID.isEmpty else {
            throw WebAuthnError(.credentialIDLength, "the credential ID is empty; a credential ID is 1 to \(WebAuthnVerifier.maximumCredentialIDLength) bytes")
        }
        guard credentialID.count <= WebAuthnVerifier.maximumCredentialIDLength else {
            throw WebAuthnError(
                .credentialIDLength,
                "the credential ID is \(credentialID.count) bytes; at most \(WebAuthnVerifier.maximumCredentialIDLength) are allowed"
            )
        }
    }

    /// The credential ID a registration creates.
    ///
    /// - At most 1023 bytes: §7.1 ("Verify that the credentialId is ≤ 1023 bytes").
    /// - At least 16 bytes: §4 (Credential ID) says authenticators generate IDs either as at
    ///   least 16 bytes holding at least 100 bits of entropy, or as an encrypted credential
    ///   source, which is longer still. No conforming authenticator makes a shorter one, and
    ///   none of the corpus's real-device registrations (YubiKeys, Titan, Windows Hello TPMs,
    ///   Apple platform passkeys at 20 bytes, Android) has one below 16. A shorter ID is
    ///   guessable and invites collisions across users, so it is refused rather than stored.
    /// - `rawId` must be the attested credential ID. §5.1.3 has the client build the
    ///   credential's [[identifier]], which `rawId` and `id` return, from
    ///   `attestationObject.authData.attestedCredentialData.credentialId`; a client may strip
    ///   attestation but never rewrites that ID. So a conforming client never sends another
    ///   one, and accepting it would store one ID while the signed data names another.
    ///   The corpus's three "valid" cases with other IDs are no evidence against this:
    ///   SimpleWebAuthn's packed tests ("bbb", "aaa") pass because that library compares
    ///   `id` with `rawId` only, as strings, and returns the authData ID; go-webauthn's Apple
    ///   test calls the format verifier alone, and go-webauthn itself added exactly this
    ///   check to `ParsedCredentialCreationData.Verify` in 2026 (after v0.17.4).
    ///   py_webauthn and java-webauthn-server compare `id` with `rawId` only.
    static func checkRegisteredCredentialID(_ attested: [UInt8], rawId: [UInt8]) throws(WebAuthnError) {
        guard attested.count <= WebAuthnVerifier.maximumCredentialIDLength else {
            throw WebAuthnError(
                .credentialIDLength,
                "the credential ID is \(attested.count) bytes; at most \(WebAuthnVerifier.maximumCredentialIDLength) are allowed"
            )
        }
        guard attested.count >= WebAuthnVerifier.minimumRegisteredCredentialIDLength else {
            throw WebAuthnError(
                .credentialIDLength,
                "the attested credential ID is \(attested.count) bytes; authenticators make IDs of at least \(WebAuthnVerifier.minimumRegisteredCredentialIDLength) bytes"
            )
        }
        guard attested == rawId else {
            throw WebAuthnError(
                .credentialIDMismatch,
                "rawId \(Base64URL.encode(rawId.prefix(96))) is not the attested credential ID \(Base64URL.encode(attested.prefix(96)))"
            )
        }
    }

    static func checkType(_ type: String) throws(WebAuthnError) {
        guard type == "public-key" else {
            throw WebAuthnError(.malformedResponse, "credential type is \"\(type.prefix(32))\", expected \"public-key\"")
        }
    }
}
