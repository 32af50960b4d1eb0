public import Foundation
public import WebAuthn

/// How passkey ceremonies are offered.
public struct PasskeyConfiguration: Sendable {
    /// The RP ID passkeys are scoped to.
    public var relyingPartyID: String
    /// The name shown by some authenticators.
    public var relyingPartyName: String
    /// How long a ceremony handle lives.
    public var ceremonyLifetime: TimeInterval
    /// The identifier kinds accepted at sign-up.
    public var signupIdentifiers: Set<ProfileValidation.IdentifierKind>
    /// The creation options' `attestation`: `direct` when registrations must be judged by
    /// their attestation (browsers strip it, and zero the AAGUID, under the default `none`);
    /// `nil` leaves the member out.
    public var attestationConveyance: String?
    /// The policy of an application without one of its own (the global `passkeys:`): user
    /// verification, algorithms, hints and the passkeys accepted.
    public var defaultPolicy: PasskeyPolicy
    /// Each application's own policy (`clients[].passkeys`), by client ID, with the keys it
    /// leaves out taken from ``defaultPolicy``.
    public var clientPolicies: [String: PasskeyPolicy]

    public init(
        relyingPartyID: String,
        relyingPartyName: String,
        ceremonyLifetime: TimeInterval = 300,
        signupIdentifiers: Set<ProfileValidation.IdentifierKind> = Set(ProfileValidation.IdentifierKind.allCases),
        attestationConveyance: String? = nil,
        defaultPolicy: PasskeyPolicy = PasskeyPolicy(),
        clientPolicies: [String: PasskeyPolicy] = [:]
    ) {
        self.defaultPolicy = defaultPolicy
        self.clientPolicies = clientPolicies
        self.relyingPartyID = relyingPartyID
        self.relyingPartyName = relyingPartyName
        self.ceremonyLifetime = ceremonyLifetime
        self.signupIdentifiers = signupIdentifiers
        self.attestationConveyance = attestationConveyance
    }

    /// The policy of the application `clientID`.
    public func policy(for clientID: String) -> PasskeyPolicy { clientPolicies[clientID] ?? defaultPolicy }
}

/// Creation options and the handle that names the ceremony.
public struct CreationChallenge: Sendable, Hashable {
    /// The options for `navigator.credentials.create()` and its platform equivalents.
    public let options: PublicKeyCredentialCreationOptionsJSON
    /// The ceremony's opaque identifier.
    public let authSession: String
}

/// Request options and the handle that names the ceremony.
public struct RequestChallenge: Sendable, Hashable {
    /// The options for `navigator.credentials.get()` and its platform equivalents.
    public let options: PublicKeyCredentialRequestOptionsJSON
    /// The ceremony's opaque identifier.
    public let authSession: String
}
