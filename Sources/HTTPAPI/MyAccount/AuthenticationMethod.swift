import Foundation
import IdentityCore
import WebAuthn

/// A passkey as the My Account API lists it.
struct AuthenticationMethodBody: Encodable {
    let id: String
    let type: String
    /// The user's name for it, else the provider's name, else "Passkey".
    let name: String
    /// The passkey provider named by the AAGUID, when listed.
    let provider_name: String?
    let credential_device_type: String
    let credential_backed_up: Bool
    let identity_user_id: String
    let key_id: String
    let public_key: String
    let transports: [String]
    let user_handle: String
    let aaguid: String
    let relying_party_id: String
    let usage: [String]
    let created_at: String
    let last_auth_at: String?
    /// Whether a signature counter has ever gone backwards (a possible clone).
    let sign_count_regressed: Bool
    /// The attestation format and whether it chained to a trust anchor.
    let attestation_format: String
    let attestation_trusted: Bool

    init(_ credential: PasskeyCredential, user: User, names: AuthenticatorNames) {
        let provider = names.entry(for: credential.aaguid)?.name
        id = credential.methodID
        type = "passkey"
        name = names.displayName(of: credential)
        provider_name = provider
        credential_device_type = credential.isBackupEligible ? "multi_device" : "single_device"
        credential_backed_up = credential.isBackedUp
        identity_user_id = user.id.rawValue
        key_id = Base64URL.encode(credential.credentialID)
        public_key = Base64URL.encode(credential.publicKey)
        transports = credential.transports
        user_handle = Base64URL.encode(user.userHandle)
        aaguid = credential.aaguid.uuidString
        relying_party_id = credential.relyingPartyID
        usage = ["primary"]
        created_at = Self.timestamp(credential.createdAt)
        last_auth_at = credential.lastUsedAt.map(Self.timestamp)
        sign_count_regressed = credential.hasSignCountRegressed
        attestation_format = credential.attestationFormat
        attestation_trusted = credential.isAttestationTrusted
    }

    /// RFC 3339 with milliseconds, as Auth0 writes timestamps.
    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}

/// The account's password as the My Account API lists it.
struct PasswordMethodBody: Encodable {
    let id: String
    let type = "password"
    let created_at: String
    let last_auth_at: String?

    init(_ record: PasswordRecord) {
        id = record.methodID
        created_at = AuthenticationMethodBody.timestamp(record.createdAt)
        last_auth_at = record.lastUsedAt.map(AuthenticationMethodBody.timestamp)
    }
}

/// One entry of the list: a passkey or the password.
enum MethodBody: Encodable {
    case passkey(AuthenticationMethodBody)
    case password(PasswordMethodBody)

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .passkey(let body): try body.encode(to: encoder)
        case .password(let body): try body.encode(to: encoder)
        }
    }
}

struct AuthenticationMethodList: Encodable {
    let authentication_methods: [MethodBody]
}

/// `POST /me/v1/authentication-methods` body.
struct CreateMethodRequest: Decodable {
    let type: String?
    /// `conditional` for an automatic passkey upgrade right after a password sign-in.
    let mediation: String?
    let connection: String?
    let identity_user_id: String?
}

/// `POST /me/v1/authentication-methods/passkey|new/verify` body.
struct VerifyMethodRequest: Decodable {
    let auth_session: String?
    let authn_response: RegistrationResponseJSON?
}

/// `PATCH /me/v1/authentication-methods/{id}` body.
struct UpdateMethodRequest: Decodable {
    let name: String?
}

/// The enrollment challenge.
struct EnrollmentChallengeBody: Encodable {
    let auth_session: String
    let authn_params_public_key: PublicKeyCredentialCreationOptionsJSON
}
