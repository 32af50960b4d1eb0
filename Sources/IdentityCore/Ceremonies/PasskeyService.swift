import Crypto
public import Foundation
public import WebAuthn

/// Passkey sign-up, login and enrollment: the one pipeline every API face calls. Each
/// ceremony is started here (options plus a sealed handle) and finished here, through
/// ``WebAuthnVerifier``; everything a finish writes is written in one place, in one
/// transaction (``CeremonyStore/completeCeremony(_:)``).
public struct PasskeyService: Sendable {
    /// What it keeps: accounts, passkeys, finished ceremonies and the authenticator metadata.
    public typealias Storage = UserStore & CredentialStore & CeremonyStore & MetadataStore

    let configuration: PasskeyConfiguration
    let verifier: WebAuthnVerifier
    let storage: any Storage
    let tokens: TokenService
    let secrets: InstanceSecrets
    let clock: any WallClock
    let random: any RandomSource
    let publicKeys = PublicKeyCache()
    let signInRecords = CredentialCache()
    /// The allow lists unknown identifiers get.
    let decoys = LoginDecoys()
    /// The FIDO metadata registrations are verified with, when configured.
    let metadata: AttestationMetadata?
    /// The count of open ceremonies, when something watches it.
    let openCeremonies: OpenCeremonies?
    /// The per-address rate limits every face applies to its ceremony endpoints.
    public let rateLimits: RateLimits?
    /// The recent sign-in that adding a passkey needs.
    let sensitiveActions: SensitiveActions
    /// Sign-up ceremonies started, when the rollups count them.
    let ceremonyStarts: CeremonyStarts?

    /// Without `sensitiveActions`, adding a passkey needs a sign-in from the last 15
    /// minutes, timed by `clock`.
    public init(
        configuration: PasskeyConfiguration,
        verifier: WebAuthnVerifier,
        storage: any Storage,
        tokens: TokenService,
        secrets: InstanceSecrets,
        clock: any WallClock,
        random: any RandomSource,
        metadata: AttestationMetadata? = nil,
        openCeremonies: OpenCeremonies? = nil,
        rateLimits: RateLimits? = nil,
        sensitiveActions: SensitiveActions? = nil,
        ceremonyStarts: CeremonyStarts? = nil
    ) {
        self.ceremonyStarts = ceremonyStarts
        self.rateLimits = rateLimits
        self.sensitiveActions = sensitiveActions ?? SensitiveActions(clock: clock)
        self.configuration = configuration
        self.verifier = verifier
        self.metadata = metadata
        self.openCeremonies = openCeremonies
        self.storage = storage
        self.tokens = tokens
        self.secrets = secrets
        self.clock = clock
        self.random = random
    }

    /// The relying party ID passkeys are created for.
    public var relyingPartyID: String { configuration.relyingPartyID }

    // MARK: - Starting ceremonies

    /// Starts a sign-up: validates the profile, refuses identifiers that already exist, and
    /// returns creation options for a new, not yet stored account. Nothing is written.
    /// - Parameters:
    ///   - input: The profile, or `nil` when the identifier comes only with the finished
    ///     ceremony (the account creation API, or a self-service flow's traits).
    ///   - lifetime: How long the ceremony lives, when a face's flow sets it.
    ///   - hints: WebAuthn Level 3 hints in place of the application policy's, where a face
    ///     lets the request choose them.
    ///   - extensions: Client extension inputs the application asks for (PRF, largeBlob,
    ///     credProtect), passed into the options.
    public func startSignup(
        client: OAuthClient, profile input: UserProfile?, lifetime: TimeInterval? = nil, hints: [String]? = nil, extensions: ExtensionInputs? = nil
    ) async throws -> CreationChallenge {
        try Self.requireKnown(hints)
        let extensions = try ClientExtensions.inputs(extensions, creating: true)
        var profile = UserProfile()
        if let input {
            profile = try ProfileValidation.validate(input, allowed: configuration.signupIdentifiers)
            // Counted before the existence check, so probing one address for an account
            // stops at the limit whatever the answer would have been.
            for identifier in profile.identifiers { try await rateLimits?.admit(identifier: identifier) }
            try await refuseExisting(profile)
        }
        let now = clock.now()
        // The user handle is random and unrelated to any identifier (WebAuthn L3 §14.6.1).
        let user = User(
            id: UserID.new(randomBytes: random.bytes(16)), userHandle: random.bytes(32), profile: profile,
            createdAt: now, updatedAt: now
        )
        let ceremony = makeCeremony(kind: .signup, clientID: client.clientID, pendingUser: user, lifetime: lifetime)
        return CreationChallenge(
            options: creationOptions(for: user, challenge: ceremony.challenge, exclude: [], clientID: client.clientID, hints: hints, extensions: extensions),
            authSession: try seal(ceremony)
        )
    }

