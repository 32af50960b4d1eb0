import Crypto
public import Foundation
public import WebAuthn

/// A registered passkey: the WebAuthn credential record plus what management needs.
public struct PasskeyCredential: Sendable, Hashable {
    public let credentialID: [UInt8]
    /// The owner.
    public let userID: UserID
    /// The COSE public key as registered.
    public let publicKey: [UInt8]
    /// The algorithm of the key.
    public let algorithm: COSEAlgorithmIdentifier
    /// The last signature counter seen.
    public var signCount: UInt32
    /// BE at registration; fixed for the credential's life.
    public let isBackupEligible: Bool
    /// BS as of the last ceremony.
    public var isBackedUp: Bool
    /// Whether UV has been seen for this credential.
    public var isUserVerified: Bool
    /// Transports the client reported.
    public let transports: [String]
    /// The authenticator model.
    public let aaguid: AAGUID
    /// The attestation statement format.
    public let attestationFormat: String
    /// Whether the attestation chained to a trust anchor.
    public let isAttestationTrusted: Bool
    /// The authenticator model's FIDO metadata entry and its status at registration, when
    /// the metadata named it.
    public let attestationMetadata: MetadataMatch?
    /// The RP ID the credential is scoped to.
    public let relyingPartyID: String
    /// A name the user chose, unique per user.
    public var name: String?
    /// When the credential was registered.
    public let createdAt: Date
    /// When the credential last signed in.
    public var lastUsedAt: Date?
    /// Whether a signature counter has ever failed to increase (a possible clone).
    public var hasSignCountRegressed: Bool
    /// A stable UUID naming this record in APIs that address a passkey by UUID (the IDaaS
    /// face's `fidoid`); unique across all credentials.
    public let recordID: String
    /// Whether an administrator or the user turned this passkey off: it stays registered
    /// (so devices are not asked to create it again) but cannot sign in.
    public var isDisabled: Bool
    /// Whether an administrator turned it off: the owner cannot turn it on again.
    public var isDisabledByAdministrator: Bool
    /// The origin the passkey was registered from, when known.
    public let origin: String?

    /// Without `recordID`, the record ID is derived from the credential ID
    /// (``derivedRecordID(_:)``).
    public init(
        credentialID: [UInt8],
        userID: UserID,
        publicKey: [UInt8],
        algorithm: COSEAlgorithmIdentifier,
        signCount: UInt32,
        isBackupEligible: Bool,
        isBackedUp: Bool,
        isUserVerified: Bool,
        transports: [String],
        aaguid: AAGUID,
        attestationFormat: String,
        isAttestationTrusted: Bool,
        attestationMetadata: MetadataMatch? = nil,
        relyingPartyID: String,
        name: String? = nil,
        createdAt: Date,
        lastUsedAt: Date? = nil,
        hasSignCountRegressed: Bool = false,
        recordID: String? = nil,
        isDisabled: Bool = false,
        isDisabledByAdministrator: Bool = false,
        origin: String? = nil
    ) {
        self.isDisabledByAdministrator = isDisabledByAdministrator
        self.credentialID = credentialID
        self.userID = userID
        self.publicKey = publicKey
        self.algorithm = algorithm
        self.signCount = signCount
        self.isBackupEligible = isBackupEligible
        self.isBackedUp = isBackedUp
        self.isUserVerified = isUserVerified
        self.transports = transports
        self.aaguid = aaguid
        self.attestationFormat = attestationFormat
        self.isAttestationTrusted = isAttestationTrusted
        self.attestationMetadata = attestationMetadata
        self.relyingPartyID = relyingPartyID
        self.name = name
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.hasSignCountRegressed = hasSignCountRegressed
        self.recordID = recordID ?? Self.derivedRecordID(credentialID)
        self.isDisabled = isDisabled
        self.origin = origin
    }

    /// A record ID derived from the credential ID, for records made without one: stable, and
    /// as unique as the credential IDs themselves.
    public static func derivedRecordID(_ credentialID: [UInt8]) -> String {
        var digest = Array(SHA256.hash(data: Array("latchkey-credential-record:".utf8) + credentialID).prefix(16))
        digest[6] = (digest[6] & 0x0F) | 0x80
        digest[8] = (digest[8] & 0x3F) | 0x80
        return UUIDText.format(digest)
    }

    /// The credential's method identifier in the My Account API: `passkey|<base64url id>`.
    public var methodID: String { "passkey|" + Base64URL.encode(credentialID) }
}

/// What a successful login changes on a credential; applied in one place.
public struct CredentialUse: Sendable, Hashable {
    /// The counter to store.
    public let signCount: UInt32
    /// BS as reported now.
    public let isBackedUp: Bool
    /// Whether this ceremony verified the user.
    public let isUserVerified: Bool
    /// When it happened; `nil` when the login was refused (a counter regression under the
    /// reject policy), in which case only the regression flag changes.
    public let usedAt: Date?
    /// Whether the counter failed to increase.
    public let signCountRegressed: Bool

    public init(signCount: UInt32, isBackedUp: Bool, isUserVerified: Bool, usedAt: Date?, signCountRegressed: Bool) {
        self.signCount = signCount
        self.isBackedUp = isBackedUp
        self.isUserVerified = isUserVerified
        self.usedAt = usedAt
        self.signCountRegressed = signCountRegressed
    }
}
