public import Foundation
public import LatchkeyWire
import WebAuthn

/// A user's stable identifier, used as the `sub` claim. Random, never derived from
/// personal data.
public struct UserID: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The identifier text.
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    /// A new user's ID: 16 random bytes, base64url, carrying RFC 9562's version 4 and
    /// variant bits, so that the faces that print it as a UUID (Kratos's identity ID) print
    /// one that strict validators (npm `uuid.validate`, pydantic's `UUID4`) accept. The
    /// first byte is nudged so that the ID never begins with "-", which a command line would
    /// read as an option (`latchkey admin users show ID`); the ID keeps 121 random bits.
    public static func new(randomBytes bytes: [UInt8]) -> UserID {
        var bytes = bytes
        if bytes.count == 16 {
            bytes[6] = (bytes[6] & 0x0F) | 0x40
            bytes[8] = (bytes[8] & 0x3F) | 0x80
        }
        // The first character is the top six bits of the first byte; 62 is "-".
        if let first = bytes.first, first >> 2 == 62 { bytes[0] = first ^ 0x80 }
        return UserID(rawValue: Base64URL.encode(bytes))
    }
}

/// A person's profile: the identifiers an account is found by and the names they gave.
/// One type with the Authentication API's `user_profile` (``SignupProfile``), which
/// ``ProfileValidation`` validates (email lowercased, phone number in E.164, username
/// lowercased) before it is stored.
public typealias UserProfile = SignupProfile

extension SignupProfile {
    /// The identifiers present, in precedence order: email, then phone number, then username.
    public var identifiers: [Identifier] {
        [email.map(Identifier.email), phoneNumber.map(Identifier.phoneNumber), username.map(Identifier.username)].compactMap { $0 }
    }
}

/// One way to name an account.
public enum Identifier: Sendable, Hashable {
    /// An email address (normalized).
    case email(String)
    /// A phone number in E.164 form.
    case phoneNumber(String)
    /// A username (normalized).
    case username(String)

    /// The identifier's text.
    public var value: String {
        switch self {
        case .email(let value), .phoneNumber(let value), .username(let value): return value
        }
    }

    /// Which kind of identifier this is.
    public var kind: ProfileValidation.IdentifierKind {
        switch self {
        case .email: return .email
        case .phoneNumber: return .phoneNumber
        case .username: return .username
        }
    }
}

/// An account.
public struct User: Sendable, Hashable, Codable {
    /// The stable identifier (`sub`).
    public let id: UserID
    /// The WebAuthn user handle: 32 random bytes, unrelated to any identifier.
    public let userHandle: [UInt8]
    public var profile: UserProfile
    /// When the account was created.
    public let createdAt: Date
    /// When the profile last changed.
    public var updatedAt: Date
    /// When the person proved the email address is theirs (a code sent to it came back);
    /// `nil` while it is unverified. A new address starts unverified.
    public var emailVerifiedAt: Date?
    /// When the phone number was verified; `nil` while it is unverified.
    public var phoneNumberVerifiedAt: Date?
    /// When an administrator turned the account off; `nil` while it is on. A disabled
    /// account cannot sign in or recover anywhere, and its sessions ended when it was disabled.
    public var disabledAt: Date?
    /// The account's ID at the identity server it was imported from, where the source's own
    /// ID could not be kept as ``id`` (an Auth0 `user_id`, such as `auth0|5f7c…`): the Admin
    /// API and tokens show it as `external_id`, so apps that stored the old ID still match.
    public var externalID: String?
    /// What an application kept about the account at the identity server it was imported
    /// from (Kratos's `metadata_public`, Auth0's `app_metadata`, Keycloak's `attributes`), as
    /// the text of one JSON object; the Admin API shows it as `metadata` and the Kratos face
    /// as `metadata_public`. The person cannot change it.
    public var metadata: String?

    public init(
        id: UserID, userHandle: [UInt8], profile: UserProfile, createdAt: Date, updatedAt: Date, emailVerifiedAt: Date? = nil,
        phoneNumberVerifiedAt: Date? = nil, disabledAt: Date? = nil, externalID: String? = nil, metadata: String? = nil
    ) {
        self.disabledAt = disabledAt
        self.externalID = externalID
        self.metadata = metadata
        self.id = id
        self.userHandle = userHandle
        self.profile = profile
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.emailVerifiedAt = emailVerifiedAt
        self.phoneNumberVerifiedAt = phoneNumberVerifiedAt
    }

    /// Whether an administrator turned the account off.
    public var isDisabled: Bool { disabledAt != nil }

    /// Whether the email address is verified.
    public var isEmailVerified: Bool { profile.email != nil && emailVerifiedAt != nil }

    /// The account name shown in passkey pickers: the highest-precedence identifier.
    public var accountName: String { profile.identifiers.first?.value ?? id.rawValue }

    /// The friendly name: the profile name, else the account name.
    public var displayName: String { profile.name ?? accountName }
}
