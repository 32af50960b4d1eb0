public import Foundation
public import IdentityCore
public import WebAuthn
import Synchronization

/// IdentityCore's storage in memory, for fast service tests.
///
/// It keeps the semantics of ``StorageContract`` (the same suite runs against it and against
/// SQLite): every operation runs under one lock, so each is atomic exactly as a database
/// transaction would be, and constraint failures are reported as the database backends
/// report them (`StoreConflict` for uniqueness, ``InMemoryStorageError`` for the rest).
public final class InMemoryStorage: IdentityStorage {
    private let state = Mutex(State())
    fileprivate let counters = RequestCounters()

    /// An empty store.
    public init() {}

    // MARK: - Users

    /// The user with this ID.
    public func user(id: UserID) async throws -> User? {
        state.withLock { $0.users[id] }
    }

    /// The user an identifier belongs to. Identifiers compare exactly: normalizing them is
    /// the caller's job.
    public func user(identifier: Identifier) async throws -> User? {
        state.withLock { state in
            state.users.values.first { $0.profile.identifiers.contains(identifier) }
        }
    }

    /// The user whose WebAuthn user handle this is.
    public func user(handle: [UInt8]) async throws -> User? {
        state.withLock { state in state.users.values.first { $0.userHandle == handle } }
    }

    /// Creates a user together with their first passkey, atomically.
    public func createUser(_ user: User, credential: PasskeyCredential) async throws {
        try state.withLock { try $0.createUser(user, credential: credential) }
    }

    /// Sets a user's display name and `updatedAt`.
    public func updateName(userID: UserID, name: String?, at time: Date) async throws -> User? {
        state.withLock { state in
            guard var user = state.users[userID] else { return nil }
            user.profile.name = name
            user.updatedAt = time
            state.users[userID] = user
            return user
        }
    }

    // MARK: - Imports

    /// Writes an imported account atomically; a source ID imported before writes nothing.
    public func importAccount(_ account: ImportedAccount) async throws -> AccountImportWrite {
        try state.withLock { state in
            let key = account.source + "\n" + account.sourceID
            if let before = state.importedAccounts[key], state.users[before] != nil { return .importedBefore(before) }
            let user = account.user
            try account.requireStorable()
            try state.checkNewUser(user)
            var staged = state
            for credential in account.credentials {
                try staged.checkNewCredential(credential)
                staged.credentials.append(credential)
            }
            staged.users[user.id] = user
            if let hash = account.passwordHash { staged.passwords[user.id] = PasswordRecord(userID: user.id, hash: hash, createdAt: account.importedAt) }
            staged.importedAccounts[key] = user.id
            if let event = account.event { staged.events.append(event) }
            state = staged
            return .created
        }
    }

    /// Joins a record to an existing account atomically, while it has the address, verified.
    public func mergeImportedAccount(_ merge: ImportedMerge) async throws -> AccountMergeWrite {
        try merge.requireStorable()
        return state.withLock { state in
            let key = merge.source + "\n" + merge.sourceID
            if let before = state.importedAccounts[key], state.users[before] != nil { return .importedBefore(before) }
            guard var user = state.users[merge.userID], user.profile.email == merge.email, user.emailVerifiedAt != nil else { return .accountChanged }
            user.externalID = user.externalID ?? merge.externalID
            user.metadata = user.metadata ?? merge.metadata
            user.updatedAt = merge.importedAt
            state.users[user.id] = user
            var passwordAdded = false
            if let hash = merge.passwordHash, state.passwords[user.id] == nil {
                state.passwords[user.id] = PasswordRecord(userID: user.id, hash: hash, createdAt: merge.importedAt)
                passwordAdded = true
            }
            state.importedAccounts[key] = user.id
            if let event = merge.event { state.events.append(event) }
            return .merged(passwordAdded: passwordAdded)
        }
    }

    /// The account a source ID was imported as, while it exists.
    public func importedAccount(source: String, sourceID: String) async throws -> UserID? {
        state.withLock { state in state.importedAccounts[source + "\n" + sourceID].flatMap { state.users[$0] == nil ? nil : $0 } }
    }

    // MARK: - Passwords

    /// Stores `new` in place of `old` while `old` is still the account's hash.
    public func replacePasswordHash(userID: UserID, replacing old: String, with new: String) async throws -> Bool {
        state.withLock { state in
            guard let record = state.passwords[userID], record.hash == old else { return false }
            state.passwords[userID] = PasswordRecord(userID: userID, hash: new, createdAt: record.createdAt, lastUsedAt: record.lastUsedAt)
            return true
        }
    }

    /// The account's password record, removed or not.
    public func password(userID: UserID) async throws -> PasswordRecord? {
        state.withLock { $0.passwords[userID] }
    }

    /// Creates an account with a password and no passkey, atomically.
    public func createUser(_ user: User, password: PasswordRecord) async throws {
        try state.withLock { try $0.createUser(user, password: password) }
    }

    /// Records a password sign-in.
    public func recordPasswordUse(userID: UserID, at time: Date) async throws {
        state.withLock { state in
            guard let record = state.passwords[userID], record.hash != nil else { return }
            state.passwords[userID] = PasswordRecord(userID: userID, hash: record.hash, createdAt: record.createdAt, lastUsedAt: time)
        }
    }

    /// Removes the password while the account has a usable passkey.
    public func removePassword(userID: UserID, at time: Date) async throws -> PasswordRemoval {
        state.withLock { state in
            guard let record = state.passwords[userID], record.hash != nil else { return .noPassword }
            guard state.credentials.contains(where: { $0.userID == userID && !$0.isDisabled }) else { return .lastMethod }
            let removed = PasswordRecord(userID: userID, hash: nil, createdAt: record.createdAt, lastUsedAt: record.lastUsedAt, removedAt: time)
            state.passwords[userID] = removed
            state.revokeSessions(signedInWith: .password, of: userID, at: time)
            return .removed(removed)
        }
    }

    // MARK: - Credentials

    /// The credential with this ID.
    public func credential(id: [UInt8]) async throws -> PasskeyCredential? {
        state.withLock { state in state.credentials.first { $0.credentialID == id } }
    }

    /// The credential with this ID and its owner.
    public func credentialWithOwner(id: [UInt8]) async throws -> (credential: PasskeyCredential, owner: User)? {
        state.withLock { state in
            guard let credential = state.credentials.first(where: { $0.credentialID == id }), let owner = state.users[credential.userID] else { return nil }
            return (credential, owner)
        }
    }

    /// A user's credentials, oldest first (registration order among equal times).
    public func credentials(userID: UserID) async throws -> [PasskeyCredential] {
        state.withLock { state in
            state.credentials.enumerated()
                .filter { $0.element.userID == userID }
                .sorted { ($0.element.createdAt, $0.offset) < ($1.element.createdAt, $1.offset) }
                .map(\.element)
        }
    }

    /// The credential with this record ID.
    public func credential(recordID: String) async throws -> PasskeyCredential? {
        state.withLock { state in state.credentials.first { $0.recordID == recordID } }
    }

    /// The shapes of the usable passkeys of the oldest `limit` accounts that have one.
    public func allowListShapes(limit: Int) async throws -> [[CredentialShape]] {
        state.withLock { state in
            var order: [UserID] = []
            var lists: [UserID: [CredentialShape]] = [:]
            for credential in state.credentials where !credential.isDisabled {
                if lists[credential.userID] == nil { order.append(credential.userID) }
                lists[credential.userID, default: []].append(CredentialShape(idLength: credential.credentialID.count, transports: credential.transports))
            }
            return order.prefix(max(0, limit)).compactMap { lists[$0] }
        }
    }

    /// Turns a user's credential off or on again; an administrator's turning it off holds
    /// until an administrator turns it on.
    public func setCredentialDisabled(id: [UInt8], userID: UserID, disabled: Bool, byAdministrator: Bool, at time: Date) async throws -> CredentialStateChange {
        state.withLock { state in
            guard let index = state.credentials.firstIndex(where: { $0.credentialID == id && $0.userID == userID }) else { return .notFound }
            if !disabled, !byAdministrator, state.credentials[index].isDisabledByAdministrator { return .heldByAdministrator }
            state.credentials[index].isDisabled = disabled
            state.credentials[index].isDisabledByAdministrator = disabled && (state.credentials[index].isDisabledByAdministrator || byAdministrator)
            if disabled { state.revokeSessions(startedBy: id, at: time) }
            return .changed
        }
    }

    /// Adds a credential to an existing user.
    public func addCredential(_ credential: PasskeyCredential) async throws {
        try state.withLock { try $0.addCredential(credential) }
    }

