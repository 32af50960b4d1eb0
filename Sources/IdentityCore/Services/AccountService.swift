import Foundation
import WebAuthn

/// The signed-in user's own passkeys: list, read, rename, delete.
public struct AccountService: Sendable {
    private let storage: any IdentityStorage
    private let clock: any WallClock

    /// Creates the service.
    public init(storage: any IdentityStorage, clock: any WallClock) {
        self.storage = storage
        self.clock = clock
    }

    /// The user's account.
    public func user(_ userID: UserID) async throws -> User {
        guard let user = try await storage.user(id: userID) else {
            throw IdentityError(.invalidToken, "the account of this access token no longer exists")
        }
        return user
    }

    /// Changes the user's display name; an empty name clears it, so the account name shows.
    public func updateName(of userID: UserID, to name: String?) async throws -> User {
        let trimmed = name?.trimmingCharacters(in: .whitespacesAndNewlines)
        let newName = trimmed?.isEmpty == false ? try ProfileValidation.text(trimmed, "name", maximum: 100) : nil
        guard let user = try await storage.updateName(userID: userID, name: newName, at: clock.now()) else {
            throw IdentityError(.invalidToken, "the signed-in account no longer exists")
        }
        try await storage.record(AuditEvent(time: clock.now(), kind: .profileUpdated, userID: userID, detail: "name"))
        return user
    }

    /// The user's passkeys, oldest first.
    public func passkeys(of userID: UserID) async throws -> [PasskeyCredential] {
        try await storage.credentials(userID: userID)
    }

    /// One of the user's passkeys, by its method ID (`passkey|<base64url credential id>`).
    public func passkey(of userID: UserID, methodID: String) async throws -> PasskeyCredential {
        let credentialID = try Self.credentialID(fromMethodID: methodID)
        guard let credential = try await storage.credential(id: credentialID), credential.userID == userID else {
            throw IdentityError(.notFound, "no passkey \(methodID.prefix(200)) on this account")
        }
        return credential
    }

    /// Renames a passkey; names are unique per user, and an empty name clears it.
    public func rename(of userID: UserID, methodID: String, to name: String?) async throws -> PasskeyCredential {
        let credentialID = try Self.credentialID(fromMethodID: methodID)
        let trimmed = name?.trimmingCharacters(in: .whitespacesAndNewlines)
        let newName = trimmed?.isEmpty == false ? try ProfileValidation.text(trimmed, "name", maximum: 100) : nil
        do {
            guard try await storage.renameCredential(id: credentialID, userID: userID, name: newName) else {
                throw IdentityError(.notFound, "no passkey \(methodID.prefix(200)) on this account")
            }
        } catch let conflict as StoreConflict where conflict.kind == .credentialName {
            throw IdentityError(.conflict, "another passkey on this account is already named \"\(newName ?? "")\"", field: "name")
        }
        try await storage.record(AuditEvent(time: clock.now(), kind: .credentialRenamed, userID: userID, credentialID: Base64URL.encode(credentialID), detail: newName ?? ""))
        return try await passkey(of: userID, methodID: methodID)
    }

    /// Deletes a passkey unless it is the account's last way to sign in.
    public func delete(of userID: UserID, methodID: String) async throws {
        let credentialID = try Self.credentialID(fromMethodID: methodID)
        switch try await storage.deleteCredential(id: credentialID, userID: userID) {
        case .deleted:
            try await storage.record(AuditEvent(time: clock.now(), kind: .credentialDeleted, userID: userID, credentialID: Base64URL.encode(credentialID)))
        case .notFound:
            throw IdentityError(.notFound, "no passkey \(methodID.prefix(200)) on this account")
        case .lastCredential:
            throw IdentityError(.conflict, "this is the account's last passkey; add another way to sign in before deleting it", reason: .lastAuthenticationMethod)
        }
    }

    /// The credential ID inside a method ID; the `passkey|` prefix may be percent-encoded.
    static func credentialID(fromMethodID methodID: String) throws(IdentityError) -> [UInt8] {
        let decoded = methodID.removingPercentEncoding ?? methodID
        guard decoded.hasPrefix("passkey|"), let bytes = Base64URL.decode(decoded.dropFirst("passkey|".count)), !bytes.isEmpty, bytes.count <= 1023 else {
            throw IdentityError(.notFound, "\(methodID.prefix(200)) is not a passkey method ID (passkey|<credential id>)")
        }
        return bytes
    }
}
