public import WebAuthn
public import Foundation

/// Accounts. Identifiers are unique across users.
public protocol UserStore: Sendable {
    /// The user with this ID.
    func user(id: UserID) async throws -> User?
    /// The user an identifier belongs to.
    func user(identifier: Identifier) async throws -> User?
    /// The user whose WebAuthn user handle this is.
    func user(handle: [UInt8]) async throws -> User?
    /// Creates a user together with their first passkey, atomically.
    /// - Throws: ``StoreConflict`` when an identifier or the credential ID already exists;
    ///   nothing is written then.
    func createUser(_ user: User, credential: PasskeyCredential) async throws
    /// Sets a user's display name (`nil` clears it) and `updatedAt`.
    /// - Returns: The updated user, or `nil` when there is no such user.
    func updateName(userID: UserID, name: String?, at time: Date) async throws -> User?
}

/// Passwords, for accounts that still have one (or had one: a removed password leaves its
/// record, with no hash, so that credential managers can be told it is unused).
public protocol PasswordStore: Sendable {
    /// The account's password record, removed or not.
    func password(userID: UserID) async throws -> PasswordRecord?
    /// Creates an account that signs in with a password and has no passkey yet, in one
    /// transaction.
    /// - Throws: ``StoreConflict`` `.identifier` when an identifier is taken; nothing is
    ///   written then.
    func createUser(_ user: User, password: PasswordRecord) async throws
    /// Records that the password signed the user in.
    func recordPasswordUse(userID: UserID, at time: Date) async throws
    /// Removes the password, only while the account has a passkey to sign in with. In the
    /// same transaction, every session a password sign-in started (refresh families,
    /// browser sessions) is revoked at `time`, so a phished password keeps nothing.
    func removePassword(userID: UserID, at time: Date) async throws -> PasswordRemoval
    /// Stores `new` in place of the hash `old`, only while `old` is still the account's
    /// hash: an imported hash becomes Latchkey's own after a sign-in with it, and a
    /// password changed or removed meanwhile is left alone.
    /// - Returns: Whether the hash was replaced.
    func replacePasswordHash(userID: UserID, replacing old: String, with new: String) async throws -> Bool
}

/// Passkeys. Every login writes its use through ``CeremonyStore/completeCeremony(_:)``.
public protocol CredentialStore: Sendable {
    /// The credential with this ID.
    func credential(id: [UInt8]) async throws -> PasskeyCredential?
    /// The credential with this ID and its owner, in one read: what a sign-in looks up.
    func credentialWithOwner(id: [UInt8]) async throws -> (credential: PasskeyCredential, owner: User)?
    /// A user's credentials, oldest first.
    func credentials(userID: UserID) async throws -> [PasskeyCredential]
    /// The credential with this record ID (``PasskeyCredential/recordID``).
    func credential(recordID: String) async throws -> PasskeyCredential?
    /// What the allow lists of up to `limit` accounts show, for ``LoginDecoys``: for each of
    /// the oldest accounts with a usable passkey, the shapes of its usable passkeys, oldest
    /// first (registration order among equal times).
    func allowListShapes(limit: Int) async throws -> [[CredentialShape]]
    /// Adds a credential to an existing user.
    /// - Throws: ``StoreConflict`` when the credential ID is already registered.
    func addCredential(_ credential: PasskeyCredential) async throws
    /// Renames a user's credential.
    /// - Returns: `false` when the user has no such credential.
    /// - Throws: ``StoreConflict`` when another of the user's credentials has that name.
    func renameCredential(id: [UInt8], userID: UserID, name: String?) async throws -> Bool
    /// Deletes a user's credential unless it is their last way to sign in: their only
    /// passkey, with no password. In the same transaction, every login session and browser
    /// session that credential started is revoked at `time`.
    func deleteCredential(id: [UInt8], userID: UserID, at time: Date) async throws -> CredentialDeletion
    /// Turns a user's credential off or on again. Turning it off revokes, in the same
    /// transaction, every session it started, and an administrator's turning it off is
    /// recorded (``PasskeyCredential/isDisabledByAdministrator``); turning it on again is then
    /// done only by an administrator, decided in the same statement.
    /// - Parameter byAdministrator: Whether an administrator, not the owner, makes the change.
    func setCredentialDisabled(id: [UInt8], userID: UserID, disabled: Bool, byAdministrator: Bool, at time: Date) async throws -> CredentialStateChange
}