    /// Starts a login. Without a username the options allow any discoverable credential;
    /// with one they list that user's credentials. An unknown username, and a user whose
    /// passkeys are all turned off, get a real account's shape of list with credential IDs
    /// derived from a server secret (``LoginDecoys``), so responses do not reveal whether
    /// an account exists.
    /// `hints` replace the application policy's, where a face lets the request choose them;
    /// `extensions` (PRF, largeBlob) go into the options as the application asked.
    public func startLogin(
        client: OAuthClient, username: String?, lifetime: TimeInterval? = nil, hints: [String]? = nil, extensions: ExtensionInputs? = nil
    ) async throws -> RequestChallenge {
        try Self.requireKnown(hints)
        let extensions = try ClientExtensions.inputs(extensions, creating: false)
        var allowed: [CredentialDescriptor] = []
        if let username {
            guard let identifier = ProfileValidation.identifier(forLogin: username) else {
                throw IdentityError(.invalidRequest, "username is not a valid email, phone number or username", reason: .malformedIdentifier, field: "username")
            }
            try await rateLimits?.admit(identifier: identifier)
            // The same reads whether or not the account exists, so that timing tells nothing.
            let user = try await storage.user(identifier: identifier)
            let credentials = try await storage.credentials(userID: user?.id ?? Self.nobody)
            // A disabled passkey is not offered; it would only fail.
            allowed = credentials.filter { !$0.isDisabled }.map {
                CredentialDescriptor(id: Base64URLBytes($0.credentialID), transports: $0.transports.isEmpty ? nil : $0.transports)
            }
            if allowed.isEmpty {
                // Also for an account without a usable passkey: an empty list would let any
                // discoverable passkey sign in to a ceremony started for this user.
                allowed = decoys.decoy(for: identifier, key: secrets.loginDecoyKey)
            }
        }
        let ceremony = makeCeremony(kind: .login, clientID: client.clientID, allowedCredentialIDs: allowed.map(\.id.bytes), lifetime: lifetime)
        let policy = configuration.policy(for: client.clientID)
        let options = PublicKeyCredentialRequestOptionsJSON(
            challenge: Base64URLBytes(ceremony.challenge),
            timeout: timeoutMilliseconds,
            rpId: configuration.relyingPartyID,
            allowCredentials: allowed.isEmpty ? nil : allowed,
            userVerification: ceremony.userVerification.rawValue,
            hints: Self.sent(hints ?? policy.hints),
            extensions: extensions
        )
        return RequestChallenge(options: options, authSession: try seal(ceremony))
    }

    /// How long after a password sign-in its session may still upgrade the account with a
    /// conditional create.
    public static let passwordUpgradeWindow: TimeInterval = 5 * 60

    /// Starts an automatic passkey upgrade (a conditional create): an enrollment that the
    /// platform may finish without asking, so without user presence. Only for a session
    /// that a password sign-in started less than ``passwordUpgradeWindow`` ago, the moment
    /// the platform's own checks expect it.
    public func startConditionalEnrollment(grant: AccessGrant) async throws -> CreationChallenge {
        guard grant.method == .password else {
            throw IdentityError(.accessDenied, "a conditional passkey creation follows a password sign-in; this session did not start with a password")
        }
        return try await startConditionalEnrollment(userID: grant.userID, clientID: grant.clientID, passwordSignInAt: grant.authenticatedAt)
    }