    /// Renames a user's credential; `nil` clears the name.
    public func renameCredential(id: [UInt8], userID: UserID, name: String?) async throws -> Bool {
        try state.withLock { state in
            guard let index = state.credentials.firstIndex(where: { $0.credentialID == id && $0.userID == userID }) else {
                return false
            }
            if let name {
                let clash = state.credentials.contains { $0.userID == userID && $0.credentialID != id && $0.name == name }
                guard !clash else { throw StoreConflict(.credentialName) }
            }
            state.credentials[index].name = name
            return true
        }
    }

    /// Deletes a user's credential unless it is their only one and they have no password.
    public func deleteCredential(id: [UInt8], userID: UserID, at time: Date) async throws -> CredentialDeletion {
        state.withLock { state in
            guard let index = state.credentials.firstIndex(where: { $0.credentialID == id && $0.userID == userID }) else {
                return .notFound
            }
            guard state.credentials.count(where: { $0.userID == userID }) > 1 || state.passwords[userID]?.hash != nil else { return .lastCredential }
            state.credentials.remove(at: index)
            state.revokeSessions(startedBy: id, at: time)
            return .deleted
        }
    }

    // MARK: - Ceremonies

    /// Finishes a ceremony: its writes are applied to a copy of the state, which replaces
    /// the state only when every write succeeded, so a failure leaves nothing behind.
    public func completeCeremony(_ completion: CeremonyCompletion) async throws -> Bool {
        try state.withLock { state in
            guard !state.finishedCeremonies.contains(completion.key) else { return false }
            var draft = state
            draft.finishedCeremonies.insert(completion.key)
            if let account = completion.newAccount { try draft.createUser(account.user, credential: account.credential) }
            if let credential = completion.newCredential { try draft.addCredential(credential) }
            if let update = completion.credentialUse { try draft.recordUse(update) }
            for event in completion.events { draft.log(event) }
            switch completion.session {
            case .tokens(let start)?:
                try draft.startSession(start)
            case .browser(let session)?:
                try draft.saveBrowserSession(session)
            case nil:
                break
            }
            if let finished = completion.finishedFlow, var flow = draft.flows[finished.id], flow.completedAt == nil {
                flow.completedAt = finished.at
                draft.flows[finished.id] = flow
            }
            state = draft
            return true
        }
    }

    /// Forgets the keys of ceremonies that expired before `time`.
    public func purgeCeremonies(expiredBefore time: Date) async throws -> Int {
        state.withLock { state in
            let before = state.finishedCeremonies.count
            state.finishedCeremonies = state.finishedCeremonies.filter { !($0.expiresAt < time) }
            return before - state.finishedCeremonies.count
        }
    }

    // MARK: - Refresh tokens

    /// Stores a newly issued token, starting its family if the family is new.
    public func saveRefreshToken(_ record: RefreshTokenRecord) async throws {
        try state.withLock { try $0.saveRefreshToken(record) }
    }

    /// The stored record of a token.
    public func refreshToken(hash: [UInt8]) async throws -> RefreshTokenRecord? {
        state.withLock { $0.refreshTokens[hash]?.record }
    }

    /// Presents a token: see `SQLiteStorage.rotateRefreshToken` for the order of the checks.
    public func rotateRefreshToken(hash: [UInt8], clientID: String, newHash: [UInt8], newExpiresAt: Date, at time: Date) async throws -> RefreshOutcome {
        try state.withLock { state in
            guard let stored = state.refreshTokens[hash], stored.record.clientID == clientID,
                let family = state.families[stored.record.familyID], family.revokedAt == nil
            else { return .invalid }
            let previous = stored.record
            if stored.usedAt != nil {
                state.families[previous.familyID]?.revokedAt = time
                return .reused(familyID: previous.familyID, userID: previous.userID)
            }
            guard time < previous.expiresAt else { return .invalid }
            let replacement = previous.replacement(hash: newHash, issuedAt: time, expiresAt: newExpiresAt)
            // Insert first: a duplicate hash must leave the presented token unused.
            try state.insertToken(replacement)
            state.refreshTokens[hash]?.usedAt = time
            return .rotated(previous: previous)
        }
    }

    /// Revokes the family of a token issued to `clientID`.
    public func revokeRefreshTokenFamily(hash: [UInt8], clientID: String, at time: Date) async throws -> UserID? {
        state.withLock { state in
            guard let stored = state.refreshTokens[hash], stored.record.clientID == clientID else { return nil }
            if state.families[stored.record.familyID]?.revokedAt == nil {
                state.families[stored.record.familyID]?.revokedAt = time
            }
            return stored.record.userID
        }
    }

    /// Starts a family with no token yet; an existing family is left as it is.
    public func startSession(familyID: String, userID: UserID, clientID: String, at time: Date) async throws {
        try state.withLock { try $0.startSession(familyID: familyID, userID: userID, clientID: clientID, at: time) }
    }

    /// Starts a session and stores its first refresh token, all or nothing.
    public func startSession(_ start: TokenSessionStart) async throws {
        try state.withLock { state in
            var draft = state
            try draft.startSession(start)
            state = draft
        }
    }

    /// Revokes every family and live browser session of a user.
    public func revokeAllSessions(userID: UserID, at time: Date) async throws -> Int {
        state.withLock { state in
            var count = 0
            for (id, family) in state.families where family.userID == userID && family.revokedAt == nil {
                state.families[id]?.revokedAt = time
                count += 1
            }
            for (hash, stored) in state.browserSessions where stored.session.userID == userID && stored.revokedAt == nil && time < stored.session.expiresAt {
                state.browserSessions[hash] = (stored.session, time)
                count += 1
            }
            return count
        }
    }

    /// The consent `userID` gave `clientID`, if any.
    public func consent(userID: UserID, clientID: String) async throws -> Consent? {
        state.withLock { $0.consents[userID]?[clientID] }
    }

    /// Stores a consent in place of the earlier one.
    public func saveConsent(_ consent: Consent) async throws {
        try state.withLock { state in
            guard state.users[consent.userID] != nil else { throw InMemoryStorageError(.invalidArgument, "no user \(consent.userID)") }
            state.consents[consent.userID, default: [:]][consent.clientID] = consent
        }
    }

    /// The user's consents, by client ID.
    public func consents(userID: UserID) async throws -> [Consent] {
        state.withLock { ($0.consents[userID] ?? [:]).values.sorted { $0.clientID < $1.clientID } }
    }

    /// Withdraws a consent and revokes the user's families at that client.
    public func revokeConsent(userID: UserID, clientID: String, at time: Date) async throws -> Bool {
        state.withLock { state in
            for (id, family) in state.families where family.userID == userID && family.clientID == clientID && family.revokedAt == nil {
                state.families[id]?.revokedAt = time
            }
            return state.consents[userID]?.removeValue(forKey: clientID) != nil
        }
    }

    /// Whether a family of `userID` exists and has not been revoked.
    public func isSessionActive(familyID: String, userID: UserID) async throws -> Bool {
        state.withLock { state in
            guard let family = state.families[familyID], family.userID == userID else { return false }
            return family.revokedAt == nil
        }
    }

    // MARK: - Browser sessions

    /// Stores a new session.
    public func saveBrowserSession(_ session: BrowserSession) async throws {
        try state.withLock { try $0.saveBrowserSession(session) }
    }

    /// The session with this hash, if it is neither revoked nor expired at `time`.
    public func browserSession(hash: [UInt8], at time: Date) async throws -> BrowserSession? {
        state.withLock { state in
            guard let (session, revokedAt) = state.browserSessions[hash], revokedAt == nil, time < session.expiresAt else { return nil }
            return session
        }
    }

    /// Revokes a session, keeping its first revocation time.
    public func revokeBrowserSession(hash: [UInt8], at time: Date) async throws {
        state.withLock { state in
            if let stored = state.browserSessions[hash], stored.revokedAt == nil { state.browserSessions[hash] = (stored.session, time) }
            state.revokeLoginSessions(startedBy: hash, at: time)
        }
    }

    /// A user's live sessions, newest sign-in first.
    public func browserSessions(userID: UserID, at time: Date) async throws -> [BrowserSession] {
        state.withLock { state in
            state.browserSessions.values.filter { $0.session.userID == userID && $0.revokedAt == nil && time < $0.session.expiresAt }.map(\.session)
                .sorted { $0.authenticatedAt != $1.authenticatedAt ? $0.authenticatedAt > $1.authenticatedAt : $0.tokenHash.lexicographicallyPrecedes($1.tokenHash) }
        }
    }

    /// Deletes sessions that expired before `time`.
    public func purgeBrowserSessions(expiredBefore time: Date) async throws -> Int {
        state.withLock { state in
            let before = state.browserSessions.count
            state.browserSessions = state.browserSessions.filter { $0.value.session.expiresAt >= time }
            return before - state.browserSessions.count
        }
    }

