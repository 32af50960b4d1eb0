import Crypto
import Foundation
public import LatchkeyWire

/// What an operator does through the Admin API and `latchkey admin`: admin API keys, the
/// user directory, turning accounts and passkeys off, ending sessions, and reading the audit
/// trail. Every change is recorded under its actor: the admin key that made it
/// (``AdminAPIKey/actor``) or the command line (``AuditEvent/commandLineActor``).
public struct AdminService: Sendable {
    /// What it keeps: everything an administrator reaches.
    public typealias Storage = UserStore & CredentialStore & PasswordStore & RefreshTokenStore & AccountCodeStore & MetadataStore & AdministrationStore & WebhookStore & AuditLog
        & OperatorStore

    /// The prefix of every admin API key.
    public static let keyPrefix = "lk_admin_"
    /// Items on a page when the caller does not say.
    public static let defaultPageSize = 50
    /// The most items a page holds.
    public static let maximumPageSize = 500

    let storage: any Storage
    let clock: any WallClock
    let random: any RandomSource

    public init(storage: any Storage, clock: any WallClock, random: any RandomSource) {
        self.storage = storage
        self.clock = clock
        self.random = random
    }

    // MARK: - Keys

    /// Makes a key. The key itself is in the answer only: the store keeps its SHA-256.
    public func createKey(name: String, scopes: Set<AdminScope>, origin: RequestOrigin?) async throws -> (key: String, record: AdminAPIKey) {
        guard let name = try ProfileValidation.text(name, "name", maximum: 100), !name.isEmpty else {
            throw IdentityError(.invalidRequest, "a key needs a name", field: "name")
        }
        let key = Self.keyPrefix + Base64URL.encode(random.bytes(32))
        let record = AdminAPIKey(
            id: "ak_" + random.bytes(8).map { String(format: "%02x", $0) }.joined(), name: name, scopes: scopes, keyHash: Self.hash(key),
            createdAt: clock.now()
        )
        try await storage.saveAdminKey(record)
        try await storage.record(AuditEvent(time: record.createdAt, kind: .adminKeyCreated, detail: "admin key \(record.id) created: \(name)", actor: record.actor, origin: origin))
        return (key, record)
    }

    /// The live key an `Authorization: Bearer …` header names; `nil` for any other header
    /// (see ``key(bearer:)``).
    public func key(authorization: String) async throws -> AdminAPIKey? {
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return try await key(bearer: String(parts[1]).trimmingCharacters(in: .whitespaces))
    }

    /// The live key a bearer token is; `nil` for a token that is not a key, an unknown one,
    /// or a revoked one. Records its use, at most once a minute.
    public func key(bearer token: String) async throws -> AdminAPIKey? {
        guard token.hasPrefix(Self.keyPrefix), token.utf8.count < 200, var key = try await storage.adminKey(hash: Self.hash(token)), key.revokedAt == nil else {
            return nil
        }
        let now = clock.now()
        if key.lastUsedAt.map({ now.timeIntervalSince($0) >= 60 }) ?? true {
            try await storage.recordAdminKeyUse(id: key.id, at: now)
            key.lastUsedAt = now
        }
        return key
    }

    /// Revokes a key. - Returns: `false` when there is no such live key.
    public func revokeKey(id: String, origin: RequestOrigin?) async throws -> Bool {
        let now = clock.now()
        guard try await storage.revokeAdminKey(id: id, at: now) else { return false }
        try await storage.record(AuditEvent(time: now, kind: .adminKeyRevoked, detail: "admin key \(id) revoked", actor: AuditEvent.adminKeyActorPrefix + id, origin: origin))
        return true
    }

    /// Every key, oldest first.
    public func keys() async throws -> [AdminAPIKey] { try await storage.adminKeys() }

    static func hash(_ key: String) -> [UInt8] { Array(SHA256.hash(data: Array(key.utf8))) }

    // MARK: - Users

