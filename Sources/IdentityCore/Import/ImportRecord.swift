public import Foundation
public import WebAuthn

/// One account as an export file describes it, read but not yet checked: what every
/// source format (``KratosIdentityFile``, ``KeycloakRealmFile``, ``Auth0UserFile``) turns its
/// records into. Only those readers make them.
public struct ImportRecord: Sendable, Hashable {
    /// The account's ID in the source, which makes a second import change nothing.
    public var sourceID: String
    /// The ID to keep where a face shows IDs (a Kratos identity's UUID); a new one otherwise.
    public var userID: UserID?
    /// The source's ID for the account where it cannot be ``userID`` (an Auth0 `user_id`),
    /// shown as `external_id` so that apps that stored it still match.
    public var externalID: String?
    /// What an application kept about the account (Kratos's `metadata_public`, Auth0's
    /// `app_metadata`, Keycloak's `attributes`), as the text of one JSON object.
    public var metadata: String?
    /// Identifiers and names, as the source wrote them (checked and normalized on import).
    public var profile: UserProfile
    /// Whether the source had verified the email address.
    public var isEmailVerified = false
    /// Whether the source had turned the account off.
    public var isDisabled = false
    /// When the source created the account.
    public var createdAt: Date?
    /// The WebAuthn user handle its passkeys were registered under; their discoverable
    /// sign-ins name the account by it.
    public var userHandle: [UInt8]?
    /// Its passkeys.
    public var passkeys: [ImportedPasskey] = []
    /// Its password hash, when the source had one in a form this build verifies.
    public var passwordHash: String?
    /// What was left behind while reading it (an unsupported hash form, say), for the report.
    public var notes: [String] = []
}

/// A passkey as a source kept it: enough to verify its assertions here. Only the format
/// readers make them.
public struct ImportedPasskey: Sendable, Hashable {
    public var credentialID: [UInt8]
    /// The COSE_Key the authenticator registered.
    public var publicKey: [UInt8]
    /// The last signature counter seen; a lower one later is the usual clone signal.
    public var signCount: UInt32 = 0
    public var transports: [String] = []
    public var aaguid: AAGUID = .zero
    public var isBackupEligible = false
    public var isBackedUp = false
    /// The RP ID it was registered for, when the source says.
    public var relyingPartyID: String?
    /// The name the person gave it.
    public var name: String?
    public var createdAt: Date?
}

/// A record a file holds that could not be read as an account: its position, the source
/// ID when it could be read, and why.
public struct UnreadableRecord: Error, Sendable, Hashable {
    /// The record's position in the file, from 1.
    public let position: Int
    public let sourceID: String?
    public let reason: String
}
