import Foundation
import WebAuthn

/// The signed-in user's own passkeys: list, read, rename, turn off, delete. Turning a
/// passkey off or deleting it needs a recent sign-in of its owner (``SensitiveActions``);
/// an administrator's turning it off holds against the owner.
public struct AccountService: Sendable {
    /// What it keeps: accounts, their ways to sign in, their sessions, and the audit trail.
    public typealias Storage = UserStore & CredentialStore & PasswordStore & RefreshTokenStore & MetadataStore & AuditLog

    private let storage: any Storage
    private let clock: any WallClock
    private let sensitiveActions: SensitiveActions

    /// - Parameter sensitiveActions: The recent sign-in that removing a way to sign in needs;
    ///   15 minutes when `nil`.
    public init(storage: any Storage, clock: any WallClock, sensitiveActions: SensitiveActions? = nil) {
        self.storage = storage
        self.clock = clock
        self.sensitiveActions = sensitiveActions ?? SensitiveActions(clock: clock)
    }

    /// The user's account.
    public func user(_ userID: UserID) async throws -> User {
        guard let user = try await storage.user(id: userID) else {
            throw IdentityError(.invalidToken, "the account of this access token no longer exists")
        }
        return user
    }

    /// Changes the user's display name; an empty name clears it, so the account name shows.
    /// - Parameter field: The request member that carried the name, for the error.
    public func updateName(of userID: UserID, to name: String?, field: IdentityError.Field = .profileMember("name"), origin: RequestOrigin?) async throws -> User {
        let newName = try ProfileValidation.optionalName(name, field: field)
        guard let user = try await storage.updateName(userID: userID, name: newName, at: clock.now()) else {
            throw IdentityError(.invalidToken, "the signed-in account no longer exists")
        }
        try await storage.record(AuditEvent(time: clock.now(), kind: .profileUpdated, userID: userID, detail: "name", origin: origin))
        return user
    }

