import CBOR

/// The one error type of the `WebAuthn` module.
///
/// Every failure carries a stable ``code`` that callers and tests match on, and a
/// ``reason`` that says which check failed, what was expected and what was received.
/// Equality and hashing consider only the code.
///
/// Reasons may name values taken from the response (origins, RP ID hashes, formats), which
/// are public by nature; they never contain key material or secrets of the relying party.
public struct WebAuthnError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The stable kind of a verification failure, written in snake_case on the wire.
    public struct Code: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
        /// The stable name.
        public let rawValue: String

        public init(stringLiteral rawValue: String) { self.rawValue = rawValue }

        public var description: String { rawValue }

        // Encoding and structure.
        /// A base64url field, the JSON envelope or a required member is malformed or missing.
        public static let malformedResponse: Code = "malformed_response"
        /// A CBOR structure (attestation object, COSE key, extensions) is not well formed.
        public static let malformedCBOR: Code = "malformed_cbor"
        /// Authenticator data is truncated, has trailing bytes or contradicts its flags.
        public static let malformedAuthenticatorData: Code = "malformed_authenticator_data"
        /// clientDataJSON is not a JSON object with the required members.
        public static let malformedClientData: Code = "malformed_client_data"
        /// A COSE public key is malformed, inconsistent or not on its curve.
        public static let malformedPublicKey: Code = "malformed_public_key"

        // Client data.
        /// clientDataJSON `type` is not the one this ceremony expects.
        public static let clientDataTypeMismatch: Code = "client_data_type_mismatch"
        /// The challenge in clientDataJSON is not the one the relying party issued.
        public static let challengeMismatch: Code = "challenge_mismatch"
        /// The origin in clientDataJSON is not allowed.
        public static let originNotAllowed: Code = "origin_not_allowed"
        /// clientDataJSON names an Android package that is not configured for its app origin.
        public static let androidPackageNotAllowed: Code = "android_package_not_allowed"
        /// The ceremony ran in a cross-origin iframe, or named a top origin, that policy forbids.
        public static let crossOriginNotAllowed: Code = "cross_origin_not_allowed"
        /// The token binding member has a status the specification does not define.
        public static let tokenBindingInvalid: Code = "token_binding_invalid"

        // Authenticator data.
        /// The RP ID hash is not the hash of any allowed RP ID.
        public static let rpIDHashMismatch: Code = "rp_id_hash_mismatch"
        /// The UP flag is not set and the ceremony requires user presence.
        public static let userPresenceRequired: Code = "user_presence_required"
        /// The UV flag is not set and the ceremony requires user verification.
        public static let userVerificationRequired: Code = "user_verification_required"
        /// BS is set without BE, or BE differs from the stored credential's.
        public static let backupStateInvalid: Code = "backup_state_invalid"

        // Credentials and algorithms.
        /// The credential's algorithm was not among those the relying party requested.
        public static let algorithmNotAllowed: Code = "algorithm_not_allowed"
        /// The algorithm or key type is not supported by this verifier.
        public static let unsupportedAlgorithm: Code = "unsupported_algorithm"
        /// The RSA key is smaller than the configured minimum.
        public static let weakKey: Code = "weak_key"
        /// `id`, `rawId` and the attested credential ID disagree.
        public static let credentialIDMismatch: Code = "credential_id_mismatch"
        /// The credential ID is empty, longer than 1023 bytes, or (at registration) shorter
        /// than 16 bytes.
        public static let credentialIDLength: Code = "credential_id_length"
        /// The assertion used a credential the relying party did not allow.
        public static let credentialNotAllowed: Code = "credential_not_allowed"
        /// The user handle is missing or does not belong to the credential's owner.
        public static let userHandleMismatch: Code = "user_handle_mismatch"

        // Attestation.
        /// The attestation format is not one this verifier knows.
        public static let unsupportedAttestationFormat: Code = "unsupported_attestation_format"
        /// The attestation statement is malformed or its checks fail.
        public static let attestationInvalid: Code = "attestation_invalid"
        /// The attestation is valid but does not chain to a configured trust anchor.
        public static let attestationUntrusted: Code = "attestation_untrusted"
        /// A certificate in the attestation chain is revoked.
        public static let certificateRevoked: Code = "certificate_revoked"
        /// A FIDO metadata BLOB fails a check: signature, certificate path, serial or dates.
        public static let metadataInvalid: Code = "metadata_invalid"

        // Registration policy.
        /// The authenticator model's latest FIDO metadata status is one the relying party refuses.
        public static let authenticatorStatusRefused: Code = "authenticator_status_refused"
        /// The authenticator's AAGUID is not on the relying party's allow list.
        public static let aaguidNotAllowed: Code = "aaguid_not_allowed"
        /// The authenticator's AAGUID is on the relying party's deny list.
        public static let aaguidDenied: Code = "aaguid_denied"
        /// The credential is backup eligible (a synced passkey) and policy requires device-bound ones.
        public static let deviceBoundRequired: Code = "device_bound_required"
        /// The application's passkey policy does not accept this passkey (its kind, model
        /// or algorithm), at registration or at sign-in.
        public static let passkeyNotAllowed: Code = "passkey_not_allowed"

        // Signatures and counters.
        /// A signature does not verify.
        public static let badSignature: Code = "bad_signature"
        /// The signature counter did not increase.
        public static let signCountRegressed: Code = "sign_count_regressed"
    }

    /// The stable kind of failure.
    public let code: Code
    /// Which check failed and why, with the expected and received values where useful.
    public let reason: String
    /// The source file that raised the error, for debugging.
    public let file: String
    /// The source line that raised the error, for debugging.
    public let line: UInt

    @inline(never)
    public init(_ code: Code, _ reason: String, file: String = #fileID, line: UInt = #line) {
        self.code = code
        self.reason = reason
        self.file = file
        self.line = line
    }

    public var description: String { "\(code): \(reason)" }

    public static func == (lhs: WebAuthnError, rhs: WebAuthnError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

extension WebAuthnError {
    /// Wraps a CBOR decoding failure of the named structure.
    static func cbor(_ error: CBORError, in structure: String, file: String = #fileID, line: UInt = #line) -> WebAuthnError {
        WebAuthnError(.malformedCBOR, "\(structure): \(error)", file: file, line: line)
    }
}
