import FaceFrame
import Foundation
import IdentityCore
import LatchkeyWire
import WebAuthn

// My Account's bodies are LatchkeyWire's types, which apps decode; what the server adds is
// filling them from IdentityCore's records.

extension AuthenticationMethod {
    /// A passkey as the My Account API lists it: named by its owner, else by its provider,
    /// else "Passkey".
    init(_ credential: PasskeyCredential, user: User, names: AuthenticatorNames) {
        self.init(
            id: credential.methodID, type: "passkey", name: names.displayName(of: credential),
            providerName: names.entry(for: credential.aaguid)?.name,
            credentialDeviceType: credential.isBackupEligible ? "multi_device" : "single_device",
            credentialBackedUp: credential.isBackedUp, identityUserID: user.id.rawValue,
            keyID: Base64URL.encode(credential.credentialID), publicKey: Base64URL.encode(credential.publicKey),
            transports: credential.transports, userHandle: Base64URL.encode(user.userHandle), aaguid: credential.aaguid.uuidString,
            relyingPartyID: credential.relyingPartyID, usage: ["primary"], createdAt: Self.timestamp(credential.createdAt),
            lastAuthAt: credential.lastUsedAt.map(Self.timestamp), signCountRegressed: credential.hasSignCountRegressed,
            attestationFormat: credential.attestationFormat, attestationTrusted: credential.isAttestationTrusted
        )
    }

    /// The account's password as the My Account API lists it.
    init(_ record: PasswordRecord) {
        self.init(id: record.methodID, type: "password", createdAt: Self.timestamp(record.createdAt), lastAuthAt: record.lastUsedAt.map(Self.timestamp))
    }

    /// RFC 3339 with milliseconds, as Auth0 writes timestamps.
    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}

extension LatchkeyWire.AccountSignals {
    /// `GET /me/v1/signals`, and the `signals` member of responses that change what it holds.
    init(_ signals: IdentityCore.AccountSignals) {
        self.init(
            rpID: signals.relyingPartyID, userID: Base64URL.encode(signals.userHandle),
            allAcceptedCredentialIDs: signals.acceptedCredentialIDs.map(Base64URL.encode), name: signals.name,
            displayName: signals.displayName, unusedPassword: signals.unusedPassword.map { UnusedPassword(domain: $0.domain, username: $0.username) }
        )
    }
}

extension SignalsResponse {
    /// A response that changed what credential managers hold.
    init(_ signals: IdentityCore.AccountSignals) { self.init(signals: LatchkeyWire.AccountSignals(signals)) }
}
