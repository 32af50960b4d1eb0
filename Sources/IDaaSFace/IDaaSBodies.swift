import FaceFrame
import Foundation
import IdentityCore
import WebAuthn

// The IDaaS wire shapes, named as Entrust's Administration and Authentication API schemas
// name them. Requests are decoded leniently (unknown members ignored, `null` as absent);
// responses carry every member the schemas mark required.

/// `POST /api/web/v1/adminapi/authenticate`'s body.
struct IDaaSAdminAuthenticateRequest: Decodable {
    let applicationId, sharedSecret: String
    let enableWebSession: Bool?
}

/// What an administration application gets back.
struct IDaaSAdminAuthenticateResponse: Encodable {
    let authToken, creationTime, expirationTime: String
}

/// `POST /api/web/v3/users/userid`'s body.
struct IDaaSUserLookupRequest: Decodable {
    let userId: String
}

/// A user as the Administration API returns one: the same account as in every face.
struct IDaaSUser: Encodable {
    let id, userId: String
    let email, phone, firstName, lastName: String?
    let state, created, lastModified: String

    init(_ user: User) {
        id = user.id.uuid
        userId = user.accountName
        email = user.profile.email
        phone = user.profile.phoneNumber
        firstName = user.profile.givenName
        lastName = user.profile.familyName
        state = "ACTIVE"
        created = WireTime.text(user.createdAt)
        lastModified = WireTime.text(user.updatedAt)
    }
}

/// `FIDORegisterChallenge`: what a client needs to build creation options itself. Every
/// binary value is base64url, which both Android's Credential Manager JSON and the iOS
/// sample's `base64UrlToBase64` read.
struct IDaaSFIDORegisterChallenge: Encodable {
    let challenge, rpName, userId, userName: String
    let userDisplayName: String
    let registeredCredentials, registeredCredentialsNames: [String]
    let registrationAuthenticatorAttachment, registrationRequireResidentKey: String
    let registrationUserVerification, attestation: String
    let timeout, timeoutMillis: UInt32

    init(_ started: CreationChallenge, existing: [PasskeyCredential], names: AuthenticatorNames) {
        let options = started.options
        challenge = options.challenge.base64URL
        rpName = options.rp.name
        userId = options.user.id.base64URL
        userName = options.user.name
        userDisplayName = options.user.displayName
        registeredCredentials = existing.map { Base64URL.encode($0.credentialID) }
        registeredCredentialsNames = existing.map { $0.name ?? names.displayName(of: $0) }
        // IDaaS's shape has no hints; its attachment says what the policy's first hint does.
        let attachment = options.authenticatorSelection?.authenticatorAttachment ?? options.hints?.first.flatMap { hint in
            switch hint {
            case "client-device": "platform"
            case "security-key", "hybrid": "cross-platform"
            default: nil
            }
        }
        registrationAuthenticatorAttachment = attachment == "platform" ? "PLATFORM" : attachment == "cross-platform" ? "CROSS_PLATFORM" : "EITHER"
        registrationRequireResidentKey = (options.authenticatorSelection?.residentKey ?? "discouraged").uppercased()
        registrationUserVerification = (options.authenticatorSelection?.userVerification ?? "preferred").uppercased()
        attestation = (options.attestation ?? "none").uppercased()
        timeoutMillis = options.timeout ?? 60000
        timeout = timeoutMillis / 1000
    }
}

/// `FIDORegisterResponse`: a finished registration, without the credential envelope.
struct IDaaSFIDORegisterResponse: Decodable {
    let attestationObject, clientDataJSON: Base64URLBytes
    let name: String?
    let userIdStored: Bool?
    let rpId: String?
    let transports: [String]?

    private enum CodingKeys: String, CodingKey {
        case attestationObject, clientDataJSON, clientDataJson, name, userIdStored, rpId, transports
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        attestationObject = try container.decode(Base64URLBytes.self, forKey: .attestationObject)
        // Some clients write the member `clientDataJson`.
        clientDataJSON = try container.decodeIfPresent(Base64URLBytes.self, forKey: .clientDataJSON)
            ?? container.decode(Base64URLBytes.self, forKey: .clientDataJson)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        userIdStored = try container.decodeIfPresent(Bool.self, forKey: .userIdStored)
        rpId = try container.decodeIfPresent(String.self, forKey: .rpId)
        transports = try container.decodeIfPresent([String].self, forKey: .transports)
    }
}

