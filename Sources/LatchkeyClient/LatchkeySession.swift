public import Foundation
public import LatchkeyWire

/// Who is signed in: returned by ``Latchkey/signUp()``, ``Latchkey/signIn(username:mode:)`` and the other
/// sign-in calls, and kept in the token store.
public struct LatchkeySession: Sendable, Hashable, Codable {
    /// How the person signed in.
    public enum Method: String, Sendable, Hashable, Codable {
        /// With a passkey.
        case passkey
        /// With a password.
        case password
    }

    /// The user ID (`sub`).
    public var userID: String
    /// The email address, when the account has one and `email` was granted.
    public var email: String?
    /// The name, when the account has one and `profile` was granted.
    public var name: String?
    /// How the person signed in.
    public var method: Method
    /// When the person signed in (`auth_time`); refreshing does not move it.
    public var signedInAt: Date

    public init(userID: String, email: String?, name: String?, method: Method, signedInAt: Date) {
        self.userID = userID
        self.email = email
        self.name = name
        self.method = method
        self.signedInAt = signedInAt
    }
}

/// A passkey of the signed-in account.
public struct LatchkeyPasskey: Sendable, Hashable, Identifiable {
    /// The My Account method ID (`passkey|…`), what ``Latchkey/removePasskey(id:)`` takes.
    public var id: String
    /// The person's name for it, else its provider's.
    public var name: String
    /// The provider named by its AAGUID, when known.
    public var providerName: String?
    /// When it was added.
    public var createdAt: Date?
    /// When it last signed in.
    public var lastUsedAt: Date?
    /// Whether it syncs between devices (a multi-device credential).
    public var synced: Bool
    /// Whether it is backed up now, when the server knows.
    public var backedUp: Bool?
    /// The credential ID, base64url.
    public var credentialID: String?

    public init(
        id: String, name: String, providerName: String? = nil, createdAt: Date?, lastUsedAt: Date?, synced: Bool, backedUp: Bool? = nil,
        credentialID: String? = nil
    ) {
        self.backedUp = backedUp
        self.id = id
        self.name = name
        self.providerName = providerName
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.synced = synced
        self.credentialID = credentialID
    }

    /// The passkey a My Account method describes.
    public init(_ method: AuthenticationMethod) {
        self.init(
            id: method.id, name: method.name ?? method.providerName ?? "Passkey", providerName: method.providerName,
            createdAt: method.createdAt.flatMap(Self.date), lastUsedAt: method.lastAuthAt.flatMap(Self.date),
            synced: method.isSynced, backedUp: method.credentialBackedUp, credentialID: method.keyID
        )
    }

    /// RFC 3339, with or without fractional seconds.
    static func date(_ text: String) -> Date? {
        (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))) ?? (try? Date(text, strategy: .iso8601))
    }
}
