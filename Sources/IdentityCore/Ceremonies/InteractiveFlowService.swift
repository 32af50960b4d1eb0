public import Foundation
public import WebAuthn

/// Self-service flows: a stable flow ID in front of the one passkey pipeline. Each flow
/// holds one ceremony at a time; a submission consumes it, and a failed submission gives
/// the flow a fresh challenge, so the client can try again on the same flow while every
/// challenge is still verified at most once.
public struct InteractiveFlowService: Sendable {
    /// The ceremony options a flow shows.
    public enum Options: Sendable, Hashable, Codable {
        /// `navigator.credentials.create()` options (registration, settings).
        case creation(PublicKeyCredentialCreationOptionsJSON)
        /// `navigator.credentials.get()` options (login).
        case request(PublicKeyCredentialRequestOptionsJSON)
        /// Where a code flow (recovery, verification) stands: it runs no ceremony.
        case code(CodeFlowState)
    }

    /// A recovery or verification flow's progress: the address a code was sent to, once one
    /// was. The code itself is the account's one-time code (``AccountRecoveryService``).
    public struct CodeFlowState: Sendable, Hashable, Codable {
        /// Kratos's states.
        public enum Step: String, Sendable, Hashable, Codable {
            case chooseMethod = "choose_method"
            case sentEmail = "sent_email"
            case passedChallenge = "passed_challenge"
        }

        public var step: Step
        /// The address submitted (known or not: the answer is the same).
        public var email: String?

        public init(step: Step, email: String? = nil) {
            self.step = step
            self.email = email
        }
    }

    /// Why a submission cannot be taken, before any verification.
    public enum Refusal: Error, Sendable, Hashable {
        /// No flow has this ID.
        case unknown
        /// The flow expired; a replacement was started.
        case expired(InteractiveFlow, replacement: InteractiveFlow)
        /// The flow was already completed.
        case completed(InteractiveFlow)
        /// The flow belongs to another account or another kind of client.
        case wrongOwner(InteractiveFlow)
    }

    /// A submission that failed verification or validation: the error, and the flow with
    /// its fresh challenge to show again.
    public struct FailedAttempt: Error, Sendable {
        /// What went wrong.
        public let error: IdentityError
        /// The flow, renewed.
        public let flow: InteractiveFlow
    }

    private let passkeys: PasskeyService

    /// The rate limits of the ceremonies the flows run.
    public var rateLimits: RateLimits? { passkeys.rateLimits }
    private let accounts: AccountService
    private let store: any InteractiveFlowStore
    private let clock: any WallClock
    private let random: any RandomSource
    /// How long a flow accepts submissions.
    public let lifespan: TimeInterval

    public init(
        passkeys: PasskeyService, accounts: AccountService, store: any InteractiveFlowStore, clock: any WallClock, random: any RandomSource,
        lifespan: TimeInterval
    ) {
        self.passkeys = passkeys
        self.accounts = accounts
        self.store = store
        self.clock = clock
        self.random = random
        self.lifespan = lifespan
    }

    // MARK: - Starting and reading

    /// Starts a flow with its first ceremony.
    /// - Parameters:
    ///   - userID: For settings, the signed-in user.
    ///   - csrfToken: For browser flows, the token submissions must carry.
    public func start(_ kind: InteractiveFlow.Kind, isBrowser: Bool, userID: UserID?, csrfToken: String?, requestURL: String) async throws -> InteractiveFlow {
        let (ceremonyID, options) = try await startCeremony(kind, userID: userID)
        let now = clock.now()
        let flow = InteractiveFlow(
            id: UUIDText.random(random.bytes(16)), kind: kind, isBrowser: isBrowser, ceremonyID: ceremonyID, options: try Self.encode(options),
            userID: userID, csrfToken: csrfToken, requestURL: requestURL, issuedAt: now, expiresAt: now.addingTimeInterval(lifespan)
        )
        try await store.saveFlow(flow)
        return flow
    }

    /// The flow with this ID, whatever its state.
    public func flow(id: String) async throws -> InteractiveFlow? {
        guard UUIDText.isUUID(id) else { return nil }
        return try await store.flow(id: id)
    }

    /// The options a flow shows.
    public func options(of flow: InteractiveFlow) throws -> Options {
        do {
            return try JSONDecoder().decode(Options.self, from: Data(flow.options))
        } catch {
            throw IdentityError(.invalidRequest, "the flow's stored options cannot be read; start a new flow")
        }
    }

    /// A flow that can take a submission now.
    /// - Throws: ``Refusal`` when it is unknown, expired (a replacement is started and
    ///   returned), completed, or not this caller's.
    public func open(id: String, kind: InteractiveFlow.Kind, userID: UserID? = nil) async throws -> InteractiveFlow {
        guard let flow = try await flow(id: id), flow.kind == kind else { throw Refusal.unknown }
        guard flow.userID == userID else { throw Refusal.wrongOwner(flow) }
        guard flow.completedAt == nil else { throw Refusal.completed(flow) }
        guard clock.now() < flow.expiresAt else {
            let replacement = try await start(kind, isBrowser: flow.isBrowser, userID: userID, csrfToken: flow.csrfToken, requestURL: flow.requestURL)
            throw Refusal.expired(flow, replacement: replacement)
        }
        return flow
    }

    // MARK: - Submissions

    /// Finishes a registration flow: the account, with the traits as its profile, its
    /// first passkey, and the session `startSession` decides.
    public func register<Started: Sendable>(
        _ flow: InteractiveFlow, response: RegistrationResponseJSON, profile: UserProfile, origin: RequestOrigin?, failureCheck: FailureCheck?,
        startSession: (SignedIn) throws -> (SessionRecord?, Started)
    ) async throws -> (SignedIn, Started) {
        try await attempt(flow, failureCheck: failureCheck) {
            try await passkeys.finishCeremony(
                client: .selfService, authSession: flow.ceremonyID, response: .registration(response), profile: profile, finishingFlow: flow.id,
                origin: origin, failureCheck: failureCheck, startSession: startSession
            )
        }
    }