    // MARK: - Administration tokens

    /// Stores a newly issued administration token.
    public func saveAdminToken(_ token: AdminToken) async throws {
        try state.withLock { state in
            guard state.adminTokens[token.tokenHash] == nil else { throw InMemoryStorageError(.invalidArgument, "an administration token with this hash exists") }
            state.adminTokens[token.tokenHash] = token
        }
    }

    /// The token with this hash, if it has not expired at `time`.
    public func adminToken(hash: [UInt8], at time: Date) async throws -> AdminToken? {
        state.withLock { state in state.adminTokens[hash].flatMap { time < $0.expiresAt ? $0 : nil } }
    }

    /// Deletes tokens that expired before `time`.
    public func purgeAdminTokens(expiredBefore time: Date) async throws -> Int {
        state.withLock { state in
            let before = state.adminTokens.count
            state.adminTokens = state.adminTokens.filter { $0.value.expiresAt >= time }
            return before - state.adminTokens.count
        }
    }

    // MARK: - Mail outbox

    /// Queues a message, due at once.
    public func enqueueMail(_ mail: OutboxMail) async throws {
        try StoredText.requireStorable(mail.id, mail.recipient, mail.recipientName, mail.subject, mail.text, mail.html, in: "enqueueMail")
        try state.withLock { state in
            guard state.outbox[mail.id] == nil else { throw InMemoryStorageError(.invalidArgument, "a message with this ID is queued") }
            state.outbox[mail.id] = (mail, "pending", mail.createdAt, nil)
            state.outboxOrder.append(mail.id)
        }
    }

    /// Claims due messages.
    public func claimMail(dueAt time: Date, leaseUntil: Date, limit: Int) async throws -> [OutboxMail] {
        state.withLock { state in
            let due = state.outboxOrder.compactMap { state.outbox[$0] }.filter { $0.status == "pending" && $0.due <= time }
                .sorted { $0.due < $1.due }.prefix(limit)
            return due.map { entry in
                var mail = entry.mail
                mail.attempts += 1
                state.outbox[mail.id] = (mail, "pending", leaseUntil, entry.lastError)
                return mail
            }
        }
    }

    /// Records how an attempt ended.
    public func finishMail(id: String, outcome: MailOutcome, at time: Date) async throws {
        state.withLock { state in
            guard let entry = state.outbox[id] else { return }
            let stored = outcome.stored
            if let due = stored.due {
                if entry.status == "pending" { state.outbox[id] = (entry.mail, "pending", due, stored.error) }
            } else {
                let erased = OutboxMail(
                    id: id, kind: entry.mail.kind, recipient: entry.mail.recipient, recipientName: entry.mail.recipientName, subject: entry.mail.subject,
                    text: "", html: "", createdAt: entry.mail.createdAt, attempts: entry.mail.attempts
                )
                state.outbox[id] = (erased, stored.status, entry.due, stored.error)
            }
        }
    }

    /// Where a message stands.
    public func mailState(id: String) async throws -> OutboxMailState? {
        state.withLock { state in
            state.outbox[id].map { OutboxMailState(status: $0.status, attempts: $0.mail.attempts, lastError: $0.lastError) }
        }
    }

    /// Deletes finished messages queued before `time`.
    public func purgeMail(queuedBefore time: Date, limit: Int) async throws -> Int {
        state.withLock { state in
            let doomed = state.outboxOrder.filter { id in state.outbox[id].map { $0.status != "pending" && $0.mail.createdAt < time } ?? false }.prefix(max(0, limit))
            for id in doomed { state.outbox[id] = nil }
            state.outboxOrder.removeAll { state.outbox[$0] == nil }
            return doomed.count
        }
    }

    // MARK: - One-time and recovery codes

    private static func codeKey(_ userID: UserID, _ purpose: OneTimeCodePurpose) -> String { purpose.rawValue + "\n" + userID.rawValue }

    /// Stores a code in place of the earlier one, when it is what `replacing` names, and
    /// queues its mail.
    public func saveOneTimeCode(_ code: OneTimeCode, queueing mail: OutboxMail?, replacing: OneTimeCodeReplacement) async throws -> Bool {
        defer { state.withLock { $0.oneTimeCodeSaves += 1 } }
        if let mail { try StoredText.requireStorable(mail.id, mail.recipient, mail.recipientName, mail.subject, mail.text, mail.html, in: "saveOneTimeCode") }
        return try state.withLock { state in
            let stored = state.oneTimeCodes[Self.codeKey(code.userID, code.purpose)]
            switch replacing {
            case .any: break
            case .none: guard stored == nil else { return false }
            case .code(let hash): guard stored?.hash == hash else { return false }
            }
            if let mail {
                guard state.outbox[mail.id] == nil else { throw InMemoryStorageError(.invalidArgument, "a message with this ID is queued") }
                state.outbox[mail.id] = (mail, "pending", mail.createdAt, nil)
                state.outboxOrder.append(mail.id)
            }
            state.oneTimeCodes[Self.codeKey(code.userID, code.purpose)] = code
            return true
        }
    }

    /// Adds to a per-account counter, starting it again when its window ended.
    public func countAccountEvents(_ counter: AccountCounter, subject: UserID, adding count: Int, window: TimeInterval?, at time: Date) async throws -> Int {
        state.withLock { state in
            let key = counter.rawValue + "\n" + subject.rawValue
            let live = state.accountCounters[key].flatMap { entry in entry.expiresAt.map { $0 > time } ?? true ? entry : nil }
            var entry: (count: Int, expiresAt: Date?) = live ?? (0, window.map { time.addingTimeInterval($0) })
            guard count != 0 else { return entry.count }
            entry.count += count
            state.accountCounters[key] = entry
            return entry.count
        }
    }

    /// Sets a per-account counter back to zero.
    public func resetAccountCounter(_ counter: AccountCounter, subject: UserID) async throws {
        state.withLock { $0.accountCounters[counter.rawValue + "\n" + subject.rawValue] = nil }
    }

    /// The user's code for `purpose`.
    /// How many codes were offered to ``saveOneTimeCode(_:queueing:replacing:)``, stored or
    /// not: what a test waits on when a code is issued off the request's path.
    public var oneTimeCodeSaves: Int { state.withLock { $0.oneTimeCodeSaves } }

    public func oneTimeCode(userID: UserID, purpose: OneTimeCodePurpose) async throws -> OneTimeCode? {
        state.withLock { $0.oneTimeCodes[Self.codeKey(userID, purpose)] }
    }

    /// Counts one guess.
    public func countOneTimeCodeAttempt(userID: UserID, purpose: OneTimeCodePurpose) async throws -> Int? {
        state.withLock { state in
            let key = Self.codeKey(userID, purpose)
            guard let code = state.oneTimeCodes[key] else { return nil }
            let counted = OneTimeCode(
                userID: code.userID, purpose: code.purpose, hash: code.hash, address: code.address, createdAt: code.createdAt, expiresAt: code.expiresAt,
                attempts: code.attempts + 1, issued: code.issued
            )
            state.oneTimeCodes[key] = counted
            return counted.attempts
        }
    }

    /// Deletes the code if its hash is `hash`.
    public func consumeOneTimeCode(userID: UserID, purpose: OneTimeCodePurpose, hash: [UInt8]) async throws -> Bool {
        state.withLock { state in
            let key = Self.codeKey(userID, purpose)
            guard state.oneTimeCodes[key]?.hash == hash else { return false }
            state.oneTimeCodes[key] = nil
            return true
        }
    }

    /// Marks the email verified if it is still `email`.
    public func markEmailVerified(userID: UserID, email: String, at time: Date) async throws -> User? {
        state.withLock { state in
            guard var user = state.users[userID], user.profile.email == email else { return nil }
            user.emailVerifiedAt = time
            user.updatedAt = time
            state.users[userID] = user
            return user
        }
    }

    /// Replaces the email address, verified.
    public func changeEmail(userID: UserID, from old: String, to new: String, at time: Date) async throws -> User? {
        try state.withLock { state in
            guard var user = state.users[userID], user.profile.email == old else { return nil }
            if state.users.values.contains(where: { $0.id != userID && $0.profile.email == new }) { throw StoreConflict(.identifier) }
            user.profile.email = new
            user.emailVerifiedAt = time
            user.updatedAt = time
            state.users[userID] = user
            return user
        }
    }

    /// Deletes codes that expired before `time`.
    public func purgeOneTimeCodes(expiredBefore time: Date) async throws -> Int {
        state.withLock { state in
            let before = state.oneTimeCodes.count
            state.oneTimeCodes = state.oneTimeCodes.filter { $0.value.expiresAt >= time }
            let counters = state.accountCounters.count
            state.accountCounters = state.accountCounters.filter { $0.value.expiresAt.map { $0 >= time } ?? true }
            return before - state.oneTimeCodes.count + counters - state.accountCounters.count
        }
    }