    /// A page of the directory, with the token of the next page when there is one.
    public func users(identifier: String?, identifierPrefix: String?, pageSize: Int?, pageToken: String?) async throws -> (users: [User], next: String?) {
        let limit = try Self.pageSize(pageSize)
        let after = try pageToken.map { token throws(IdentityError) -> UserCursor in
            guard let text = Self.pageText(token, kind: "u"), let colon = text.firstIndex(of: ":"),
                let seconds = Double(text[..<colon]), seconds.isFinite
            else { throw Self.badPageToken }
            return UserCursor(createdAt: Date(timeIntervalSince1970: seconds), id: UserID(rawValue: String(text[text.index(after: colon)...])))
        }
        let users = try await storage.users(UserQuery(identifier: identifier, identifierPrefix: identifierPrefix, after: after, limit: limit + 1))
        let page = Array(users.prefix(limit))
        let next = users.count > limit ? page.last.map { Self.pageToken("u", "\($0.createdAt.timeIntervalSince1970):\($0.id.rawValue)") } : nil
        return (page, next)
    }

    /// The user with this ID. - Throws: `not_found` (`user_not_found`).
    public func user(id: UserID) async throws -> User {
        guard let user = try await storage.user(id: id) else { throw Self.noUser }
        return user
    }

    /// Makes an account ahead of its owner's first sign-in: the person gets in by account
    /// recovery at the email address, which adds their first passkey.
    public func createUser(_ profile: UserProfile, emailVerified: Bool, by actor: String, origin: RequestOrigin?) async throws -> User {
        let profile = try ProfileValidation.validate(profile, allowed: Set(ProfileValidation.IdentifierKind.allCases))
        guard profile.email != nil else { throw IdentityError(.invalidRequest, "an account made ahead of its first sign-in needs an email address to recover by", field: "email") }
        let now = clock.now()
        let user = User(
            id: UserID.new(randomBytes: random.bytes(16)), userHandle: random.bytes(32), profile: profile, createdAt: now, updatedAt: now,
            emailVerifiedAt: emailVerified ? now : nil
        )
        do {
            try await storage.createUser(user)
        } catch let conflict as StoreConflict {
            guard conflict.kind == .identifier else { throw conflict }
            throw IdentityError(.conflict, "a user with this email address, phone number or username exists", reason: .userExists(nil))
        }
        try await record(.userCreated, user: user.id, by: actor, origin: origin)
        return user
    }

    /// Changes a user's display name (`.some(nil)` removes it) or marks the address verified.
    public func updateUser(id: UserID, name: String??, emailVerified: Bool?, by actor: String, origin: RequestOrigin?) async throws -> User {
        var user = try await self.user(id: id)
        if case .some(let name) = name {
            let name = try ProfileValidation.optionalName(name, field: .named("name"))
            guard let changed = try await storage.updateName(userID: id, name: name, at: clock.now()) else { throw Self.noUser }
            user = changed
        }
        switch emailVerified {
        case nil: break
        case false?:
            throw IdentityError(.invalidRequest, "an address can be marked verified, not unverified", field: "email_verified")
        case true?:
            guard let email = user.profile.email else { throw IdentityError(.invalidRequest, "this user has no email address to verify", field: "email_verified") }
            if !user.isEmailVerified {
                guard let changed = try await storage.markEmailVerified(userID: id, email: email, at: clock.now()) else { throw Self.noUser }
                user = changed
            }
        }
        try await record(.userUpdated, user: id, by: actor, origin: origin)
        return user
    }

    /// Deletes a user with everything they have; their audit events stay.
    public func deleteUser(id: UserID, by actor: String, origin: RequestOrigin?) async throws {
        guard try await storage.deleteUser(id: id, at: clock.now()) else { throw Self.noUser }
        try await record(.userDeleted, user: id, by: actor, origin: origin)
    }

    /// Turns an account off (ending every session at once) or on again.
    public func setUserDisabled(id: UserID, disabled: Bool, by actor: String, origin: RequestOrigin?) async throws -> User {
        guard let user = try await storage.setUserDisabled(id: id, disabled: disabled, at: clock.now()) else { throw Self.noUser }
        try await record(disabled ? .userDisabled : .userEnabled, user: id, by: actor, origin: origin)
        return user
    }

    // MARK: - Operators