    /// What credential managers need to bring the account's saved entries up to date.
    public func signals(of userID: UserID, relyingPartyID: String) async throws -> AccountSignals {
        let user = try await user(userID)
        let accepted = try await storage.credentials(userID: userID).filter { !$0.isDisabled }.map(\.credentialID)
        // A password the account gave up; one it still has, or never had, is not "unused".
        let removed = try await storage.password(userID: userID).flatMap { $0.removedAt }
        return AccountSignals(
            relyingPartyID: relyingPartyID, userHandle: user.userHandle, acceptedCredentialIDs: accepted,
            name: user.accountName, displayName: user.displayName,
            unusedPassword: removed.map { _ in .init(domain: relyingPartyID, username: user.accountName) }
        )
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
    public func rename(of userID: UserID, methodID: String, to name: String?, origin: RequestOrigin?) async throws -> PasskeyCredential {
        try await rename(try passkey(of: userID, methodID: methodID), to: name, origin: origin)
    }

    /// Deletes one of the signed-in owner's passkeys unless it is the account's last way to
    /// sign in; the sign-in must be recent.
    public func delete(methodID: String, by signIn: SignIn, origin: RequestOrigin?) async throws {
        try await delete(try passkey(of: signIn.userID, methodID: methodID), by: .owner(signIn), origin: origin)
    }

    /// A passkey by its record ID (``PasskeyCredential/recordID``), whoever owns it: for
    /// administration, and for faces that name passkeys by UUID.
    public func passkey(recordID: String) async throws -> PasskeyCredential? {
        // Record IDs are UUIDs; anything else names nothing and is not looked up.
        let lowered = recordID.lowercased()
        guard UUIDText.isUUID(lowered) else { return nil }
        return try await storage.credential(recordID: lowered)
    }

    /// Renames a passkey; names are unique per user, and an empty name clears it. Not a
    /// sensitive action: a name changes nothing about signing in.
    /// - Parameter actor: The administration application acting, for the audit event.
    public func rename(_ credential: PasskeyCredential, to name: String?, actor: String? = nil, origin: RequestOrigin?) async throws -> PasskeyCredential {
        let newName = try ProfileValidation.optionalName(name, field: .named("name"))
        do {
            guard try await storage.renameCredential(id: credential.credentialID, userID: credential.userID, name: newName) else {
                throw Self.gone(credential)
            }
        } catch let conflict as StoreConflict where conflict.kind == .credentialName {
            throw IdentityError(.conflict, "another passkey on this account is already named \"\(newName ?? "")\"", reason: .credentialNameTaken, field: "name")
        }
        try await storage.record(AuditEvent(
            time: clock.now(), kind: .credentialRenamed, userID: credential.userID, clientID: actor,
            credentialID: Base64URL.encode(credential.credentialID), detail: newName ?? "", origin: origin
        ))
        return try await reloaded(credential)
    }

    /// Turns a passkey off (it can no longer sign in) or on again. Its owner needs a recent
    /// sign-in to do either, and cannot turn on a passkey an administrator turned off.
    public func setDisabled(_ credential: PasskeyCredential, _ disabled: Bool, by actor: Actor, origin: RequestOrigin?) async throws -> PasskeyCredential {
        try sensitiveActions.requireRecent(actor, for: disabled ? "Turning a passkey off" : "Turning a passkey on")
        let change = try await storage.setCredentialDisabled(
            id: credential.credentialID, userID: credential.userID, disabled: disabled, byAdministrator: actor.administratorID != nil, at: clock.now()
        )
        switch change {
        case .changed: break
        case .notFound: throw Self.gone(credential)
        case .heldByAdministrator:
            throw IdentityError(
                .accessDenied, "an administrator turned this passkey off; only an administrator can turn it on again", reason: .disabledByAdministrator
            )
        }
        if disabled != credential.isDisabled {
            try await storage.record(AuditEvent(
                time: clock.now(), kind: disabled ? .credentialDisabled : .credentialEnabled, userID: credential.userID, clientID: actor.administratorID,
                credentialID: Base64URL.encode(credential.credentialID), origin: origin
            ))
        }
        return try await reloaded(credential)
    }

    /// Deletes a passkey unless it is the account's last way to sign in; its owner needs a
    /// recent sign-in.
    public func delete(_ credential: PasskeyCredential, by actor: Actor, origin: RequestOrigin?) async throws {
        try sensitiveActions.requireRecent(actor, for: "Removing a way to sign in")
        switch try await storage.deleteCredential(id: credential.credentialID, userID: credential.userID, at: clock.now()) {
        case .deleted:
            try await storage.record(AuditEvent(
                time: clock.now(), kind: .credentialDeleted, userID: credential.userID, clientID: actor.administratorID,
                credentialID: Base64URL.encode(credential.credentialID), origin: origin
            ))
        case .notFound:
            throw Self.gone(credential)
        case .lastCredential:
            throw IdentityError(.conflict, "this is the account's last passkey; add another way to sign in before deleting it", reason: .lastAuthenticationMethod)
        }
    }

    private func reloaded(_ credential: PasskeyCredential) async throws -> PasskeyCredential {
        guard let current = try await storage.credential(id: credential.credentialID), current.userID == credential.userID else { throw Self.gone(credential) }
        return current
    }

    private static func gone(_ credential: PasskeyCredential) -> IdentityError {
        IdentityError(.notFound, "no passkey \(credential.methodID.prefix(200)) on this account")
    }

    /// The user an identifier names (an email, phone number or username, as typed at sign-in).
    public func user(identifiedBy text: String) async throws -> User? {
        guard text.utf8.count <= 320, let identifier = ProfileValidation.identifier(forLogin: text) else { return nil }
        return try await storage.user(identifier: identifier)
    }

    /// The user with this ID, or `nil`.
    public func existingUser(_ userID: UserID) async throws -> User? {
        try await storage.user(id: userID)
    }

    /// The credential ID inside a method ID; the `passkey|` prefix may be percent-encoded.
    static func credentialID(fromMethodID methodID: String) throws(IdentityError) -> [UInt8] {
        let decoded = methodID.removingPercentEncoding ?? methodID
        guard decoded.hasPrefix("passkey|"), let bytes = Base64URL.decode(decoded.dropFirst("passkey|".count)), !bytes.isEmpty, bytes.count <= 1023 else {
            throw IdentityError(.notFound, "\(methodID.prefix(200)) is not a passkey method ID (passkey|<credential id>)")
        }
        return bytes
    }

    /// Ends every session and refresh family of the account ("sign out everywhere"),
    /// recording who asked.
    /// - Returns: How many sessions were active and are now revoked.
    @discardableResult
    public func signOutEverywhere(userID: UserID, clientID: String, origin: RequestOrigin?) async throws -> Int {
        let now = clock.now()
        let revoked = try await storage.revokeAllSessions(userID: userID, at: now)
        try await storage.record(AuditEvent(time: now, kind: .signedOutEverywhere, userID: userID, clientID: clientID, detail: "\(revoked) session(s) revoked", origin: origin))
        return revoked
    }
}