/// `FIDOToken`: a registered passkey as IDaaS lists it.
struct IDaaSFIDOToken: Encodable {
    let id, name, state, userId: String
    let userUUID, createDate: String
    let lastUsedDate, origin: String?
    let relyingPartyId: String
    let userIdStored, userPresent, userVerified, backupEligible: Bool
    let backupStatus: Bool
    let aaguid: String
    let aaguidVerified: Bool
    let authenticatorModel, icon: String?
    let algorithm, attestationFormat: String
    let attestedData: Bool
    let allowedActions: [String]

    init(_ credential: PasskeyCredential, user: User, names: AuthenticatorNames) {
        let entry = names.entry(for: credential.aaguid)
        id = credential.recordID
        name = credential.name ?? names.displayName(of: credential)
        state = credential.isDisabled ? "INACTIVE" : "ACTIVE"
        userId = user.accountName
        userUUID = user.id.uuid
        createDate = WireTime.text(credential.createdAt)
        lastUsedDate = credential.lastUsedAt.map(WireTime.text)
        origin = credential.origin
        relyingPartyId = credential.relyingPartyID
        // Latchkey asks for discoverable credentials only.
        userIdStored = true
        userPresent = true
        userVerified = credential.isUserVerified
        backupEligible = credential.isBackupEligible
        backupStatus = credential.isBackedUp
        aaguid = credential.aaguid.uuidString
        aaguidVerified = credential.isAttestationTrusted
        authenticatorModel = entry?.name
        icon = entry?.iconLight
        algorithm = credential.algorithm.name
        attestationFormat = credential.attestationFormat
        attestedData = true
        allowedActions = ["DELETE", credential.isDisabled ? "ENABLE" : "DISABLE", "RENAME"]
    }
}

/// `FIDOTokenParms`: a rename and/or a state change.
struct IDaaSFIDOTokenParms: Decodable {
    let name, state: String?
}

/// `UserChallengeParameters`: the start of a sign-in.
struct IDaaSUserChallengeParameters: Decodable {
    let applicationId: String
    let userId, rpId, origin, secondFactorAuthenticator: String?
}

/// `fidoChallenge`: what `navigator.credentials.get()` and its platform equivalents need.
struct IDaaSFIDOChallenge: Encodable {
    let challenge: String
    let allowCredentials: [String]?
    let timeout, timeoutMillis: UInt32
}

/// `AuthenticatedResponse`.
struct IDaaSAuthenticatedResponse: Encodable {
    let authenticationCompleted: Bool
    let token: String
    var fidoChallenge: IDaaSFIDOChallenge?
    let expires, time: Int64
    var userId, id, firstName, lastName: String?
    var userRegistrationRequired, userVerificationRequired: Bool?
}

/// `UserAuthenticateParameters`: the end of a sign-in.
struct IDaaSUserAuthenticateParameters: Decodable {
    let applicationId: String
    let userId, rpId: String?
    let fidoResponse: IDaaSFIDOResponse?
    let cancel: Bool?
}

/// `FIDOResponse`: an assertion, flat. Base64 or base64url; an empty `userHandle` or
/// `credentialId` counts as absent.
struct IDaaSFIDOResponse: Decodable {
    let authenticatorData, clientDataJSON: Base64URLBytes
    let credentialId: Base64URLBytes?
    let signature: Base64URLBytes
    let userHandle: Base64URLBytes?

    private enum CodingKeys: String, CodingKey {
        case authenticatorData, clientDataJSON, clientDataJson, credentialId, signature, userHandle
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        authenticatorData = try container.decode(Base64URLBytes.self, forKey: .authenticatorData)
        clientDataJSON = try container.decodeIfPresent(Base64URLBytes.self, forKey: .clientDataJSON)
            ?? container.decode(Base64URLBytes.self, forKey: .clientDataJson)
        signature = try container.decode(Base64URLBytes.self, forKey: .signature)
        credentialId = try container.decodeIfPresent(Base64URLBytes.self, forKey: .credentialId).flatMap { $0.bytes.isEmpty ? nil : $0 }
        userHandle = try container.decodeIfPresent(Base64URLBytes.self, forKey: .userHandle).flatMap { $0.bytes.isEmpty ? nil : $0 }
    }
}