    /// Makes the account with this email address, phone number or username an operator of
    /// the console with `role`, or (with `nil`) no longer one.
    /// - Throws: `not_found` (`user_not_found`) when no account has the identifier.
    public func setOperatorRole(identifier: String, role: OperatorRole?, by actor: String, origin: RequestOrigin?) async throws -> User {
        guard let found = ProfileValidation.identifier(forLogin: identifier), let user = try await storage.user(identifier: found) else { throw Self.noUser }
        guard try await storage.setOperatorRole(userID: user.id, role: role, at: clock.now()) else { throw Self.noUser }
        try await record(.userUpdated, user: user.id, detail: role.map { "operator role \($0.rawValue)" } ?? "operator role removed", by: actor, origin: origin)
        return user
    }

    /// The account's role in the console, if it is an operator.
    public func operatorRole(userID: UserID) async throws -> OperatorRole? { try await storage.operatorRole(userID: userID) }

    /// Every operator, oldest first.
    public func operators() async throws -> [Operator] { try await storage.operators() }

    // MARK: - Credentials

    /// A user's passkeys, oldest first, and whether they have a password.
    public func credentials(userID: UserID) async throws -> (passkeys: [PasskeyCredential], hasPassword: Bool) {
        _ = try await user(id: userID)
        let passkeys = try await storage.credentials(userID: userID)
        let password = try await storage.password(userID: userID)
        return (passkeys, password?.hash != nil)
    }

    /// Removes a passkey, ending the sessions it started; not a user's last way to sign in.
    public func deleteCredential(userID: UserID, credentialID: [UInt8], by actor: String, origin: RequestOrigin?) async throws {
        _ = try await user(id: userID)
        switch try await storage.deleteCredential(id: credentialID, userID: userID, at: clock.now()) {
        case .deleted:
            try await record(.credentialDeleted, user: userID, credential: credentialID, by: actor, origin: origin)
        case .notFound:
            throw Self.noCredential
        case .lastCredential:
            throw IdentityError(
                .conflict, "this is the user's last way to sign in; disable it instead, or delete the user", reason: .lastAuthenticationMethod
            )
        }
    }

    /// Turns a passkey off (ending the sessions it started) or on again.
    public func setCredentialDisabled(userID: UserID, credentialID: [UInt8], disabled: Bool, by actor: String, origin: RequestOrigin?) async throws -> PasskeyCredential {
        _ = try await user(id: userID)
        switch try await storage.setCredentialDisabled(id: credentialID, userID: userID, disabled: disabled, byAdministrator: true, at: clock.now()) {
        case .changed, .heldByAdministrator:
            break
        case .notFound:
            throw Self.noCredential
        }
        guard let credential = try await storage.credential(id: credentialID), credential.userID == userID else { throw Self.noCredential }
        try await record(disabled ? .credentialDisabled : .credentialEnabled, user: userID, credential: credentialID, by: actor, origin: origin)
        return credential
    }

    // MARK: - Sessions

    /// A user's sessions, newest first.
    public func sessions(userID: UserID) async throws -> [SessionSummary] {
        _ = try await user(id: userID)
        return try await storage.sessions(userID: userID)
    }

    /// Ends every session of a user. - Returns: How many ended.
    public func revokeSessions(userID: UserID, by actor: String, origin: RequestOrigin?) async throws -> Int {
        _ = try await user(id: userID)
        let count = try await storage.revokeAllSessions(userID: userID, at: clock.now())
        try await record(.signedOutEverywhere, user: userID, detail: "\(count) session(s)", by: actor, origin: origin)
        return count
    }

    /// Ends one session of a user.
    public func revokeSession(userID: UserID, id: String, by actor: String, origin: RequestOrigin?) async throws {
        _ = try await user(id: userID)
        guard try await storage.revokeSession(id: id, userID: userID, at: clock.now()) else {
            throw IdentityError(.notFound, "this user has no active session with this ID", reason: .sessionNotFound)
        }
        try await record(.sessionRevoked, user: userID, detail: "session \(id)", by: actor, origin: origin)
    }

    // MARK: - Events