/// What turning a credential off or on did, decided atomically with the change.
public enum CredentialStateChange: Sendable, Hashable {
    /// The credential is now as asked.
    case changed
    /// The user has no such credential.
    case notFound
    /// An administrator turned it off, and only an administrator may turn it on again.
    case heldByAdministrator
}

/// The result of deleting a credential, decided atomically with the deletion.
public enum CredentialDeletion: Sendable, Hashable {
    /// The credential is gone.
    case deleted
    /// The user has no such credential.
    case notFound
    /// It is the user's last way to sign in, so it was kept.
    case lastCredential
}

/// Finished ceremonies. A ceremony itself travels sealed with the client (``CeremonySeal``);
/// the store keeps only the keys of those finished, so that each finishes at most once.
public protocol CeremonyStore: Sendable {
    /// Finishes a ceremony, atomically: records its key as used and applies every write of
    /// `completion`, all or nothing, in one transaction (one round trip where the backend
    /// allows), so that of any number of concurrent finishes, on any number of instances,
    /// exactly one writes.
    /// - Returns: `false`, having written nothing, when the key was already used.
    /// - Throws: ``StoreConflict`` when a write breaks a uniqueness rule; nothing is written
    ///   then and the key stays unused.
    func completeCeremony(_ completion: CeremonyCompletion) async throws -> Bool
    /// Forgets the keys of ceremonies that expired before `time`: an expired ceremony is
    /// refused before its key is looked up, so its key is no longer needed.
    /// - Returns: How many were deleted.
    @discardableResult
    func purgeCeremonies(expiredBefore time: Date) async throws -> Int
}

/// Refresh tokens with rotation and reuse detection.
public protocol RefreshTokenStore: Sendable {
    /// Stores a newly issued token.
    func saveRefreshToken(_ record: RefreshTokenRecord) async throws
    /// The stored record of a token, whatever its state, to validate a request before the
    /// token is presented.
    func refreshToken(hash: [UInt8]) async throws -> RefreshTokenRecord?
    /// Presents a token, atomically. When it is current (known, issued to `clientID`,
    /// unexpired at `time`, unused, family not revoked): marks it used and stores its
    /// replacement, a copy of the record with `newHash`, `issuedAt = time` and
    /// `expiresAt = newExpiresAt` (same family, user, client, scopes, audience and
    /// authentication), and returns `.rotated(previous:)`. When it was already used:
    /// revokes its whole family and returns `.reused`. Otherwise returns `.invalid`.
    func rotateRefreshToken(hash: [UInt8], clientID: String, newHash: [UInt8], newExpiresAt: Date, at time: Date) async throws -> RefreshOutcome
    /// Revokes the family of a token issued to `clientID`.
    /// - Returns: the family's user, or `nil` when no such token exists.
    func revokeRefreshTokenFamily(hash: [UInt8], clientID: String, at time: Date) async throws -> UserID?
    /// Starts a login session (a family) that may have no refresh token, so that access
    /// tokens issued without `offline_access` can be revoked too. Starting an existing
    /// family changes nothing.
    func startSession(familyID: String, userID: UserID, clientID: String, at time: Date) async throws
    /// Starts a login session with everything its start names: the passkey that signed the
    /// user in, and the first refresh token when there is one. Starting an existing family
    /// adds the token and changes nothing else.
    func startSession(_ start: TokenSessionStart) async throws
    /// Ends every login session and browser session of a user ("sign out everywhere").
    /// - Returns: How many were active and are now revoked.
    func revokeAllSessions(userID: UserID, at time: Date) async throws -> Int
    /// Whether a family (a login session) of `userID` is still active: a family of another
    /// user is not, so that a token naming it is refused.
    func isSessionActive(familyID: String, userID: UserID) async throws -> Bool
    /// Deletes up to `limit` families started before `time`, with their tokens. Called with
    /// the absolute refresh lifetime behind, so no family deleted can still refresh, and a
    /// rotated token stays recognised as reused for as long as its family could live.
    /// - Returns: How many were deleted.
    func purgeRefreshTokenFamilies(startedBefore time: Date, limit: Int) async throws -> Int
}

