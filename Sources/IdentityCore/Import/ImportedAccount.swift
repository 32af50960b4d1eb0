public import Foundation

/// An account brought from another identity server with its passkeys and password hash,
/// written whole or not at all.
public struct ImportedAccount: Sendable, Hashable {
    /// The identity server it came from: `kratos`, `keycloak` or `auth0`.
    public let source: String
    /// Its ID there (a Kratos identity's UUID, an Auth0 `user_id`). Importing the same
    /// source ID again changes nothing, so a file can be imported twice, or resumed.
    public let sourceID: String
    /// The account, with the user handle its passkeys were registered under.
    public let user: User
    /// Its passkeys; each names ``user`` as its owner.
    public let credentials: [PasskeyCredential]
    /// The password hash as the source kept it (PHC form), when it had one this build
    /// verifies; the first sign-in with it stores Latchkey's own hash in its place.
    public let passwordHash: String?
    /// When it was imported.
    public let importedAt: Date
    /// The audit event that says so, written with the account.
    public let event: AuditEvent?

    public init(
        source: String, sourceID: String, user: User, credentials: [PasskeyCredential], passwordHash: String?, importedAt: Date, event: AuditEvent? = nil
    ) {
        self.event = event
        self.source = source
        self.sourceID = sourceID
        self.user = user
        self.credentials = credentials
        self.passwordHash = passwordHash
        self.importedAt = importedAt
    }
}

/// A record of another identity server joined to an account that already exists here: the
/// same person, by an email address both servers verified. The account keeps its profile
/// and passkeys; it gains the source's password where it has none, and the source's
/// external ID and metadata where it has none.
public struct ImportedMerge: Sendable, Hashable {
    public let source: String
    public let sourceID: String
    /// The account here.
    public let userID: UserID
    /// The verified address both share; the write checks the account still has it, verified.
    public let email: String
    /// The source's password hash, stored only where the account has no password record (a
    /// password the person removed stays removed).
    public let passwordHash: String?
    public let externalID: String?
    public let metadata: String?
    public let importedAt: Date
    /// The audit event that says so, written with the merge.
    public let event: AuditEvent?

    public init(
        source: String, sourceID: String, userID: UserID, email: String, passwordHash: String?, externalID: String?, metadata: String?, importedAt: Date,
        event: AuditEvent? = nil
    ) {
        self.source = source
        self.sourceID = sourceID
        self.userID = userID
        self.email = email
        self.passwordHash = passwordHash
        self.externalID = externalID
        self.metadata = metadata
        self.importedAt = importedAt
        self.event = event
    }

    /// Refuses text a store cannot hold.
    public func requireStorable() throws(StorageError) {
        try StoredText.requireStorable(source, sourceID, userID.rawValue, email, passwordHash, externalID, metadata, in: "mergeImportedAccount")
    }
}

/// What joining an imported record to an account did.
public enum AccountMergeWrite: Sendable, Hashable {
    /// The record now names the account; `passwordAdded` says whether its password came along.
    case merged(passwordAdded: Bool)
    /// Its source ID was imported before, as this account; nothing was written.
    case importedBefore(UserID)
    /// The account is gone, or no longer has that address verified; nothing was written.
    case accountChanged
}

/// What writing an imported account did.
public enum AccountImportWrite: Sendable, Hashable {
    /// The account was created with its passkeys and password.
    case created
    /// Its source ID was imported before, as this account; nothing was written.
    case importedBefore(UserID)
}

/// Accounts imported from other identity servers.
public protocol AccountImportStore: Sendable {
    /// Writes `account` in one transaction: the user, its passkeys, its password, the
    /// source it came from and its audit event. A source ID imported before writes nothing.
    /// - Throws: ``StoreConflict`` `.identifier` when the user ID, an identifier or the user
    ///   handle is another account's, `.credentialID` when a passkey's ID is registered;
    ///   nothing is written then.
    func importAccount(_ account: ImportedAccount) async throws -> AccountImportWrite
    /// The account a source ID was imported as.
    func importedAccount(source: String, sourceID: String) async throws -> UserID?
    /// Joins a record to an existing account in one transaction: the source ID, the password
    /// where the account has no password record, the external ID and metadata where it has
    /// none, and the audit event; only while the account has `merge.email`, verified.
    func mergeImportedAccount(_ merge: ImportedMerge) async throws -> AccountMergeWrite
}

extension ImportedAccount {
    /// Refuses an account a store cannot write as it is: a passkey that names another
    /// owner, or text that cannot be stored.
    public func requireStorable() throws(StorageError) {
        guard credentials.allSatisfy({ $0.userID == user.id }) else {
            throw StorageError(.invalidArgument, "every imported passkey must belong to the imported user \(user.id)")
        }
        try user.requireStorable(in: "importAccount")
        for credential in credentials { try credential.requireStorable() }
        try StoredText.requireStorable(passwordHash, source, sourceID, in: "importAccount")
    }
}