    /// Replaces the user's saved recovery codes.
    public func replaceRecoveryCodes(userID: UserID, with codes: [RecoveryCode]) async throws {
        try state.withLock { state in
            guard state.users[userID] != nil else { throw InMemoryStorageError(.invalidArgument, "no such user") }
            state.recoveryCodes[userID] = codes
        }
    }

    /// The user's saved recovery codes.
    public func recoveryCodes(userID: UserID) async throws -> [RecoveryCode] {
        state.withLock { $0.recoveryCodes[userID] ?? [] }
    }

    /// Marks a saved recovery code used, if it was not.
    public func useRecoveryCode(userID: UserID, hash: String, at time: Date) async throws -> Bool {
        state.withLock { state in
            guard var codes = state.recoveryCodes[userID], let index = codes.firstIndex(where: { $0.hash == hash && $0.usedAt == nil }) else { return false }
            let code = codes[index]
            codes[index] = RecoveryCode(id: code.id, userID: code.userID, hash: code.hash, createdAt: code.createdAt, usedAt: time, lookupKey: code.lookupKey)
            state.recoveryCodes[userID] = codes
            return true
        }
    }

    // MARK: - Flows

    /// Stores a new flow.
    public func saveFlow(_ flow: InteractiveFlow) async throws {
        try state.withLock { state in
            if let userID = flow.userID, state.users[userID] == nil { throw InMemoryStorageError(.invalidArgument, "no user \(userID)") }
            guard state.flows[flow.id] == nil else { throw InMemoryStorageError(.invalidArgument, "a flow with this ID exists") }
            state.flows[flow.id] = flow
        }
    }

    /// The flow with this ID.
    public func flow(id: String) async throws -> InteractiveFlow? {
        state.withLock { $0.flows[id] }
    }

    /// Gives an uncompleted flow a new ceremony.
    public func renewFlow(id: String, ceremonyID: String, options: [UInt8]) async throws -> Bool {
        state.withLock { state in
            guard var flow = state.flows[id], flow.completedAt == nil else { return false }
            flow.ceremonyID = ceremonyID
            flow.options = options
            state.flows[id] = flow
            return true
        }
    }

    /// Marks a flow completed once.
    public func completeFlow(id: String, at time: Date) async throws -> Bool {
        state.withLock { state in
            guard var flow = state.flows[id], flow.completedAt == nil else { return false }
            flow.completedAt = time
            state.flows[id] = flow
            return true
        }
    }

    /// Deletes flows that expired before `time`.
    public func purgeFlows(expiredBefore time: Date) async throws -> Int {
        state.withLock { state in
            let before = state.flows.count
            state.flows = state.flows.filter { $0.value.expiresAt >= time }
            return before - state.flows.count
        }
    }

    // MARK: - Authorization codes

    /// Stores a new code.
    public func saveAuthorizationCode(_ code: AuthorizationCode) async throws {
        try state.withLock { state in
            guard state.users[code.userID] != nil else { throw InMemoryStorageError(.invalidArgument, "no user \(code.userID)") }
            guard state.codes[code.codeHash] == nil else { throw InMemoryStorageError(.invalidArgument, "a code with this hash exists") }
            state.codes[code.codeHash] = (code, nil)
        }
    }

    /// Presents a code: see `SQLiteStorage.consumeAuthorizationCode` for the order of the checks.
    public func consumeAuthorizationCode(hash: [UInt8], at time: Date, starting session: TokenSessionStart?) async throws -> AuthorizationCodeOutcome {
        try state.withLock { state in
            guard let (code, usedAt) = state.codes[hash] else { return .invalid }
            if usedAt != nil {
                if state.families[code.sessionID]?.revokedAt == nil { state.families[code.sessionID]?.revokedAt = time }
                return .reused(code)
            }
            guard time < code.expiresAt else { return .invalid }
            var draft = state
            draft.codes[hash] = (code, time)
            if let session {
                try draft.startSession(session)
                if let browser = code.browserSession { draft.families[session.familyID]?.browserSession = browser }
            }
            state = draft
            return .consumed(code)
        }
    }

    /// The stored code, whatever its state.
    public func authorizationCode(hash: [UInt8]) async throws -> AuthorizationCode? {
        state.withLock { $0.codes[hash]?.code }
    }

    /// Deletes codes that expired before `time`.
    public func purgeAuthorizationCodes(expiredBefore time: Date) async throws -> Int {
        state.withLock { state in
            let before = state.codes.count
            state.codes = state.codes.filter { $0.value.code.expiresAt >= time }
            return before - state.codes.count
        }
    }

    /// Deletes the oldest events before `time`, at most `limit`.
    public func purgeAuditEvents(before time: Date, limit: Int) async throws -> Int {
        state.withLock { state in
            let old = state.events.enumerated().filter { $0.element.time < time }.sorted { $0.element.time < $1.element.time }.prefix(max(0, limit))
            let doomed = Set(old.map(\.offset))
            state.events = state.events.enumerated().filter { !doomed.contains($0.offset) }.map(\.element)
            return doomed.count
        }
    }

    /// Deletes up to `limit` families started before `time`, with their tokens.
    public func purgeRefreshTokenFamilies(startedBefore time: Date, limit: Int) async throws -> Int {
        state.withLock { state in
            let doomed = state.families.filter { $0.value.startedAt < time }.prefix(max(0, limit)).map(\.key)
            for family in doomed {
                state.families[family] = nil
                state.familyCredentials[family] = nil
                state.refreshTokens = state.refreshTokens.filter { $0.value.record.familyID != family }
            }
            return doomed.count
        }
    }

    // MARK: - Signing keys

    /// Every stored key, newest first (by creation time, then by insertion).
    public func signingKeys() async throws -> [SigningKeyRecord] {
        state.withLock { state in
            state.signingKeys.enumerated()
                .sorted { ($0.element.createdAt, $0.offset) > ($1.element.createdAt, $1.offset) }
                .map(\.element)
        }
    }

    /// Adds a key and retires every other unretired key at `time`.
    public func addSigningKey(_ key: SigningKeyRecord, at time: Date) async throws {
        try state.withLock { state in
            guard !state.signingKeys.contains(where: { $0.keyID == key.keyID }) else {
                throw InMemoryStorageError(.invalidArgument, "signing key \(key.keyID) exists")
            }
            state.signingKeys = state.signingKeys.map { existing in
                guard existing.retiredAt == nil, existing.algorithm == key.algorithm else { return existing }
                return existing.retired(at: time)
            }
            state.signingKeys.append(key)
        }
    }

    /// Adds the key unless an unretired key exists.
    public func addFirstSigningKey(_ key: SigningKeyRecord) async throws -> Bool {
        state.withLock { state in
            guard !state.signingKeys.contains(where: { $0.retiredAt == nil && $0.algorithm == key.algorithm }) else { return false }
            state.signingKeys.append(key.retired(at: nil))
            return true
        }
    }

    // MARK: - Administration

    /// Stores a new admin API key.
    public func saveAdminKey(_ key: AdminAPIKey) async throws {
        try state.withLock { state in
            guard !state.adminKeys.contains(where: { $0.id == key.id || $0.keyHash == key.keyHash }) else {
                throw InMemoryStorageError(.invalidArgument, "admin key \(key.id) exists")
            }
            state.adminKeys.append(key)
        }
    }

    /// The key with this SHA-256.
    public func adminKey(hash: [UInt8]) async throws -> AdminAPIKey? {
        state.withLock { state in state.adminKeys.first { $0.keyHash == hash } }
    }

    /// Every key, oldest first.
    public func adminKeys() async throws -> [AdminAPIKey] {
        state.withLock { state in state.adminKeys.enumerated().sorted { ($0.element.createdAt, $0.offset) < ($1.element.createdAt, $1.offset) }.map(\.element) }
    }

    /// Revokes a live key.
    public func revokeAdminKey(id: String, at time: Date) async throws -> Bool {
        state.withLock { state in
            guard let index = state.adminKeys.firstIndex(where: { $0.id == id && $0.revokedAt == nil }) else { return false }
            state.adminKeys[index].revokedAt = time
            return true
        }
    }

    /// Records a key's use.
    public func recordAdminKeyUse(id: String, at time: Date) async throws {
        state.withLock { state in
            if let index = state.adminKeys.firstIndex(where: { $0.id == id }) { state.adminKeys[index].lastUsedAt = time }
        }
    }

    /// Creates an account with no way to sign in yet.
    public func createUser(_ user: User) async throws {
        try state.withLock { state in
            try state.checkNewUser(user)
            state.users[user.id] = user
        }
    }