/// Signed-in browsers on the hosted pages.
public protocol BrowserSessionStore: Sendable {
    /// Stores a new session.
    func saveBrowserSession(_ session: BrowserSession) async throws
    /// The session with this token hash, if it exists, is not revoked and has not expired at `time`.
    func browserSession(hash: [UInt8], at time: Date) async throws -> BrowserSession?
    /// Revokes a session (sign-out), and in the same transaction the login sessions that
    /// authorization codes it issued started (``AuthorizationCode/browserSession``).
    /// Revoking an unknown session is not an error.
    func revokeBrowserSession(hash: [UInt8], at time: Date) async throws
    /// A user's sessions that are neither revoked nor expired at `time`, newest sign-in
    /// first (then by token hash): what "where am I signed in" lists.
    func browserSessions(userID: UserID, at time: Date) async throws -> [BrowserSession]
    /// Deletes sessions that expired before `time`.
    /// - Returns: How many were deleted.
    @discardableResult
    func purgeBrowserSessions(expiredBefore time: Date) async throws -> Int
}

/// Authorization codes, single use.
public protocol AuthorizationCodeStore: Sendable {
    /// Stores a new code.
    func saveAuthorizationCode(_ code: AuthorizationCode) async throws
    /// The stored code, whatever its state, to check a request against before the code is
    /// presented (so that a wrong PKCE verifier does not use it up).
    func authorizationCode(hash: [UInt8]) async throws -> AuthorizationCode?
    /// Presents a code, atomically: an unused code that has not expired at `time` is marked
    /// used, `session` (the login session its tokens belong to) is started in the same
    /// transaction and tied to the code's ``AuthorizationCode/browserSession``, and the code is returned as `.consumed`; a used one revokes the session
    /// `sessionID` names (its family) and is returned as `.reused`; anything else is
    /// `.invalid`. Because the session exists as soon as the code is used, a replay at any
    /// moment finds it and revokes it.
    func consumeAuthorizationCode(hash: [UInt8], at time: Date, starting session: TokenSessionStart?) async throws -> AuthorizationCodeOutcome
    /// Deletes codes that expired before `time`.
    /// - Returns: How many were deleted.
    @discardableResult
    func purgeAuthorizationCodes(expiredBefore time: Date) async throws -> Int
}

/// Self-service flows.
public protocol InteractiveFlowStore: Sendable {
    /// Stores a new flow.
    func saveFlow(_ flow: InteractiveFlow) async throws
    /// The flow with this ID, whatever its state.
    func flow(id: String) async throws -> InteractiveFlow?
    /// Gives an uncompleted flow a new ceremony and options after a failed attempt.
    /// - Returns: `false` when the flow is unknown or already completed.
    func renewFlow(id: String, ceremonyID: String, options: [UInt8]) async throws -> Bool
    /// Marks a flow completed, atomically: only the first call for a flow returns `true`.
    func completeFlow(id: String, at time: Date) async throws -> Bool
    /// Deletes flows that expired before `time`.
    /// - Returns: How many were deleted.
    @discardableResult
    func purgeFlows(expiredBefore time: Date) async throws -> Int
}

/// Administration API tokens (the IDaaS face's `authToken`), stored by hash.
public protocol AdminTokenStore: Sendable {
    /// Stores a newly issued token.
    func saveAdminToken(_ token: AdminToken) async throws
    /// The token with this hash, if it exists and has not expired at `time`.
    func adminToken(hash: [UInt8], at time: Date) async throws -> AdminToken?
    /// Deletes tokens that expired before `time`.
    /// - Returns: How many were deleted.
    @discardableResult
    func purgeAdminTokens(expiredBefore time: Date) async throws -> Int
}

