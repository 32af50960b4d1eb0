/// Which authenticators a relying party accepts at registration, beyond the ceremony's own
/// checks. Enforced by the pipeline, never left to the client.
public struct RegistrationPolicy: Sendable, Hashable {
    /// When set, only these authenticator models may register (`allowed_aaguids`).
    ///
    /// An AAGUID is only as reliable as the attestation that carries it: combine the list
    /// with a trusted-attestation requirement to make it binding.
    public var allowedAAGUIDs: Set<AAGUID>?
    /// Authenticator models that may not register (`denied_aaguids`).
    public var deniedAAGUIDs: Set<AAGUID>
    /// Refuse backup-eligible (synced) credentials (`require_device_bound`).
    public var requiresDeviceBound: Bool

    /// Creates a policy; the default accepts every authenticator.
    public init(allowedAAGUIDs: Set<AAGUID>? = nil, deniedAAGUIDs: Set<AAGUID> = [], requiresDeviceBound: Bool = false) {
        self.allowedAAGUIDs = allowedAAGUIDs
        self.deniedAAGUIDs = deniedAAGUIDs
        self.requiresDeviceBound = requiresDeviceBound
    }

    /// Checks a new credential's model and flags; each refusal names its rule.
    func check(aaguid: AAGUID, flags: AuthenticatorFlags) throws(WebAuthnError) {
        if requiresDeviceBound && flags.isBackupEligible {
            throw WebAuthnError(
                .deviceBoundRequired,
                "the credential is backup eligible (a synced passkey); policy require_device_bound accepts only device-bound credentials"
            )
        }
        if deniedAAGUIDs.contains(aaguid) {
            throw WebAuthnError(.aaguidDenied, "authenticator model \(aaguid.uuidString) is on the relying party's denied_aaguids list")
        }
        if let allowedAAGUIDs, !allowedAAGUIDs.contains(aaguid) {
            throw WebAuthnError(.aaguidNotAllowed, "authenticator model \(aaguid.uuidString) is not on the relying party's allowed_aaguids list")
        }
    }
}