    /// A page of the directory.
    public func users(_ query: UserQuery) async throws -> [User] {
        guard query.limit > 0 else { return [] }
        return state.withLock { state in
            Array(state.users.values.filter(query.matches).sorted(by: UserCursor.directoryOrder).prefix(query.limit))
        }
    }

    /// Turns an account off (revoking its sessions) or on.
    public func setUserDisabled(id: UserID, disabled: Bool, at time: Date) async throws -> User? {
        state.withLock { state in
            guard var user = state.users[id] else { return nil }
            user.disabledAt = disabled ? (user.disabledAt ?? time) : nil
            user.updatedAt = time
            state.users[id] = user
            if disabled {
                for (familyID, family) in state.families where family.userID == id && family.revokedAt == nil { state.families[familyID]?.revokedAt = time }
                for (hash, stored) in state.browserSessions where stored.session.userID == id && stored.revokedAt == nil {
                    state.browserSessions[hash] = (stored.session, time)
                }
            }
            return user
        }
    }

    /// Deletes an account and everything that names it; its events stay.
    public func deleteUser(id: UserID, at time: Date) async throws -> Bool {
        state.withLock { state in
            guard state.users.removeValue(forKey: id) != nil else { return false }
            state.credentials.removeAll { $0.userID == id }
            // Revoked before they go, as the stores do.
            for (familyID, family) in state.families where family.userID == id && family.revokedAt == nil { state.families[familyID]?.revokedAt = time }
            let families = Set(state.families.filter { $0.value.userID == id }.keys)
            for family in families {
                state.families[family] = nil
                state.familyCredentials[family] = nil
            }
            state.refreshTokens = state.refreshTokens.filter { !families.contains($0.value.record.familyID) }
            state.browserSessions = state.browserSessions.filter { $0.value.session.userID != id }
            state.codes = state.codes.filter { $0.value.code.userID != id }
            state.flows = state.flows.filter { $0.value.userID != id }
            state.passwords[id] = nil
            state.operators[id] = nil
            state.consents[id] = nil
            state.oneTimeCodes = state.oneTimeCodes.filter { $0.value.userID != id }
            state.accountCounters = state.accountCounters.filter { !$0.key.hasSuffix("\n" + id.rawValue) }
            state.recoveryCodes[id] = nil
            return true
        }
    }

    /// A user's sessions, newest first.
    public func sessions(userID: UserID) async throws -> [SessionSummary] {
        state.withLock { state in
            let families = state.families.filter { $0.value.userID == userID }.map { id, family in
                SessionSummary(
                    id: id, kind: .tokens, clientID: family.clientID, method: family.method, credentialID: state.familyCredentials[id],
                    startedAt: family.startedAt, expiresAt: nil, revokedAt: family.revokedAt
                )
            }
            let browsers = state.browserSessions.filter { $0.value.session.userID == userID }.map { hash, stored in
                SessionSummary(
                    id: SessionSummary.browserSessionID(tokenHash: hash), kind: .browser, clientID: nil, method: stored.session.method,
                    credentialID: stored.session.credentialID, startedAt: stored.session.authenticatedAt, expiresAt: stored.session.expiresAt,
                    revokedAt: stored.revokedAt
                )
            }
            return (families + browsers).sorted(by: SessionSummary.newestFirst)
        }
    }

    /// Revokes one active session of a user.
    public func revokeSession(id: String, userID: UserID, at time: Date) async throws -> Bool {
        state.withLock { state in
            if let hash = SessionSummary.browserTokenHash(id: id) {
                guard let stored = state.browserSessions[hash], stored.session.userID == userID, stored.revokedAt == nil, time < stored.session.expiresAt else {
                    return false
                }
                state.browserSessions[hash] = (stored.session, time)
                state.revokeLoginSessions(startedBy: hash, at: time)
                return true
            }
            guard let family = state.families[id], family.userID == userID, family.revokedAt == nil else { return false }
            state.families[id]?.revokedAt = time
            return true
        }
    }

    /// Audit events matching a filter, newest first; an event's position is its place in
    /// the log, counted from 1.
    public func events(_ query: AuditQuery) async throws -> [LoggedEvent] {
        guard query.limit > 0 else { return [] }
        return state.withLock { state in
            Array(state.events.enumerated().reversed().lazy.map { LoggedEvent(id: Int64($0.offset + 1), event: $0.element) }.filter(query.matches).prefix(query.limit))
        }
    }

    // MARK: - Webhooks

    /// Makes these the subscriptions, keeping the Shared Signals streams' (theirs to change).
    public func replaceWebhookSubscriptions(_ subscriptions: [String: Set<AuditEvent.Kind>]) async throws {
        state.withLock { state in
            let streams = state.webhookSubscriptions.filter { $0.key.hasPrefix(SignalStream.endpointPrefix) }
            state.webhookSubscriptions = streams.merging(subscriptions.filter { !$0.value.isEmpty }) { _, new in new }
        }
    }

    /// Claims due deliveries of endpoints that are on; the streams' are their sender's.
    public func claimWebhookDeliveries(dueAt time: Date, leaseUntil: Date, limit: Int) async throws -> [WebhookDelivery] {
        state.withLock { state in
            let due = state.webhookDeliveries.indices.filter { index in
                let delivery = state.webhookDeliveries[index]
                return delivery.status == .pending && delivery.nextAttemptAt <= time && state.webhookEndpointsOff[delivery.endpointID] == nil
                    && !delivery.endpointID.hasPrefix(SignalStream.endpointPrefix)
            }.sorted { state.webhookDeliveries[$0].nextAttemptAt < state.webhookDeliveries[$1].nextAttemptAt }.prefix(max(0, limit))
            return due.map { index in
                let delivery = state.webhookDeliveries[index]
                state.webhookDeliveries[index] = delivery.changed(attempts: delivery.attempts + 1, nextAttemptAt: leaseUntil)
                return state.webhookDeliveries[index]
            }
        }
    }

    /// Records how an attempt ended.
    public func finishWebhookDelivery(id: String, outcome: WebhookAttemptOutcome, at time: Date) async throws {
        let stored = outcome.stored
        state.withLock { state in
            guard let index = state.webhookDeliveries.firstIndex(where: { $0.id == id }) else { return }
            let delivery = state.webhookDeliveries[index]
            state.webhookDeliveries[index] = delivery.changed(
                status: stored.status, nextAttemptAt: stored.retryAt ?? delivery.nextAttemptAt, lastStatus: .some(stored.lastStatus), lastError: .some(stored.error),
                deliveredAt: .some(stored.status == .delivered ? time : nil)
            )
        }
    }

    /// Turns an endpoint off; its pending deliveries fail.
    public func disableWebhookEndpoint(id: String, reason: String, at time: Date) async throws {
        state.withLock { state in
            if state.webhookEndpointsOff[id] == nil { state.webhookEndpointsOff[id] = reason }
            for index in state.webhookDeliveries.indices where state.webhookDeliveries[index].endpointID == id && state.webhookDeliveries[index].status == .pending {
                let delivery = state.webhookDeliveries[index]
                state.webhookDeliveries[index] = delivery.changed(status: .failed, lastError: .some(delivery.lastError ?? "endpoint turned off"))
            }
        }
    }

    /// Turns an endpoint on again.
    public func enableWebhookEndpoint(id: String) async throws -> Bool {
        state.withLock { $0.webhookEndpointsOff.removeValue(forKey: id) != nil }
    }

    /// The endpoints that are off.
    public func disabledWebhookEndpoints() async throws -> [String: String] {
        state.withLock { $0.webhookEndpointsOff }
    }

    /// Deliveries, newest first.
    public func webhookDeliveries(status: WebhookDeliveryStatus?, before: Int64?, limit: Int) async throws -> [WebhookDelivery] {
        guard limit > 0 else { return [] }
        return state.withLock { state in
            Array(state.webhookDeliveries.reversed().filter { delivery in
                (status == nil || delivery.status == status) && (before.map { delivery.position < $0 } ?? true)
                    && !delivery.endpointID.hasPrefix(SignalStream.endpointPrefix)
            }.prefix(limit))
        }
    }

    /// Makes a delivery due now again.
    public func resendWebhookDelivery(id: String, at time: Date) async throws -> WebhookDelivery? {
        state.withLock { state in
            guard let index = state.webhookDeliveries.firstIndex(where: { $0.id == id && !$0.endpointID.hasPrefix(SignalStream.endpointPrefix) }) else { return nil }
            state.webhookDeliveries[index] = state.webhookDeliveries[index].changed(status: .pending, attempts: 0, nextAttemptAt: time, deliveredAt: .some(nil))
            return state.webhookDeliveries[index]
        }
    }

