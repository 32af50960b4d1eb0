public import Foundation

/// Everything finishing a ceremony writes, handed to the store in one piece so that it
/// commits in one transaction with the ceremony's single-use mark: the account or passkey
/// it creates, the use of the passkey it signed in with, its audit events, and the session
/// it starts. A refused ceremony completes too, with only its events, so that it cannot be
/// tried again.
public struct CeremonyCompletion: Sendable {
    /// The ceremony's single-use key.
    public var key: CeremonyKey
    /// A sign-up's new account and its first passkey.
    public var newAccount: NewAccount?
    /// An enrollment's new passkey, for an existing account.
    public var newCredential: PasskeyCredential?
    /// What a login changed on its passkey.
    public var credentialUse: CredentialUseUpdate?
    /// Audit events, in order.
    public var events: [AuditEvent]
    /// The session the ceremony starts.
    public var session: SessionRecord?
    /// The self-service flow (``InteractiveFlow``) the ceremony finishes, marked completed
    /// at `at` in the same write.
    public var finishedFlow: (id: String, at: Date)?
    /// The failed-finish check the request owes, made by the store before it writes
    /// (in the same statement where it can).
    public var failureCheck: FailureCheck?

    public init(
        key: CeremonyKey, newAccount: NewAccount? = nil, newCredential: PasskeyCredential? = nil, credentialUse: CredentialUseUpdate? = nil,
        events: [AuditEvent] = [], session: SessionRecord? = nil, finishedFlow: (id: String, at: Date)? = nil, failureCheck: FailureCheck? = nil
    ) {
        self.key = key
        self.newAccount = newAccount
        self.newCredential = newCredential
        self.credentialUse = credentialUse
        self.events = events
        self.session = session
        self.finishedFlow = finishedFlow
        self.failureCheck = failureCheck
    }

    /// An account with its first passkey, created together or not at all.
    public struct NewAccount: Sendable, Hashable {
        public let user: User
        /// Its first passkey; it must name the account as its owner.
        public let credential: PasskeyCredential

        public init(user: User, credential: PasskeyCredential) {
            self.user = user
            self.credential = credential
        }
    }

    /// What a login stores on its passkey: counter, backup state, UV, last use, regression
    /// flag. UV and the regression flag only ever go from false to true, and a refused use
    /// (`use.usedAt == nil`) changes only the regression flag.
    public struct CredentialUseUpdate: Sendable, Hashable {
        public let credentialID: [UInt8]
        /// What changed.
        public let use: CredentialUse
        /// What the login verified against; a use (not a refusal) is stored only while it
        /// still holds, and otherwise the completion throws ``StaleRead``, writing nothing.
        public let verifiedAgainst: VerifiedState?

        public init(credentialID: [UInt8], use: CredentialUse, verifiedAgainst: VerifiedState? = nil) {
            self.credentialID = credentialID
            self.use = use
            self.verifiedAgainst = verifiedAgainst
        }
    }

    /// The state of a passkey and its owner that a login was verified against: the passkey
    /// still enabled with this counter, its owner unchanged since `ownerUpdatedAt`.
    public struct VerifiedState: Sendable, Hashable {
        /// The counter the assertion's counter was compared with.
        public let signCount: UInt32
        /// The owner's `updatedAt`, for the claims of the tokens issued.
        public let ownerUpdatedAt: Date

        public init(signCount: UInt32, ownerUpdatedAt: Date) {
            self.signCount = signCount
            self.ownerUpdatedAt = ownerUpdatedAt
        }
    }
}

/// A session a finished ceremony starts, written with the ceremony.
public enum SessionRecord: Sendable, Hashable {
    /// A login session at the token endpoint (a refresh-token family), with its first
    /// refresh token when one was issued; access tokens name it in `sid`.
    case tokens(TokenSessionStart)
    /// A browser or self-service session carried by an opaque token.
    case browser(BrowserSession)
}

/// The start of a login session at the token endpoint.
public struct TokenSessionStart: Sendable, Hashable {
    /// The family's ID (the `sid` claim).
    public let familyID: String
    public let userID: UserID
    public let clientID: String
    public let startedAt: Date
    /// The first refresh token, when `offline_access` was granted.
    public let refreshToken: RefreshTokenRecord?
    /// The passkey that signed the user in, when one did: removing or turning it off
    /// revokes the session.
    public let credentialID: [UInt8]?
    /// How the person signed in: removing their password ends the sessions a password started.
    public let method: SignInMethod

    public init(
        familyID: String, userID: UserID, clientID: String, startedAt: Date, refreshToken: RefreshTokenRecord?, credentialID: [UInt8]? = nil,
        method: SignInMethod = .passkey
    ) {
        self.credentialID = credentialID
        self.method = method
        self.familyID = familyID
        self.userID = userID
        self.clientID = clientID
        self.startedAt = startedAt
        self.refreshToken = refreshToken
    }
}