    /// A page of the audit trail, newest first, with the token of the next page.
    public func events(_ filter: AuditQuery, pageSize: Int?, pageToken: String?) async throws -> (events: [LoggedEvent], next: String?) {
        var query = filter
        query.limit = try Self.pageSize(pageSize) + 1
        if let pageToken {
            guard let text = Self.pageText(pageToken, kind: "e"), let id = Int64(text) else { throw Self.badPageToken }
            query.before = id
        }
        let events = try await storage.events(query)
        let page = Array(events.prefix(query.limit - 1))
        let next = events.count > page.count ? page.last.map { Self.pageToken("e", String($0.id)) } : nil
        return (page, next)
    }

    // MARK: - Webhooks

    /// A page of webhook deliveries, newest first, with the token of the next page.
    public func webhookDeliveries(status: WebhookDeliveryStatus?, pageSize: Int?, pageToken: String?) async throws -> (deliveries: [WebhookDelivery], next: String?) {
        let limit = try Self.pageSize(pageSize)
        var before: Int64?
        if let pageToken {
            guard let text = Self.pageText(pageToken, kind: "w"), let position = Int64(text) else { throw Self.badPageToken }
            before = position
        }
        let deliveries = try await storage.webhookDeliveries(status: status, before: before, limit: limit + 1)
        let page = Array(deliveries.prefix(limit))
        let next = deliveries.count > limit ? page.last.map { Self.pageToken("w", String($0.position)) } : nil
        return (page, next)
    }

    /// Makes a delivery due now again. - Throws: `not_found` (`delivery_not_found`).
    public func resendWebhookDelivery(id: String) async throws -> WebhookDelivery {
        guard let delivery = try await storage.resendWebhookDelivery(id: id, at: clock.now()) else {
            throw IdentityError(.notFound, "no webhook delivery has this ID", reason: .deliveryNotFound)
        }
        return delivery
    }

    /// The endpoints that answered 410 and are off, with why.
    public func disabledWebhookEndpoints() async throws -> [String: String] { try await storage.disabledWebhookEndpoints() }

    /// Turns an endpoint that answered 410 on again. - Returns: `false` when it was not off.
    public func enableWebhookEndpoint(id: String) async throws -> Bool { try await storage.enableWebhookEndpoint(id: id) }

    /// Records one call of the Admin API under the key that made it.
    public func recordRequest(method: String, path: String, status: Int, by actor: String, origin: RequestOrigin?) async throws {
        try await storage.record(AuditEvent(time: clock.now(), kind: .adminRequest, detail: "\(method) \(path.prefix(300)) \(status)", actor: actor, origin: origin))
    }

    // MARK: - Helpers

    private func record(_ kind: AuditEvent.Kind, user: UserID, credential: [UInt8]? = nil, detail: String = "", by actor: String, origin: RequestOrigin?) async throws {
        try await storage.record(AuditEvent(
            time: clock.now(), kind: kind, userID: user, credentialID: credential.map(Base64URL.encode), detail: detail, actor: actor, origin: origin
        ))
    }

    private static func pageSize(_ size: Int?) throws(IdentityError) -> Int {
        guard let size else { return defaultPageSize }
        guard (1...maximumPageSize).contains(size) else {
            throw IdentityError(.invalidRequest, "page_size must be between 1 and \(maximumPageSize)", field: "page_size")
        }
        return size
    }

    private static func pageToken(_ kind: String, _ text: String) -> String { Base64URL.encode(Array("\(kind):\(text)".utf8)) }

    private static func pageText(_ token: String, kind: String) -> String? {
        guard token.utf8.count <= 600, let bytes = Base64URL.decode(token), let text = String(validating: bytes, as: UTF8.self),
            text.hasPrefix(kind + ":")
        else { return nil }
        return String(text.dropFirst(kind.count + 1))
    }

    private static var badPageToken: IdentityError { IdentityError(.invalidRequest, "page_token is not one this API gave", field: "page_token") }
    private static var noUser: IdentityError { IdentityError(.notFound, "no user has this ID", reason: .userNotFound) }
    private static var noCredential: IdentityError { IdentityError(.notFound, "this user has no passkey with this ID", reason: .credentialNotFound) }
}