    /// Deletes finished deliveries written before `time`.
    public func purgeWebhookDeliveries(before time: Date, limit: Int) async throws -> Int {
        state.withLock { state in
            let doomed = Set(state.webhookDeliveries.filter { $0.status != .pending && $0.createdAt < time }.prefix(max(0, limit)).map(\.id))
            state.webhookDeliveries.removeAll { doomed.contains($0.id) }
            return doomed.count
        }
    }

    // MARK: - Shared Signals streams

    /// Writes the stream and its subscriptions; pending deliveries to endpoints it no longer
    /// has go (a verification stays, whatever the stream asks for).
    public func saveSignalStream(_ stream: SignalStream) async throws {
        state.withLock { state in
            state.signalStreams[stream.id] = stream
            let kept = stream.subscriptions.filter { !$0.value.isEmpty }
            state.webhookSubscriptions = state.webhookSubscriptions.filter { !stream.owns(endpoint: $0.key) }.merging(kept) { _, new in new }
            let verification = SignalEventType.verification.endpoint(stream: stream.id)
            state.webhookDeliveries.removeAll { delivery in
                delivery.status == .pending && stream.owns(endpoint: delivery.endpointID) && kept[delivery.endpointID] == nil && delivery.endpointID != verification
            }
        }
    }

    /// Every stream, oldest first (IDs break ties).
    public func signalStreams() async throws -> [SignalStream] {
        state.withLock { $0.signalStreams.values.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) } }
    }

    /// The stream with this ID.
    public func signalStream(id: String) async throws -> SignalStream? {
        state.withLock { $0.signalStreams[id] }
    }

    /// Deletes a stream, its subscriptions and its pending deliveries.
    public func deleteSignalStream(id: String) async throws -> Bool {
        state.withLock { state in
            guard let stream = state.signalStreams.removeValue(forKey: id) else { return false }
            state.webhookSubscriptions = state.webhookSubscriptions.filter { !stream.owns(endpoint: $0.key) }
            state.webhookDeliveries.removeAll { $0.status == .pending && stream.owns(endpoint: $0.endpointID) }
            return true
        }
    }

    /// Records the event (which writes what subscribes to its kind, as `record` does) and
    /// one delivery of it to `endpoint`, unless that was among them.
    public func queueSignal(_ event: AuditEvent, endpoint: String) async throws {
        let kept = Self.stored(event)
        state.withLock { state in
            state.log(kept)
            let id = Int64(state.events.count)
            let deliveryID = WebhookDelivery.id(event: id, endpoint: endpoint)
            guard !state.webhookDeliveries.contains(where: { $0.id == deliveryID }) else { return }
            state.appendDelivery(of: LoggedEvent(id: id, event: kept), to: endpoint)
        }
    }

    /// Claims due deliveries to the streams' endpoints, stream by stream, each's oldest first.
    public func claimSignalDeliveries(streams: [String], dueAt time: Date, leaseUntil: Date, limit: Int) async throws -> [WebhookDelivery] {
        state.withLock { state in
            var claimed: [WebhookDelivery] = []
            for stream in streams where claimed.count < limit {
                let prefix = SignalStream.endpointPrefix(of: stream)
                // In insertion order, which is the order of positions.
                let due = state.webhookDeliveries.indices.filter { index in
                    let delivery = state.webhookDeliveries[index]
                    return delivery.status == .pending && delivery.nextAttemptAt <= time && delivery.endpointID.hasPrefix(prefix)
                }.prefix(limit - claimed.count)
                for index in due {
                    let delivery = state.webhookDeliveries[index]
                    state.webhookDeliveries[index] = delivery.changed(attempts: delivery.attempts + 1, nextAttemptAt: leaseUntil)
                    claimed.append(state.webhookDeliveries[index])
                }
            }
            return claimed
        }
    }

    /// The stream's pending deliveries, oldest first, whether due or not.
    public func pendingSignals(stream: String, limit: Int) async throws -> [WebhookDelivery] {
        let prefix = SignalStream.endpointPrefix(of: stream)
        return state.withLock { state in
            Array(state.webhookDeliveries.filter { $0.status == .pending && $0.endpointID.hasPrefix(prefix) }.prefix(max(0, limit)))
        }
    }

    // MARK: - Back-channel logout

    /// Makes these the clients told of their sessions' ends.
    public func replaceBackchannelLogoutClients(_ clientIDs: Set<String>) async throws {
        state.withLock { $0.backchannelLogoutClients = clientIDs }
    }

    /// Claims due notices.
    public func claimBackchannelLogouts(dueAt time: Date, leaseUntil: Date, limit: Int) async throws -> [BackchannelLogout] {
        state.withLock { state in
            let due = state.backchannelLogouts.indices.filter { state.backchannelLogouts[$0].status == .pending && state.backchannelLogouts[$0].nextAttemptAt <= time }
                .sorted { state.backchannelLogouts[$0].nextAttemptAt < state.backchannelLogouts[$1].nextAttemptAt }.prefix(max(0, limit))
            return due.map { index in
                let notice = state.backchannelLogouts[index]
                state.backchannelLogouts[index] = notice.changed(status: .pending, attempts: notice.attempts + 1, nextAttemptAt: leaseUntil)
                return state.backchannelLogouts[index]
            }
        }
    }

    /// Records how an attempt ended.
    public func finishBackchannelLogout(position: Int64, outcome: WebhookAttemptOutcome, at time: Date) async throws {
        let stored = outcome.stored
        state.withLock { state in
            guard let index = state.backchannelLogouts.firstIndex(where: { $0.position == position }) else { return }
            let notice = state.backchannelLogouts[index]
            state.backchannelLogouts[index] = notice.changed(
                status: stored.status, attempts: notice.attempts, nextAttemptAt: stored.retryAt ?? notice.nextAttemptAt, lastStatus: stored.lastStatus,
                lastError: stored.error
            )
        }
    }

    /// Notices, newest first.
    public func backchannelLogouts(status: WebhookDeliveryStatus?, limit: Int) async throws -> [BackchannelLogout] {
        guard limit > 0 else { return [] }
        return state.withLock { state in Array(state.backchannelLogouts.reversed().filter { status == nil || $0.status == status }.prefix(limit)) }
    }

    /// Deletes finished notices written before `time`.
    public func purgeBackchannelLogouts(before time: Date, limit: Int) async throws -> Int {
        state.withLock { state in
            let doomed = Set(state.backchannelLogouts.filter { $0.status != .pending && $0.createdAt < time }.prefix(max(0, limit)).map(\.position))
            state.backchannelLogouts.removeAll { doomed.contains($0.position) }
            return doomed.count
        }
    }

    // MARK: - Audit

    /// Records an event.
    public func record(_ event: AuditEvent) async throws {
        let kept = Self.stored(event)
        state.withLock { $0.log(kept) }
    }

    /// An event as every backend keeps it: U+0000 replaced (see StoredText).
    private static func stored(_ event: AuditEvent) -> AuditEvent {
        AuditEvent(
            time: event.time, kind: event.kind, userID: event.userID.map { UserID(rawValue: StoredText.sanitized($0.rawValue)) },
            clientID: event.clientID.map(StoredText.sanitized), credentialID: event.credentialID.map(StoredText.sanitized), detail: StoredText.sanitized(event.detail),
            actor: event.actor.map(StoredText.sanitized),
            origin: event.origin.map { RequestOrigin(ip: $0.ip.map(StoredText.sanitized), userAgent: $0.userAgent.map(StoredText.sanitized), face: $0.face) }
        )
    }

    /// The most recent events, newest first (by time, then by insertion), optionally for one
    /// user. A `limit` of zero or less returns nothing.
    public func events(userID: UserID?, limit: Int) async throws -> [AuditEvent] {
        guard limit > 0 else { return [] }
        return state.withLock { state in
            Array(
                state.events.enumerated()
                    .filter { userID == nil || $0.element.userID == userID }
                    .sorted { ($0.element.time, $0.offset) > ($1.element.time, $1.offset) }
                    .prefix(limit)
                    .map(\.element)
            )
        }
    }

    // MARK: - Secrets

    /// The secret named `name`, storing `candidate` if there is none yet.
    public func secret(named name: String, orStore candidate: [UInt8]) async throws -> [UInt8] {
        state.withLock { state in
            if let existing = state.secrets[name] { return existing }
            state.secrets[name] = candidate
            return candidate
        }
    }

    /// Replaces a secret's value while it is still `current`.
    public func replaceSecret(named name: String, with value: [UInt8], replacing current: [UInt8]) async throws -> Bool {
        state.withLock { state in
            guard state.secrets[name] == current else { return false }
            state.secrets[name] = value
            return true
        }
    }

    /// Replaces a key's private key while it is still `current`.
    public func replaceSigningKeyMaterial(keyID: String, with privateKey: [UInt8], replacing current: [UInt8]) async throws -> Bool {
        state.withLock { state in
            guard let index = state.signingKeys.firstIndex(where: { $0.keyID == keyID && $0.privateKey == current }) else { return false }
            let key = state.signingKeys[index]
            state.signingKeys[index] = key.storing(privateKey)
            return true
        }
    }
}

