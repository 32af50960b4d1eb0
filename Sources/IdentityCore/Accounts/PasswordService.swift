import WebAuthn
import Foundation

/// Passwords, for accounts that still have one: sign-up and sign-in with an email and
/// password, and removing the password once the account has a passkey (the last step of
/// the passkey journey).
public struct PasswordService: Sendable {
    /// What it keeps: accounts, their passwords, and the audit trail.
    public typealias Storage = UserStore & PasswordStore & AdministrationStore & AuditLog

    private let storage: any Storage
    private let hasher: PasswordHasher
    private let clock: any WallClock
    private let random: any RandomSource
    /// Limits password guesses and sign-ups per identifier (`limits.identifier_attempts_per_minute`).
    private let rateLimits: RateLimits?
    /// The recent sign-in that removing the password needs.
    private let sensitiveActions: SensitiveActions

    /// Without `sensitiveActions`, removing the password needs a sign-in from the last 15
    /// minutes, timed by `clock`.
    public init(
        storage: any Storage, hasher: PasswordHasher = .standard, clock: any WallClock, random: any RandomSource, rateLimits: RateLimits? = nil,
        sensitiveActions: SensitiveActions? = nil
    ) {
        self.rateLimits = rateLimits
        self.sensitiveActions = sensitiveActions ?? SensitiveActions(clock: clock)
        self.storage = storage
        self.hasher = hasher
        self.clock = clock
        self.random = random
    }

    /// The one answer to every failed password sign-in, whatever failed, as Auth0 words it.
    static let wrongCredentials = IdentityError(.invalidGrant, "Wrong email or password.")

    /// Creates an account with an email and a password (no passkey yet).
    /// - Throws: `invalid_request` for a missing or malformed email or name (`user_exists`
    ///   when the email is taken), `invalid_password` naming the broken rule.
    public func signUp(client: OAuthClient, email: String?, password: String?, name: String?, origin: RequestOrigin?) async throws -> User {
        guard let email, !email.isEmpty else { throw IdentityError(.invalidRequest, "email is required", reason: .required, field: "email") }
        guard let password else { throw IdentityError(.invalidRequest, "password is required", reason: .required, field: "password") }
        let profile = try ProfileValidation.validate(UserProfile(email: email, name: name), allowed: [.email])
        try PasswordPolicy.check(password)
        // Counted before the account is created or found taken, so that probing an address
        // stops at the limit whatever the answer would have been.
        for identifier in profile.identifiers { try await rateLimits?.admit(identifier: identifier) }
        let now = clock.now()
        let user = User(id: UserID.new(randomBytes: random.bytes(16)), userHandle: random.bytes(32), profile: profile, createdAt: now, updatedAt: now)
        let hash = try await Self.offloaded { [hasher, salt = random.bytes(16)] in try hasher.hash(password, salt: salt) }
        do {
            try await storage.createUser(user, password: PasswordRecord(userID: user.id, hash: hash, createdAt: now))
        } catch is StoreConflict {
            throw IdentityError(.invalidRequest, "a user with this email already exists; sign in instead", reason: .userExists(.email), field: "email")
        }
        try await storage.record(AuditEvent(time: now, kind: .signup, userID: user.id, clientID: client.clientID, detail: "password", origin: origin))
        return user
    }

    /// The account an identifier and password sign in to.
    /// - Throws: ``wrongCredentials`` for an unknown identifier, an account without a
    ///   password (passkey-only, or one that removed it) and a wrong password alike, after
    ///   the same hashing work, so neither the answer nor its time tells them apart.
    public func signIn(client: OAuthClient, username: String?, password: String?, origin: RequestOrigin?) async throws -> User {
        guard let username, !username.isEmpty else { throw IdentityError(.invalidRequest, "username is required", reason: .required, field: "username") }
        guard let password, !password.isEmpty else { throw IdentityError(.invalidRequest, "password is required", reason: .required, field: "password") }
        var user: User?
        var stored: String?
        if let identifier = ProfileValidation.identifier(forLogin: username), password.count <= PasswordPolicy.maximumLength {
            try await rateLimits?.admit(identifier: identifier)
            user = try await storage.user(identifier: identifier)
            if let user { stored = try await storage.password(userID: user.id)?.hash }
        }
        let matches = try await Self.offloaded { [stored] in
            PasswordHasher.verify(password, against: stored ?? Self.decoyHash) && stored != nil
        }
        let now = clock.now()
        guard matches, let user else {
            try await storage.record(AuditEvent(time: now, kind: .loginFailed, userID: user?.id, clientID: client.clientID, detail: "wrong email or password", origin: origin))
            throw Self.wrongCredentials
        }
        // Said only to someone who knows the password, so it tells nobody else the account exists.
        guard !user.isDisabled else {
            try await storage.record(AuditEvent(time: now, kind: .loginFailed, userID: user.id, clientID: client.clientID, detail: "account disabled", origin: origin))
            throw IdentityError.accountDisabled
        }
        try await storage.recordPasswordUse(userID: user.id, at: now)
        if let stored, hasher.needsRehash(stored) { try await upgrade(stored, of: user.id, to: password) }
        try await storage.record(AuditEvent(time: now, kind: .login, userID: user.id, clientID: client.clientID, detail: "password", origin: origin))
        return user
    }

    /// Stores Latchkey's own hash of `password` in place of `stored` (an imported hash, or
    /// one with older parameters), unless the password changed meanwhile.
    private func upgrade(_ stored: String, of userID: UserID, to password: String) async throws {
        let hash = try await Self.offloaded { [hasher, salt = random.bytes(16)] in try hasher.hash(password, salt: salt) }
        _ = try await storage.replacePasswordHash(userID: userID, replacing: stored, with: hash)
    }

    /// The account's password while it has one.
    public func password(of userID: UserID) async throws -> PasswordRecord? {
        guard let record = try await storage.password(userID: userID), record.hash != nil else { return nil }
        return record
    }

    /// Removes the signed-in owner's password once the account has a passkey, ending every
    /// session a password sign-in started (the caller's own, when a password started it).
    /// - Throws: `invalid_token` (`insufficient_user_authentication`) for a sign-in that is
    ///   not recent, `not_found` without a password, `conflict`
    ///   (`last_authentication_method`) while the password is the only way to sign in.
    public func remove(by signIn: SignIn, origin: RequestOrigin?) async throws {
        try sensitiveActions.requireRecent(signIn, for: "Removing your password")
        let userID = signIn.userID
        switch try await storage.removePassword(userID: userID, at: clock.now()) {
        case .removed:
            try await storage.record(AuditEvent(time: clock.now(), kind: .passwordRemoved, userID: userID, detail: "sessions a password started are revoked", origin: origin))
        case .noPassword:
            throw IdentityError(.notFound, "this account has no password")
        case .lastMethod:
            throw IdentityError(
                .conflict, "the password is this account's only way to sign in; add a passkey before removing it", reason: .lastAuthenticationMethod
            )
        }
    }

    /// A hash of nothing anyone knows, with the standard parameters: verifying against it
    /// costs what verifying a real password costs.
    private static let decoyHash: String = {
        (try? PasswordHasher.standard.hash("latchkey decoy password", salt: Array("latchkey-decoy16".utf8))) ?? ""
    }()

    /// Runs hashing work on the shared ``HashingQueue`` (recovery codes' hashes too).
    /// - Throws: `temporarily_unavailable` (reason `busy`) when the queue is full.
    static func offloaded<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await HashingQueue.shared.run(work)
    }
}