/// Token signing keys.
public protocol SigningKeyStore: Sendable {
    /// Every stored key, newest first.
    func signingKeys() async throws -> [SigningKeyRecord]
    /// Adds a key and marks every other unretired key retired at `time`.
    func addSigningKey(_ key: SigningKeyRecord, at time: Date) async throws
    /// Adds the first signing key: `key` is stored only while the store has no unretired
    /// key, decided atomically, so that instances starting together on an empty database
    /// end with one key that all of them sign with.
    /// - Returns: Whether `key` was stored.
    func addFirstSigningKey(_ key: SigningKeyRecord) async throws -> Bool
    /// Replaces a key's stored private key (when it is sealed, or resealed under another
    /// key-encryption key), only while it is still `current`.
    /// - Returns: Whether it was replaced.
    func replaceSigningKeyMaterial(keyID: String, with privateKey: [UInt8], replacing current: [UInt8]) async throws -> Bool
}

/// Audit events.
public protocol AuditLog: Sendable {
    /// Records an event.
    func record(_ event: AuditEvent) async throws
    /// The most recent events, newest first, optionally for one user.
    func events(userID: UserID?, limit: Int) async throws -> [AuditEvent]
    /// Deletes up to `limit` events older than `time` (`audit.retention`), oldest first.
    /// - Returns: How many were deleted; fewer than `limit` means none are left to delete.
    func purgeAuditEvents(before time: Date, limit: Int) async throws -> Int
}

/// Small instance-wide secrets, created on first use.
public protocol SecretStore: Sendable {
    /// The secret named `name`, storing `candidate` if there is none yet.
    func secret(named name: String, orStore candidate: [UInt8]) async throws -> [UInt8]
    /// Replaces a secret's stored value, only while it is still `current`.
    /// - Returns: Whether it was replaced.
    func replaceSecret(named name: String, with value: [UInt8], replacing current: [UInt8]) async throws -> Bool
}

/// The FIDO metadata BLOB every instance verifies registrations with, and the passkeys a
/// change in it concerns.
public protocol MetadataStore: Sendable {
    /// The stored BLOB, if any.
    func metadataBLOB() async throws -> StoredMetadataBLOB?
    /// The stored BLOB's serial number, if one is stored: what running instances poll, at
    /// the cost of one small read, to pick up a BLOB another process stored.
    func metadataBLOBNumber() async throws -> Int?
    /// Stores `blob` unless the stored one has a higher serial number; one with the same
    /// number is left as it is.
    func saveMetadataBLOB(_ blob: StoredMetadataBLOB) async throws -> MetadataBLOBSave
    /// Every passkey registered from one of these authenticator models.
    func credentials(aaguids: Set<AAGUID>) async throws -> [PasskeyCredential]
}

/// What people allowed clients that are not first-party.
public protocol ConsentStore: Sendable {
    /// The consent `userID` gave `clientID`, if any.
    func consent(userID: UserID, clientID: String) async throws -> Consent?
    /// Stores a consent, replacing the one the user gave that client before (the caller
    /// passes the union when widening it).
    /// - Throws: a foreign key error when the user does not exist.
    func saveConsent(_ consent: Consent) async throws
    /// The user's consents, by client ID.
    func consents(userID: UserID) async throws -> [Consent]
    /// Withdraws a consent and, in the same transaction, revokes the refresh families the
    /// user has at that client, so the client's tokens stop working too.
    /// - Returns: Whether there was a consent.
    func revokeConsent(userID: UserID, clientID: String, at time: Date) async throws -> Bool
}

/// Everything IdentityCore persists, as one value to pass around.
public typealias IdentityStorage = UserStore & CredentialStore & CeremonyStore & RefreshTokenStore & SigningKeyStore & AuditLog & SecretStore
    & BrowserSessionStore & AuthorizationCodeStore & InteractiveFlowStore & AdminTokenStore & PasswordStore & MetadataStore & RateLimitStore
    & ConsentStore & MailOutboxStore & AccountCodeStore & AdministrationStore & WebhookStore & BackchannelLogoutStore & AccountImportStore
    & OperatorStore & StatsStore & SignalStreamStore