    /// Finishes a login flow, with the session `startSession` decides.
    public func login<Started: Sendable>(
        _ flow: InteractiveFlow, response: AuthenticationResponseJSON, origin: RequestOrigin?, failureCheck: FailureCheck?,
        startSession: (SignedIn) throws -> (SessionRecord?, Started)
    ) async throws -> (SignedIn, Started) {
        try await attempt(flow, failureCheck: failureCheck) {
            try await passkeys.finishCeremony(
                client: .selfService, authSession: flow.ceremonyID, response: .authentication(response), finishingFlow: flow.id,
                origin: origin, failureCheck: failureCheck, startSession: startSession
            )
        }
    }

    /// Adds a passkey in a settings flow, for the signed-in owner, whose sign-in must be
    /// recent. The flow stays open with a fresh challenge, so another passkey can be added;
    /// a stale sign-in keeps the flow as it is, to be submitted again after signing in.
    public func addPasskey(
        _ flow: InteractiveFlow, by signIn: SignIn, response: RegistrationResponseJSON, origin: RequestOrigin?
    ) async throws -> (PasskeyCredential, InteractiveFlow) {
        do {
            let credential = try await passkeys.finishEnrollment(
                userID: signIn.userID, clientID: OAuthClient.selfService.clientID, authSession: flow.ceremonyID, response: response, by: .owner(signIn),
                origin: origin
            )
            return (credential, try await renew(flow))
        } catch let error as IdentityError {
            if case .insufficientUserAuthentication = error.reason { throw FailedAttempt(error: error, flow: flow) }
            throw FailedAttempt(error: error, flow: try await renew(flow))
        }
    }

    /// Removes a passkey in a settings flow, for the signed-in owner, whose sign-in must be
    /// recent; the last one is kept.
    public func removePasskey(_ flow: InteractiveFlow, by signIn: SignIn, credentialID: [UInt8], origin: RequestOrigin?) async throws {
        do {
            try await accounts.delete(methodID: "passkey|" + Base64URL.encode(credentialID), by: signIn, origin: origin)
        } catch let error as IdentityError {
            throw FailedAttempt(error: error, flow: flow)
        }
    }

    /// Refuses a submission without verifying anything, renewing nothing: the flow as it is.
    public func refuse(_ flow: InteractiveFlow, _ error: IdentityError) -> FailedAttempt {
        FailedAttempt(error: error, flow: flow)
    }

    /// A finish that completes the flow in its own write (``CeremonyCompletion/finishedFlow``),
    /// or renews the flow's ceremony when it is refused.
    private func attempt<Finished>(
        _ flow: InteractiveFlow, failureCheck: FailureCheck?, _ finish: () async throws -> Finished
    ) async throws -> Finished {
        do {
            return try await finish()
        } catch let error as IdentityError {
            // A finish refused before its completion made the request's check: made now,
            // before the flow is renewed.
            try await failureCheck?.makeUnlessMade()
            throw FailedAttempt(error: error, flow: try await renew(flow))
        }
    }

    /// Gives a flow a fresh ceremony after its current one was consumed.
    private func renew(_ flow: InteractiveFlow) async throws -> InteractiveFlow {
        let (ceremonyID, options) = try await startCeremony(flow.kind, userID: flow.userID, lifetime: max(1, flow.expiresAt.timeIntervalSince(clock.now())))
        var renewed = flow
        renewed.ceremonyID = ceremonyID
        renewed.options = try Self.encode(options)
        guard try await store.renewFlow(id: flow.id, ceremonyID: ceremonyID, options: renewed.options) else { return flow }
        return renewed
    }

    private func startCeremony(_ kind: InteractiveFlow.Kind, userID: UserID?, lifetime: TimeInterval? = nil) async throws -> (String, Options) {
        let lifetime = lifetime ?? lifespan
        switch kind {
        case .registration:
            let challenge = try await passkeys.startSignup(client: .selfService, profile: nil, lifetime: lifetime)
            return (challenge.authSession, .creation(challenge.options))
        case .login:
            let challenge = try await passkeys.startLogin(client: .selfService, username: nil, lifetime: lifetime)
            return (challenge.authSession, .request(challenge.options))
        case .settings:
            guard let userID else { throw IdentityError(.invalidToken, "a settings flow needs a signed-in user") }
            let challenge = try await passkeys.startEnrollment(userID: userID, clientID: OAuthClient.selfService.clientID, lifetime: lifetime)
            return (challenge.authSession, .creation(challenge.options))
        case .recovery, .verification:
            return ("", .code(CodeFlowState(step: .chooseMethod)))
        }
    }

    /// Moves a code flow to `state`; reaching `passed_challenge` completes it.
    /// - Returns: The flow as now stored.
    public func advance(_ flow: InteractiveFlow, to state: CodeFlowState) async throws -> InteractiveFlow {
        var advanced = flow
        advanced.options = try Self.encode(.code(state))
        _ = try await store.renewFlow(id: flow.id, ceremonyID: flow.ceremonyID, options: advanced.options)
        if state.step == .passedChallenge {
            let now = clock.now()
            _ = try await store.completeFlow(id: flow.id, at: now)
            advanced.completedAt = now
        }
        return advanced
    }

    private static func encode(_ options: Options) throws -> [UInt8] { Array(try JSONEncoder().encode(options)) }
}
