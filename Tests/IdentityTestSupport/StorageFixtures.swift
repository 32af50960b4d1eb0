public import Foundation
public import IdentityCore
public import WebAuthn

/// Valid model values for storage tests, each named by a short label so that tests read as
/// "alice's credential 1". Times are whole seconds after ``epoch`` so that they survive
/// every backend's date encoding exactly.
public enum StorageFixtures {
    /// The instant tests count from.
    public static let epoch = Date(timeIntervalSince1970: 1_700_000_000)

    /// `seconds` after ``epoch``.
    public static func time(_ seconds: TimeInterval) -> Date {
        epoch.addingTimeInterval(seconds)
    }

    /// A user with every profile field set, derived from `label`.
    public static func user(
        _ label: String,
        email: String? = nil,
        phoneNumber: String? = nil,
        username: String? = nil,
        userHandle: [UInt8]? = nil
    ) -> User {
        User(
            id: UserID(rawValue: "user-\(label)"),
            userHandle: userHandle ?? Array("handle-\(label)".utf8),
            profile: UserProfile(
                email: email ?? "\(label)@example.com",
                phoneNumber: phoneNumber,
                username: username ?? label,
                name: "\(label.capitalized) Example",
                givenName: label.capitalized,
                familyName: "Example",
                nickname: "\(label)y",
                picture: "https://example.com/\(label).png"
            ),
            createdAt: time(0),
            updatedAt: time(1)
        )
    }

    /// A credential of `userID` with every field set; its ID is derived from `label`.
    public static func credential(
        _ label: String,
        userID: UserID,
        name: String? = nil,
        createdAt: Date = StorageFixtures.time(0),
        aaguid: AAGUID = AAGUID(uuidString: "ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4") ?? .zero
    ) -> PasskeyCredential {
        PasskeyCredential(
            credentialID: credentialID(label),
            userID: userID,
            publicKey: Array("cose-key-\(label)".utf8),
            algorithm: .es256,
            signCount: 7,
            isBackupEligible: true,
            isBackedUp: false,
            isUserVerified: false,
            transports: ["internal", "hybrid"],
            aaguid: aaguid,
            attestationFormat: "none",
            isAttestationTrusted: false,
            attestationMetadata: MetadataMatch(entry: "aaguid \(aaguid.uuidString)", description: "Fixture Key \(label)", status: "FIDO_CERTIFIED_L1"),
            relyingPartyID: "example.com",
            name: name,
            createdAt: createdAt,
            lastUsedAt: nil,
            hasSignCountRegressed: false,
            origin: "https://example.com"
        )
    }

    /// The credential ID ``credential(_:userID:name:createdAt:)`` uses for `label`: bytes
    /// that include a zero and values above 0x7F, which text-based encodings get wrong.
    public static func credentialID(_ label: String) -> [UInt8] {
        [0x00, 0xFF, 0x80] + Array(label.utf8)
    }

    /// A ceremony key that expires `expiresIn` seconds after the epoch; its random part is
    /// derived from `label` (FNV-1a), so labels name distinct keys.
    public static func ceremonyKey(_ label: String, expiresIn: TimeInterval = 300) -> CeremonyKey {
        let hash = label.utf8.reduce(UInt64(0xcbf2_9ce4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
        return CeremonyKey(expiresAt: time(expiresIn), random: (0..<8).map { UInt8(truncatingIfNeeded: hash >> (8 * UInt64($0))) })
    }

    /// A refresh token record whose hash is derived from `label`.
    public static func refreshToken(
        _ label: String,
        familyID: String,
        userID: UserID,
        clientID: String = "client-a",
        issuedAt: Date = StorageFixtures.time(0),
        expiresIn: TimeInterval = 3600
    ) -> RefreshTokenRecord {
        RefreshTokenRecord(
            tokenHash: tokenHash(label),
            familyID: familyID,
            userID: userID,
            clientID: clientID,
            scopes: ["openid", "offline_access"],
            audience: "https://api.example.com",
            authenticatedAt: time(-5),
            userVerified: true,
            issuedAt: issuedAt,
            expiresAt: issuedAt.addingTimeInterval(expiresIn)
        )
    }

    /// The token hash ``refreshToken(_:familyID:userID:clientID:issuedAt:expiresIn:)`` uses
    /// for `label`.
    public static func tokenHash(_ label: String) -> [UInt8] {
        [0x00, 0xAB] + Array("hash-\(label)".utf8)
    }
}