/// The mail outbox: messages queued by requests, sent by a background sender.
public protocol MailOutboxStore: Sendable {
    /// Queues a message, due at once.
    func enqueueMail(_ mail: OutboxMail) async throws
    /// Claims up to `limit` pending messages due at `time`: each one's attempts go up by one
    /// and it is not due again until `leaseUntil`, so that another instance (or this one
    /// after a crash mid-send) tries it only when this attempt has surely ended.
    func claimMail(dueAt time: Date, leaseUntil: Date, limit: Int) async throws -> [OutboxMail]
    /// Records how an attempt ended.
    func finishMail(id: String, outcome: MailOutcome, at time: Date) async throws
    /// Where a message stands, or `nil` when there is no such message.
    func mailState(id: String) async throws -> OutboxMailState?
    /// Deletes sent and failed messages queued before `time`, at most `limit`.
    /// - Returns: How many were deleted.
    func purgeMail(queuedBefore time: Date, limit: Int) async throws -> Int
}

/// One-time codes, saved recovery codes and the verified state of addresses.
public protocol AccountCodeStore: Sendable {
    /// Stores a code in place of the user's earlier one for the same purpose, when what is
    /// stored is what `replacing` names, and queues the mail that carries it, in one
    /// transaction (one write where sign-ups queue their code). An enrollment link's code
    /// travels without mail (`nil`): the administrator hands it on.
    /// - Returns: Whether the code was stored; when not, nothing was written.
    func saveOneTimeCode(_ code: OneTimeCode, queueing mail: OutboxMail?, replacing: OneTimeCodeReplacement) async throws -> Bool
    /// The user's code for `purpose`, if one is stored.
    func oneTimeCode(userID: UserID, purpose: OneTimeCodePurpose) async throws -> OneTimeCode?
    /// Counts one guess against the user's code for `purpose`.
    /// - Returns: The guesses counted so far, this one included; `nil` when there is no code.
    func countOneTimeCodeAttempt(userID: UserID, purpose: OneTimeCodePurpose) async throws -> Int?
    /// Deletes the user's code for `purpose` if its hash is `hash`: the single use.
    /// - Returns: Whether this call deleted it (of two concurrent uses, one wins).
    func consumeOneTimeCode(userID: UserID, purpose: OneTimeCodePurpose, hash: [UInt8]) async throws -> Bool
    /// Marks the user's email verified at `time`, if it is still `email`.
    /// - Returns: The user as now stored, or `nil` when the email changed or the user is gone.
    func markEmailVerified(userID: UserID, email: String, at time: Date) async throws -> User?
    /// Replaces the user's email address `old` with `new`, verified at `time`.
    /// - Returns: The user as now stored, or `nil` when the email is no longer `old`.
    /// - Throws: `StoreConflict(.identifier)` when another account has `new`.
    func changeEmail(userID: UserID, from old: String, to new: String, at time: Date) async throws -> User?
    /// Replaces the user's saved recovery codes with `codes`.
    func replaceRecoveryCodes(userID: UserID, with codes: [RecoveryCode]) async throws
    /// The user's saved recovery codes, used ones included.
    func recoveryCodes(userID: UserID) async throws -> [RecoveryCode]
    /// Marks the user's saved recovery code with this hash used, if it was not: by its hash,
    /// so that a new set made meanwhile has no code this marks.
    /// - Returns: Whether this call used it (of two concurrent uses, one wins).
    func useRecoveryCode(userID: UserID, hash: String, at time: Date) async throws -> Bool
    /// Adds `count` to a per-account counter at `time` and returns its value, this count
    /// included (`count` 0 only reads). A counter whose window ended starts again from
    /// `count`, its new window `window` seconds from `time`; `nil` never ends one.
    func countAccountEvents(_ counter: AccountCounter, subject: UserID, adding count: Int, window: TimeInterval?, at time: Date) async throws -> Int
    /// Sets a per-account counter back to zero.
    func resetAccountCounter(_ counter: AccountCounter, subject: UserID) async throws
    /// Deletes one-time codes that expired before `time`, and counters whose window ended
    /// before it.
    func purgeOneTimeCodes(expiredBefore time: Date) async throws -> Int
}

extension AccountCodeStore {
    /// Stores a code in place of any earlier one for the same user and purpose.
    public func saveOneTimeCode(_ code: OneTimeCode, queueing mail: OutboxMail?) async throws {
        _ = try await saveOneTimeCode(code, queueing: mail, replacing: .any)
    }
}