    /// Starts an automatic passkey upgrade for an account whose password was checked at
    /// `passwordSignInAt` (the hosted pages start it in the password sign-in's own response).
    public func startConditionalEnrollment(userID: UserID, clientID: String, passwordSignInAt: Date) async throws -> CreationChallenge {
        let age = clock.now().timeIntervalSince(passwordSignInAt)
        guard age <= Self.passwordUpgradeWindow else {
            throw IdentityError(
                .accessDenied, "a conditional passkey creation must start within 5 minutes of the password sign-in; this one was \(Int(age / 60)) minutes ago"
            )
        }
        return try await startEnrollment(userID: userID, clientID: clientID, kind: .conditionalEnrollment)
    }

    /// Starts adding a passkey to the signed-in owner's account, whose sign-in must be
    /// recent; the options exclude the passkeys the account already has.
    /// `hints` replace the application policy's: `client-device` after a sign-in with a
    /// passkey on another device, where the passkey is for this one.
    public func startEnrollment(for signIn: SignIn, clientID: String, addressedByChallenge: Bool = false, hints: [String]? = nil) async throws -> CreationChallenge {
        try Self.requireKnown(hints)
        try sensitiveActions.requireRecent(signIn, for: "Adding a passkey", allowingRecovery: true)
        return try await startEnrollment(userID: signIn.userID, clientID: clientID, addressedByChallenge: addressedByChallenge, kind: .enrollment, hints: hints)
    }

    /// Starts adding a passkey to an account, without judging the sign-in: for an
    /// administrator acting for the owner, and for a settings flow, which judges the sign-in
    /// when its submission finishes the enrollment. The options exclude the passkeys the
    /// account already has.
    /// - Parameter addressedByChallenge: For faces whose finishing request carries no
    ///   handle, only the client data: the challenge is then the sealed ceremony
    ///   itself, and ``ceremonyID(clientDataJSON:)`` finds the handle from it.
    public func startEnrollment(userID: UserID, clientID: String, lifetime: TimeInterval? = nil, addressedByChallenge: Bool = false) async throws -> CreationChallenge {
        try await startEnrollment(userID: userID, clientID: clientID, lifetime: lifetime, addressedByChallenge: addressedByChallenge, kind: .enrollment)
    }

    private func startEnrollment(
        userID: UserID, clientID: String, lifetime: TimeInterval? = nil, addressedByChallenge: Bool = false, kind: Ceremony.Kind, hints: [String]? = nil
    ) async throws -> CreationChallenge {
        guard let user = try await storage.user(id: userID) else {
            throw IdentityError(.invalidToken, "the account of this access token no longer exists")
        }
        let existing = try await storage.credentials(userID: userID)
        var ceremony = makeCeremony(kind: kind, clientID: clientID, userID: userID, lifetime: lifetime)
        // The platform creates the passkey without a prompt, so it cannot promise to verify
        // the user either.
        if kind == .conditionalEnrollment { ceremony.userVerification = .preferred }
        let exclude = existing.map { CredentialDescriptor(id: Base64URLBytes($0.credentialID), transports: $0.transports.isEmpty ? nil : $0.transports) }
        let token = try secrets.ceremonies.seal(ceremony, challengeIsToken: addressedByChallenge, nonce: random.bytes(12))
        let challenge = addressedByChallenge ? token : ceremony.challenge
        return CreationChallenge(
            options: creationOptions(for: user, challenge: challenge, exclude: exclude, clientID: clientID, userVerification: ceremony.userVerification, hints: hints),
            authSession: Base64URL.encode(token)
        )
    }

    /// The handle of a ceremony started with `addressedByChallenge`, from the
    /// challenge its client data carries; `nil` when the client data has none.
    public static func ceremonyID(clientDataJSON: [UInt8]) -> String? {
        guard let clientData = try? CollectedClientData(bytes: clientDataJSON), let challenge = Base64URL.decode(clientData.challenge), !challenge.isEmpty else {
            return nil
        }
        return Base64URL.encode(challenge)
    }

    // MARK: - Helpers