// MARK: - Rate limits

extension InMemoryStorage {
    public func countRequests(key: String, adding count: Int, window: TimeInterval, at time: Date) async throws -> Int {
        counters.count(key: key, adding: count, window: window, at: time)
    }

    public func purgeRequestCounts(before time: Date) async throws -> Int { 0 }
}

// MARK: - Metadata

extension InMemoryStorage {
    public func metadataBLOB() async throws -> StoredMetadataBLOB? {
        state.withLock { $0.metadataBLOB }
    }

    public func metadataBLOBNumber() async throws -> Int? {
        try await metadataBLOB()?.number
    }

    public func saveMetadataBLOB(_ blob: StoredMetadataBLOB) async throws -> MetadataBLOBSave {
        state.withLock { state in
            if let stored = state.metadataBLOB {
                if stored.number > blob.number { return .older(stored: stored.number) }
                if stored.number == blob.number { return .unchanged }
            }
            state.metadataBLOB = blob
            return .stored
        }
    }

    public func credentials(aaguids: Set<AAGUID>) async throws -> [PasskeyCredential] {
        state.withLock { state in
            state.credentials.enumerated()
                .filter { aaguids.contains($0.element.aaguid) }
                .sorted { ($0.element.createdAt, $0.offset) < ($1.element.createdAt, $1.offset) }
                .map(\.element)
        }
    }
}

// MARK: - State

private struct StoredToken {
    let record: RefreshTokenRecord
    var usedAt: Date?
}

private struct Family {
    let userID: UserID
    let clientID: String
    var revokedAt: Date?
    var startedAt: Date = .distantPast
    var method: SignInMethod = .passkey
    /// The browser session whose code started it, which ends it too.
    var browserSession: [UInt8]?
}

extension InMemoryStorage {
    public func setOperatorRole(userID: UserID, role: OperatorRole?, at time: Date) async throws -> Bool {
        state.withLock { state in
            guard state.users[userID] != nil else { return false }
            if let role {
                if state.operators[userID]?.role != role { state.operators[userID] = Operator(userID: userID, role: role, since: time) }
            } else {
                state.operators[userID] = nil
            }
            return true
        }
    }

    public func operatorRole(userID: UserID) async throws -> OperatorRole? { state.withLock { $0.operators[userID]?.role } }

    public func operators() async throws -> [Operator] {
        state.withLock { $0.operators.values.sorted { ($0.since, $0.userID.rawValue) < ($1.since, $1.userID.rawValue) } }
    }

    public func events(after position: Int64, limit: Int) async throws -> [LoggedEvent] {
        state.withLock { state in
            guard limit > 0, position < Int64(state.events.count) else { return [] }
            let start = Int(max(0, position))
            return state.events[start..<min(state.events.count, start + limit)].enumerated().map { LoggedEvent(id: Int64(start + $0.offset + 1), event: $0.element) }
        }
    }

    public func statsPosition() async throws -> Int64 { state.withLock { $0.statsPosition } }

    public func applyStats(_ batch: StatsBatch) async throws -> Bool {
        state.withLock { state in
            guard state.statsPosition == batch.from else { return false }
            for count in batch.counts { state.dailyCounts[StatsTally.Key(day: count.day, metric: count.metric), default: 0] += count.count }
            for signIn in batch.signIns {
                let earlier = state.activity[signIn.userID]
                let passkey = [earlier?.passkey, signIn.passkeySignedInAt].compactMap { $0 }.max()
                state.activity[signIn.userID] = (max(earlier?.any ?? signIn.signedInAt, signIn.signedInAt), passkey)
            }
            state.statsPosition = batch.to
            return true
        }
    }

    public func addDailyCounts(_ counts: [DailyCount]) async throws {
        state.withLock { state in
            for count in counts { state.dailyCounts[StatsTally.Key(day: count.day, metric: count.metric), default: 0] += count.count }
        }
    }

    public func dailyCounts(fromDay: String, toDay: String) async throws -> [DailyCount] {
        state.withLock { state in
            state.dailyCounts.filter { $0.key.day >= fromDay && $0.key.day < toDay }.map { DailyCount(day: $0.key.day, metric: $0.key.metric, count: $0.value) }
        }
    }

    public func accountSignIns(userIDs: [UserID]) async throws -> [AccountSignIn] {
        state.withLock { state in
            userIDs.compactMap { id in state.activity[id].map { AccountSignIn(userID: id, signedInAt: $0.any, passkeySignedInAt: $0.passkey) } }
        }
    }


}

private struct State {
    var users: [UserID: User] = [:]
    /// In insertion order, which breaks ties between equal creation times.
    var credentials: [PasskeyCredential] = []
    var finishedCeremonies: Set<CeremonyKey> = []
    var families: [String: Family] = [:] {
        // As the stores' trigger does: a session of a client that wants to be told, revoked
        // now, writes a notice (once).
        didSet {
            guard !backchannelLogoutClients.isEmpty else { return }
            for (id, family) in families.sorted(by: { $0.key < $1.key })
            where family.revokedAt != nil && oldValue[id].map({ $0.revokedAt == nil }) == true && backchannelLogoutClients.contains(family.clientID)
                && !backchannelLogouts.contains(where: { $0.sessionID == id })
            {
                let time = family.revokedAt ?? .distantPast
                backchannelLogouts.append(BackchannelLogout(
                    position: Int64(backchannelLogouts.count + 1), clientID: family.clientID, sessionID: id, userID: family.userID, status: .pending,
                    attempts: 0, nextAttemptAt: time, lastStatus: nil, lastError: nil, createdAt: time
                ))
            }
        }
    }
    var backchannelLogoutClients: Set<String> = []
    /// In insertion order (a notice's position is its index plus one).
    var backchannelLogouts: [BackchannelLogout] = []
    var refreshTokens: [[UInt8]: StoredToken] = [:]
    /// In insertion order.
    var signingKeys: [SigningKeyRecord] = []
    /// In insertion order.
    var events: [AuditEvent] = []
    var secrets: [String: [UInt8]] = [:]
    var browserSessions: [[UInt8]: (session: BrowserSession, revokedAt: Date?)] = [:]
    var codes: [[UInt8]: (code: AuthorizationCode, usedAt: Date?)] = [:]
    var flows: [String: InteractiveFlow] = [:]
    var adminTokens: [[UInt8]: AdminToken] = [:]
    var passwords: [UserID: PasswordRecord] = [:]
    /// Imported accounts by `source\nsource ID`.
    var importedAccounts: [String: UserID] = [:]
    var metadataBLOB: StoredMetadataBLOB?
    /// The credential that started each family, when one did.
    var familyCredentials: [String: [UInt8]] = [:]
    var consents: [UserID: [String: Consent]] = [:]
    var outbox: [String: (mail: OutboxMail, status: String, due: Date, lastError: String?)] = [:]
    var outboxOrder: [String] = []
    var oneTimeCodes: [String: OneTimeCode] = [:]
    var oneTimeCodeSaves = 0
    var recoveryCodes: [UserID: [RecoveryCode]] = [:]
    var accountCounters: [String: (count: Int, expiresAt: Date?)] = [:]
    /// In insertion order.
    var adminKeys: [AdminAPIKey] = []
    /// The webhooks' subscriptions and, under `ssf:` endpoint IDs, the Shared Signals streams'.
    var webhookSubscriptions: [String: Set<AuditEvent.Kind>] = [:]
    var webhookEndpointsOff: [String: String] = [:]
    /// In insertion order, which is the order of their positions.
    var webhookDeliveries: [WebhookDelivery] = []
    /// The last delivery's position: counted, not the array's length, because deleting a
    /// stream's pending deliveries (or purging) must not make a later one reuse a position.
    var lastDeliveryPosition: Int64 = 0
    var signalStreams: [String: SignalStream] = [:]
    var operators: [UserID: Operator] = [:]
    var dailyCounts: [StatsTally.Key: Int64] = [:]
    var statsPosition: Int64 = 0
    var activity: [UserID: (any: Date, passkey: Date?)] = [:]

    /// Revokes the login sessions that codes of the browser session `hash` started.
    mutating func revokeLoginSessions(startedBy hash: [UInt8], at time: Date) {
        for (id, family) in families where family.browserSession == hash && family.revokedAt == nil { families[id]?.revokedAt = time }
    }