    func makeCeremony(
        kind: Ceremony.Kind, clientID: String, pendingUser: User? = nil, userID: UserID? = nil, allowedCredentialIDs: [[UInt8]] = [],
        lifetime: TimeInterval?
    ) -> Ceremony {
        let now = clock.now()
        let expiresAt = now.addingTimeInterval(lifetime ?? configuration.ceremonyLifetime)
        openCeremonies?.started(expiresAt: expiresAt, now: now)
        if kind == .signup { ceremonyStarts?.signUpStarted(at: now) }
        return Ceremony(
            key: CeremonyKey(expiresAt: expiresAt, random: random.bytes(8)),
            kind: kind,
            clientID: clientID,
            challenge: random.bytes(32),
            userVerification: configuration.policy(for: clientID).userVerification,
            pendingUser: pendingUser,
            userID: userID,
            allowedCredentialIDs: allowedCredentialIDs,
            createdAt: now
        )
    }

    private func seal(_ ceremony: Ceremony) throws -> String {
        Base64URL.encode(try secrets.ceremonies.seal(ceremony, nonce: random.bytes(12)))
    }

    /// Creation options under the policy of the application `clientID`.
    private func creationOptions(
        for user: User, challenge: [UInt8], exclude: [CredentialDescriptor], clientID: String, userVerification: UserVerificationRequirement? = nil,
        hints: [String]? = nil, extensions: ExtensionInputs? = ExtensionInputs(credProps: true)
    ) -> PublicKeyCredentialCreationOptionsJSON {
        let policy = configuration.policy(for: clientID)
        return PublicKeyCredentialCreationOptionsJSON(
            rp: .init(id: configuration.relyingPartyID, name: configuration.relyingPartyName),
            // A sign-up without a profile yet has no names to show: the client fills them in.
            user: user.profile.identifiers.isEmpty
                ? .init(id: Base64URLBytes(user.userHandle), name: "", displayName: "")
                : .init(id: Base64URLBytes(user.userHandle), name: user.accountName, displayName: user.displayName),
            challenge: Base64URLBytes(challenge),
            pubKeyCredParams: policy.algorithms.map { .init(alg: $0) },
            timeout: timeoutMilliseconds,
            excludeCredentials: exclude.isEmpty ? nil : exclude,
            authenticatorSelection: .init(
                residentKey: policy.residentKey, requireResidentKey: policy.residentKey == "required",
                userVerification: (userVerification ?? policy.userVerification).rawValue
            ),
            hints: Self.sent(hints ?? policy.hints),
            // An application that judges passkeys by their model or attestation needs one:
            // under `none` browsers strip it and zero the AAGUID.
            attestation: policy.needsAttestation ? "direct" : configuration.attestationConveyance,
            attestationFormats: policy.attestationFormats.isEmpty ? nil : policy.attestationFormats,
            extensions: extensions
        )
    }

    /// Refuses hints WebAuthn Level 3 does not define (§5.8.7), which a browser would ignore.
    private static func requireKnown(_ hints: [String]?) throws {
        guard let hints, let unknown = hints.first(where: { !PasskeyPolicy.knownHints.contains($0) }) else { return }
        throw IdentityError(.invalidRequest, "hints may be security-key, client-device or hybrid, not \"\(unknown.prefix(40))\"", field: "hints")
    }

    /// The options' `hints`: absent when there are none.
    private static func sent(_ hints: [String]) -> [String]? { hints.isEmpty ? nil : hints }

    private var timeoutMilliseconds: UInt32 { UInt32(min(configuration.ceremonyLifetime * 1000, Double(UInt32.max))) }

    /// A user ID no account has, for the read an unknown identifier still makes.
    private static let nobody = UserID(rawValue: "")

    /// Reads again the real allow lists that decoys imitate (``LoginDecoys``): at start-up
    /// and every few minutes, in the background.
    public func refreshDecoys() async throws {
        try await decoys.refresh(from: storage)
    }

    /// Refuses a profile whose identifier already belongs to an account.
    private func refuseExisting(_ profile: UserProfile) async throws {
        for identifier in profile.identifiers where try await storage.user(identifier: identifier) != nil {
            throw IdentityError(
                .invalidRequest, "a user with this \(Self.name(of: identifier.kind)) already exists; sign in instead",
                reason: .userExists(identifier.kind), field: .profile
            )
        }
    }

    private static func name(of kind: ProfileValidation.IdentifierKind) -> String {
        switch kind {
        case .email: return "email"
        case .phoneNumber: return "phone number"
        case .username: return "username"
        }
    }
}