    /// Appends an event and, as the stores' trigger does, a delivery for every endpoint
    /// that subscribes to its kind and is on.
    mutating func log(_ event: AuditEvent) {
        events.append(event)
        let id = Int64(events.count)
        for (endpoint, kinds) in webhookSubscriptions.sorted(by: { $0.key < $1.key }) where kinds.contains(event.kind) && webhookEndpointsOff[endpoint] == nil {
            appendDelivery(of: LoggedEvent(id: id, event: event), to: endpoint)
        }
    }

    /// Appends a pending delivery of a logged event to `endpoint`, due at the event's time.
    mutating func appendDelivery(of logged: LoggedEvent, to endpoint: String) {
        lastDeliveryPosition += 1
        webhookDeliveries.append(WebhookDelivery(
            position: lastDeliveryPosition, id: WebhookDelivery.id(event: logged.id, endpoint: endpoint), endpointID: endpoint, event: logged,
            status: .pending, attempts: 0, nextAttemptAt: logged.event.time, lastStatus: nil, lastError: nil, createdAt: logged.event.time, deliveredAt: nil
        ))
    }

    mutating func createUser(_ user: User, credential: PasskeyCredential) throws {
        guard credential.userID == user.id else {
            throw InMemoryStorageError(.invalidArgument, "the credential belongs to \(credential.userID), not to the new user \(user.id)")
        }
        try checkNewUser(user)
        try checkNewCredential(credential)
        users[user.id] = user
        credentials.append(credential)
    }

    mutating func createUser(_ user: User, password: PasswordRecord) throws {
        guard password.userID == user.id, password.hash != nil else {
            throw InMemoryStorageError(.invalidArgument, "the password must be set and belong to the new user \(user.id)")
        }
        try checkNewUser(user)
        users[user.id] = user
        passwords[user.id] = password
    }

    func checkNewUser(_ user: User) throws {
        // As the databases do: a taken ID (an imported account keeps its source's) is a
        // conflict like a taken identifier.
        guard users[user.id] == nil else { throw StoreConflict(.identifier) }
        let taken = users.values.contains { existing in
            existing.userHandle == user.userHandle || !Set(existing.profile.identifiers).isDisjoint(with: user.profile.identifiers)
        }
        guard !taken else { throw StoreConflict(.identifier) }
    }

    mutating func addCredential(_ credential: PasskeyCredential) throws {
        guard users[credential.userID] != nil else {
            throw InMemoryStorageError(.invalidArgument, "no user \(credential.userID)")
        }
        try checkNewCredential(credential)
        credentials.append(credential)
    }

    /// UV and the regression flag only go from false to true; a refused login (`usedAt ==
    /// nil`) only sets the regression flag.
    mutating func recordUse(_ update: CeremonyCompletion.CredentialUseUpdate) throws {
        let use = update.use
        let index = credentials.firstIndex(where: { $0.credentialID == update.credentialID })
        if let expected = update.verifiedAgainst, use.usedAt != nil {
            guard let index, credentials[index].signCount == expected.signCount, !credentials[index].isDisabled,
                users[credentials[index].userID]?.updatedAt == expected.ownerUpdatedAt
            else { throw StaleRead() }
        }
        guard let index else { return }
        credentials[index].hasSignCountRegressed = credentials[index].hasSignCountRegressed || use.signCountRegressed
        guard let usedAt = use.usedAt else { return }
        credentials[index].signCount = use.signCount
        credentials[index].isBackedUp = use.isBackedUp
        credentials[index].isUserVerified = credentials[index].isUserVerified || use.isUserVerified
        credentials[index].lastUsedAt = usedAt
    }

    mutating func saveRefreshToken(_ record: RefreshTokenRecord) throws {
        guard users[record.userID] != nil else {
            throw InMemoryStorageError(.invalidArgument, "no user \(record.userID)")
        }
        if let family = families[record.familyID], family.userID != record.userID || family.clientID != record.clientID {
            throw InMemoryStorageError(.invalidArgument, "refresh token family \(record.familyID) belongs to another user or client")
        }
        try insertToken(record)
        if families[record.familyID] == nil {
            families[record.familyID] = Family(userID: record.userID, clientID: record.clientID, revokedAt: nil, startedAt: record.issuedAt, method: record.method)
        }
    }

    mutating func startSession(familyID: String, userID: UserID, clientID: String, at time: Date) throws {
        guard users[userID] != nil else { throw InMemoryStorageError(.invalidArgument, "no user \(userID)") }
        if let family = families[familyID] {
            guard family.userID == userID, family.clientID == clientID else {
                throw InMemoryStorageError(.invalidArgument, "refresh token family \(familyID) belongs to another user or client")
            }
            return
        }
        families[familyID] = Family(userID: userID, clientID: clientID, revokedAt: nil, startedAt: time)
    }

    mutating func startSession(_ start: TokenSessionStart) throws {
        let isNew = families[start.familyID] == nil
        try startSession(familyID: start.familyID, userID: start.userID, clientID: start.clientID, at: start.startedAt)
        if isNew { families[start.familyID]?.method = start.method }
        if let credentialID = start.credentialID, familyCredentials[start.familyID] == nil { familyCredentials[start.familyID] = credentialID }
        if let record = start.refreshToken { try saveRefreshToken(record) }
    }

    /// Revokes the families and browser sessions of `userID` that a sign-in by `method` started.
    mutating func revokeSessions(signedInWith method: SignInMethod, of userID: UserID, at time: Date) {
        for (familyID, family) in families where family.userID == userID && family.method == method && family.revokedAt == nil {
            families[familyID]?.revokedAt = time
        }
        for (hash, stored) in browserSessions where stored.session.userID == userID && stored.session.method == method && stored.revokedAt == nil {
            browserSessions[hash] = (stored.session, time)
        }
    }

    /// Revokes the families and browser sessions a credential started.
    mutating func revokeSessions(startedBy credentialID: [UInt8], at time: Date) {
        for (familyID, started) in familyCredentials where started == credentialID && families[familyID]?.revokedAt == nil {
            families[familyID]?.revokedAt = time
        }
        for (hash, stored) in browserSessions where stored.session.credentialID == credentialID && stored.revokedAt == nil {
            browserSessions[hash] = (stored.session, time)
        }
    }

    mutating func saveBrowserSession(_ session: BrowserSession) throws {
        guard users[session.userID] != nil else { throw InMemoryStorageError(.invalidArgument, "no user \(session.userID)") }
        guard browserSessions[session.tokenHash] == nil else { throw InMemoryStorageError(.invalidArgument, "a session with this hash exists") }
        browserSessions[session.tokenHash] = (session, nil)
    }

    /// The uniqueness rules of a new credential: its ID, and its name within its user.
    func checkNewCredential(_ credential: PasskeyCredential) throws {
        guard !credentials.contains(where: { $0.credentialID == credential.credentialID || $0.recordID == credential.recordID }) else {
            throw StoreConflict(.credentialID)
        }
        if let name = credential.name, credentials.contains(where: { $0.userID == credential.userID && $0.name == name }) {
            throw StoreConflict(.credentialName)
        }
    }

    mutating func insertToken(_ record: RefreshTokenRecord) throws {
        guard refreshTokens[record.tokenHash] == nil else {
            throw InMemoryStorageError(.invalidArgument, "a refresh token with this hash exists")
        }
        refreshTokens[record.tokenHash] = StoredToken(record: record, usedAt: nil)
    }
}

extension WebhookDelivery {
    /// A copy with some fields changed.
    fileprivate func changed(
        status: WebhookDeliveryStatus? = nil, attempts: Int? = nil, nextAttemptAt: Date? = nil, lastStatus: Int?? = nil, lastError: String?? = nil,
        deliveredAt: Date?? = nil
    ) -> WebhookDelivery {
        WebhookDelivery(
            position: position, id: id, endpointID: endpointID, event: event, status: status ?? self.status, attempts: attempts ?? self.attempts,
            nextAttemptAt: nextAttemptAt ?? self.nextAttemptAt, lastStatus: lastStatus ?? self.lastStatus, lastError: lastError ?? self.lastError,
            createdAt: createdAt, deliveredAt: deliveredAt ?? self.deliveredAt
        )
    }
}

extension BackchannelLogout {
    /// The same notice, changed.
    fileprivate func changed(
        status: WebhookDeliveryStatus, attempts: Int, nextAttemptAt: Date, lastStatus: Int?? = .none, lastError: String?? = .none
    ) -> BackchannelLogout {
        BackchannelLogout(
            position: position, clientID: clientID, sessionID: sessionID, userID: userID, status: status, attempts: attempts, nextAttemptAt: nextAttemptAt,
            lastStatus: lastStatus ?? self.lastStatus, lastError: lastError ?? self.lastError, createdAt: createdAt
        )
    }
}
