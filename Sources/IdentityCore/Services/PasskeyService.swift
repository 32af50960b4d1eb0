import Crypto
public import Foundation
public import WebAuthn

/// Passkey sign-up, login and enrollment: the one pipeline every API face calls. Each
/// ceremony is started here (options plus an `auth_session`) and finished here, through
/// ``WebAuthnVerifier``; post-login writes happen in one place.
public struct PasskeyService: Sendable {
    private let configuration: PasskeyConfiguration
    private let verifier: WebAuthnVerifier
    private let storage: any IdentityStorage
    private let tokens: TokenService
    private let clock: any WallClock
    private let random: any RandomSource

    /// Creates the service.
    public init(
        configuration: PasskeyConfiguration,
        verifier: WebAuthnVerifier,
        storage: any IdentityStorage,
        tokens: TokenService,
        clock: any WallClock,
        random: any RandomSource
    ) {
        self.configuration = configuration
        self.verifier = verifier
        self.storage = storage
        self.tokens = tokens
        self.clock = clock
        self.random = random
    }

    // MARK: - Starting ceremonies

    /// Starts a sign-up: validates the profile, refuses identifiers that already exist, and
    /// returns creation options for a new, not yet stored account.
    /// - Parameters:
    ///   - input: The profile, or `nil` when the identifier comes only with the finished
    ///     ceremony (the account creation API, or a self-service flow's traits).
    ///   - lifetime: How long the ceremony lives, when a face's flow sets it.
    public func startSignup(client: OAuthClient, profile input: UserProfile?, lifetime: TimeInterval? = nil) async throws -> CreationChallenge {
        var profile = UserProfile()
        if let input {
            profile = try ProfileValidation.validate(input, allowed: configuration.signupIdentifiers)
            try await refuseExisting(profile)
        }
        let now = clock.now()
        // The user handle is random and unrelated to any identifier (WebAuthn L3 §14.6.1).
        let user = User(
            id: UserID(rawValue: Base64URL.encode(random.bytes(16))), userHandle: random.bytes(32), profile: profile,
            createdAt: now, updatedAt: now
        )
        let ceremony = makeCeremony(kind: .signup, clientID: client.clientID, pendingUser: user, lifetime: lifetime)
        try await storage.saveCeremony(ceremony)
        return CreationChallenge(options: creationOptions(for: user, ceremony: ceremony, exclude: []), authSession: ceremony.id)
    }

    /// Starts a login. Without a username the options allow any discoverable credential;
    /// with one they list that user's credentials. An unknown username gets the same shape
    /// with credential IDs derived from a server secret, so responses do not reveal
    /// whether an account exists.
    public func startLogin(client: OAuthClient, username: String?, lifetime: TimeInterval? = nil) async throws -> RequestChallenge {
        var allowed: [CredentialDescriptor] = []
        if let username {
            guard let identifier = ProfileValidation.identifier(forLogin: username) else {
                throw IdentityError(.invalidRequest, "username is not a valid email, phone number or username", field: "username")
            }
            if let user = try await storage.user(identifier: identifier) {
                // A disabled passkey is not offered; it would only fail.
                allowed = try await storage.credentials(userID: user.id).filter { !$0.isDisabled }.map {
                    CredentialDescriptor(id: Base64URLBytes($0.credentialID), transports: $0.transports.isEmpty ? nil : $0.transports)
                }
            } else {
                allowed = [CredentialDescriptor(id: Base64URLBytes(try await decoyCredentialID(for: identifier)), transports: ["internal", "hybrid"])]
            }
        }
        let ceremony = makeCeremony(kind: .login, clientID: client.clientID, allowedCredentialIDs: allowed.map(\.id.bytes), lifetime: lifetime)
        try await storage.saveCeremony(ceremony)
        let options = PublicKeyCredentialRequestOptionsJSON(
            challenge: Base64URLBytes(ceremony.challenge),
            timeout: timeoutMilliseconds,
            rpId: configuration.relyingPartyID,
            allowCredentials: allowed.isEmpty ? nil : allowed,
            userVerification: configuration.userVerification.rawValue
        )
        return RequestChallenge(options: options, authSession: ceremony.id)
    }

    /// Starts adding a passkey to a signed-in account; the options exclude the passkeys the
    /// account already has.
    /// - Parameter addressedByChallenge: Name the ceremony after its challenge
    ///   (``ceremonyID(clientDataJSON:)``) for faces whose finishing request carries no
    ///   `auth_session`, only the client data.
    public func startEnrollment(userID: UserID, clientID: String, lifetime: TimeInterval? = nil, addressedByChallenge: Bool = false) async throws -> CreationChallenge {
        guard let user = try await storage.user(id: userID) else {
            throw IdentityError(.invalidToken, "the account of this access token no longer exists")
        }
        let existing = try await storage.credentials(userID: userID)
        var ceremony = makeCeremony(kind: .enrollment, clientID: clientID, userID: userID, lifetime: lifetime)
        if addressedByChallenge {
            ceremony = Ceremony(
                id: Self.ceremonyID(challenge: ceremony.challenge), kind: ceremony.kind, clientID: ceremony.clientID, challenge: ceremony.challenge,
                userVerification: ceremony.userVerification, userID: ceremony.userID, createdAt: ceremony.createdAt, expiresAt: ceremony.expiresAt
            )
        }
        try await storage.saveCeremony(ceremony)
        let exclude = existing.map { CredentialDescriptor(id: Base64URLBytes($0.credentialID), transports: $0.transports.isEmpty ? nil : $0.transports) }
        return CreationChallenge(options: creationOptions(for: user, ceremony: ceremony, exclude: exclude), authSession: ceremony.id)
    }

    // MARK: - Finishing ceremonies

    /// The WebAuthn grant: finishes a sign-up or a login and issues tokens.
    public func finishWebAuthnGrant(
        client: OAuthClient,
        authSession: String,
        response: PublicKeyCredentialResponse,
        scope: String?,
        audience: String?
    ) async throws -> IssuedTokens {
        let scopes = Scopes.grant(scope)
        let resolvedAudience = try tokens.resolveAudience(audience)
        let signedIn = try await finishCeremony(client: client, authSession: authSession, response: response)
        return try await tokens.issue(for: signedIn.user, client: client, scopes: scopes, audience: resolvedAudience, userVerified: signedIn.userVerified)
    }

    /// Finishes a sign-up or a login: the step every face shares, whether it then issues
    /// tokens, starts a browser session or a self-service session.
    /// - Parameter profile: For a sign-up started without a profile, the identifier and name
    ///   chosen since; validated as at the start. A sign-up that had one refuses another.
    public func finishCeremony(client: OAuthClient, authSession: String, response: PublicKeyCredentialResponse, profile: UserProfile? = nil) async throws -> SignedIn {
        // Validated before the ceremony is consumed, so that a typo does not burn the challenge.
        let lateProfile = try profile.map { try ProfileValidation.validate($0, allowed: configuration.signupIdentifiers) }
        let ceremony = try await consume(authSession, clientID: client.clientID)
        switch (ceremony.kind, response) {
        case (.signup, .registration(let registration)):
            let (user, verified) = try await finishSignup(ceremony, registration, profile: lateProfile)
            return SignedIn(user: user, userVerified: verified.flags.isUserVerified, credentialID: verified.credentialID, isNewAccount: true)
        case (.login, .authentication(let assertion)):
            let (user, verified) = try await finishLogin(ceremony, assertion)
            return SignedIn(user: user, userVerified: verified.flags.isUserVerified, credentialID: assertion.rawId.bytes, isNewAccount: false)
        case (.signup, .authentication), (.login, .registration):
            throw IdentityError(.invalidGrant, "this auth_session is for a \(ceremony.kind.rawValue), but authn_response is the other kind", reason: .wrongResponseKind)
        case (.enrollment, _):
            throw IdentityError(.invalidGrant, "an enrollment auth_session is finished at the My Account API, not the token endpoint")
        }
    }

    /// Finishes adding a passkey to a signed-in account.
    /// - Parameters:
    ///   - name: A name for the passkey, unique among the user's; checked before the
    ///     ceremony is consumed, so that a taken name can be retried with the same response.
    ///   - actor: Who enrolled it, when not the user (an administration application), for
    ///     the audit event.
    public func finishEnrollment(
        userID: UserID, clientID: String, authSession: String, response: RegistrationResponseJSON, name: String? = nil, actor: String? = nil
    ) async throws -> PasskeyCredential {
        let newName = try ProfileValidation.optionalName(name, field: "name")
        if let newName, try await storage.credentials(userID: userID).contains(where: { $0.name == newName }) {
            throw Self.nameTaken(newName)
        }
        let ceremony = try await consume(authSession, clientID: clientID)
        guard ceremony.kind == .enrollment, ceremony.userID == userID else {
            throw IdentityError(.invalidGrant, "this auth_session was not started for adding a passkey to this account", reason: .invalidAuthSession)
        }
        let verified = try verifyRegistration(response, ceremony)
        var credential = makeCredential(verified, userID: userID)
        credential.name = newName
        do {
            try await storage.addCredential(credential)
        } catch let conflict as StoreConflict {
            switch conflict.kind {
            case .credentialName: throw Self.nameTaken(newName ?? "")
            case .credentialID, .identifier: throw IdentityError(.conflict, "this passkey is already registered", credentialID: Base64URL.encode(credential.credentialID))
            }
        }
        try await storage.record(AuditEvent(
            time: clock.now(), kind: .enrollment, userID: userID, clientID: clientID, credentialID: Base64URL.encode(credential.credentialID),
            detail: actor.map { "by administration application \($0)" } ?? ""
        ))
        return credential
    }

    private static func nameTaken(_ name: String) -> IdentityError {
        IdentityError(.conflict, "another passkey on this account is already named \"\(name)\"", reason: .credentialNameTaken, field: "name")
    }

    /// The `auth_session` of a ceremony started with `addressedByChallenge`, from the
    /// challenge its client data carries; `nil` when the client data has none.
    public static func ceremonyID(clientDataJSON: [UInt8]) -> String? {
        guard let clientData = try? CollectedClientData(bytes: clientDataJSON), let challenge = Base64URL.decode(clientData.challenge), !challenge.isEmpty else {
            return nil
        }
        return ceremonyID(challenge: challenge)
    }

    /// A ceremony ID derived from its challenge. The challenge is as secret as a random
    /// `auth_session` (both go to the same client), and the ceremony stays bound to its
    /// client and user.
    static func ceremonyID(challenge: [UInt8]) -> String {
        Base64URL.encode(SHA256.hash(data: Array("latchkey-ceremony:".utf8) + challenge))
    }

    /// Finds which of a user's passkeys made an assertion that does not name its credential
    /// (Android's Credential Manager JSON, as some backends forward it, drops the ID): the
    /// user comes from the user handle, and the passkey is the one whose key verifies the
    /// signature. Costs one signature check per passkey of that user.
    /// - Returns: The credential ID, or `nil` when no passkey of that user verifies.
    public func credentialID(userHandle: [UInt8], authenticatorData: [UInt8], clientDataJSON: [UInt8], signature: [UInt8]) async throws -> [UInt8]? {
        guard !userHandle.isEmpty, userHandle.count <= 64, let user = try await storage.user(handle: userHandle) else { return nil }
        let clientDataHash = Array(SHA256.hash(data: clientDataJSON))
        for credential in try await storage.credentials(userID: user.id) {
            guard let key = try? CredentialPublicKey(coseKey: credential.publicKey, policy: verifier.policy.keyPolicy) else { continue }
            if key.isValidSignature(signature, over: [authenticatorData[...], clientDataHash[...]]) { return credential.credentialID }
        }
        return nil
    }

    private func finishSignup(_ ceremony: Ceremony, _ response: RegistrationResponseJSON, profile: UserProfile?) async throws -> (User, VerifiedRegistration) {
        guard var user = ceremony.pendingUser else {
            throw IdentityError(.invalidGrant, "the sign-up auth_session carries no account")
        }
        switch (user.profile.identifiers.isEmpty, profile) {
        case (true, nil):
            throw IdentityError(.invalidRequest, "user_profile with an email or phone number is required: this sign-up was started without one", field: "user_profile")
        case (false, .some):
            throw IdentityError(.invalidRequest, "this sign-up already has a user_profile; it cannot be given twice", field: "user_profile")
        case (true, .some(let profile)):
            user.profile = profile
        case (false, nil):
            break
        }
        let verified = try verifyRegistration(response, ceremony)
        let credential = makeCredential(verified, userID: user.id)
        do {
            // The account and its first passkey appear together or not at all; a concurrent
            // sign-up for the same identifier loses here.
            try await storage.createUser(user, credential: credential)
        } catch let conflict as StoreConflict {
            switch conflict.kind {
            case .identifier:
                // The device has just saved this passkey: the app can signal it unknown.
                throw IdentityError(
                    .invalidRequest, "a user with this identifier already exists; sign in instead", reason: .userExists,
                    credentialID: Base64URL.encode(credential.credentialID)
                )
            case .credentialID, .credentialName:
                throw IdentityError(.invalidGrant, "this passkey is already registered", credentialID: Base64URL.encode(credential.credentialID))
            }
        }
        try await storage.record(AuditEvent(time: clock.now(), kind: .signup, userID: user.id, clientID: ceremony.clientID, credentialID: Base64URL.encode(credential.credentialID)))
        return (user, verified)
    }

    private func finishLogin(_ ceremony: Ceremony, _ response: AuthenticationResponseJSON) async throws -> (User, VerifiedAuthentication) {
        let credentialID = response.rawId.bytes
        let encodedID = Base64URL.encode(credentialID)
        guard let credential = try await storage.credential(id: credentialID), let user = try await storage.user(id: credential.userID) else {
            try await storage.record(AuditEvent(time: clock.now(), kind: .loginFailed, clientID: ceremony.clientID, credentialID: encodedID, detail: "unknown credential"))
            throw IdentityError(
                .invalidGrant, "this passkey is not registered here; the app should signal it as unknown to the platform",
                reason: .unknownCredential, credentialID: encodedID
            )
        }
        guard !credential.isDisabled else {
            try await storage.record(AuditEvent(time: clock.now(), kind: .loginFailed, userID: user.id, clientID: ceremony.clientID, credentialID: encodedID, detail: "disabled passkey"))
            throw IdentityError(.invalidGrant, "this passkey has been disabled on this account", reason: .credentialDisabled, credentialID: encodedID)
        }
        let verified: VerifiedAuthentication
        do {
            let record = CredentialRecord(
                credentialID: credential.credentialID,
                publicKey: try CredentialPublicKey(coseKey: credential.publicKey, policy: verifier.policy.keyPolicy),
                signCount: credential.signCount,
                isBackupEligible: credential.isBackupEligible,
                userHandle: user.userHandle
            )
            let expectations = AuthenticationCeremony(
                challenge: ceremony.challenge, userVerification: ceremony.userVerification, allowedCredentialIDs: ceremony.allowedCredentialIDs
            )
            verified = try verifier.verifyAuthentication(response, for: expectations, credential: record)
        } catch {
            try await storage.record(AuditEvent(time: clock.now(), kind: .loginFailed, userID: user.id, clientID: ceremony.clientID, credentialID: encodedID, detail: error.description))
            throw IdentityError(.invalidGrant, error.reason, reason: .verification(error.code), credentialID: encodedID)
        }
        try await recordUse(of: credential, verified, ceremony: ceremony)
        try await storage.record(AuditEvent(time: clock.now(), kind: .login, userID: user.id, clientID: ceremony.clientID, credentialID: encodedID))
        return (user, verified)
    }

    /// The single place a login writes back: counter, backup state, UV and last use. A
    /// counter that did not increase is recorded on the credential and in the audit log,
    /// then handled by the configured policy.
    private func recordUse(of credential: PasskeyCredential, _ verified: VerifiedAuthentication, ceremony: Ceremony) async throws {
        let now = clock.now()
        var regressed = false
        if case .regressed(let stored, let received) = verified.signCountStatus {
            regressed = true
            try await storage.record(AuditEvent(
                time: now, kind: .signCountRegressed, userID: credential.userID, clientID: ceremony.clientID,
                credentialID: Base64URL.encode(credential.credentialID),
                detail: "counter \(received) after \(stored); policy \(configuration.signCountPolicy == .reject ? "reject" : "accept and flag")"
            ))
            if configuration.signCountPolicy == .reject {
                try await storage.recordUse(
                    credentialID: credential.credentialID,
                    CredentialUse(signCount: credential.signCount, isBackedUp: credential.isBackedUp, isUserVerified: credential.isUserVerified, usedAt: nil, signCountRegressed: true)
                )
                throw IdentityError(
                    .invalidGrant, "the signature counter is \(received), not greater than the stored \(stored): the passkey may be cloned",
                    reason: .verification(.signCountRegressed), credentialID: Base64URL.encode(credential.credentialID)
                )
            }
        }
        try await storage.recordUse(
            credentialID: credential.credentialID,
            CredentialUse(
                signCount: verified.signCount, isBackedUp: verified.flags.isBackedUp,
                isUserVerified: verified.flags.isUserVerified, usedAt: now, signCountRegressed: regressed
            )
        )
    }

    // MARK: - Helpers

    private func consume(_ authSession: String, clientID: String) async throws -> Ceremony {
        guard !authSession.isEmpty, authSession.utf8.count <= 128,
            let ceremony = try await storage.consumeCeremony(id: authSession, clientID: clientID, at: clock.now())
        else {
            throw IdentityError(
                .invalidGrant, "auth_session is unknown, expired, already used, or belongs to another client", reason: .invalidAuthSession
            )
        }
        return ceremony
    }

    private func verifyRegistration(_ response: RegistrationResponseJSON, _ ceremony: Ceremony) throws -> VerifiedRegistration {
        let expectations = RegistrationCeremony(challenge: ceremony.challenge, userVerification: ceremony.userVerification, allowedAlgorithms: configuration.algorithms)
        do {
            return try verifier.verifyRegistration(response, for: expectations, at: clock.now())
        } catch {
            throw IdentityError(.invalidGrant, error.reason, reason: .verification(error.code), credentialID: Base64URL.encode(response.rawId.bytes))
        }
    }

    private func makeCredential(_ verified: VerifiedRegistration, userID: UserID) -> PasskeyCredential {
        PasskeyCredential(
            credentialID: verified.credentialID,
            userID: userID,
            publicKey: verified.publicKey.coseKey,
            algorithm: verified.publicKey.algorithm,
            signCount: verified.signCount,
            isBackupEligible: verified.flags.isBackupEligible,
            isBackedUp: verified.flags.isBackedUp,
            isUserVerified: verified.flags.isUserVerified,
            transports: verified.transports,
            aaguid: verified.aaguid,
            attestationFormat: verified.attestation.format.rawValue,
            isAttestationTrusted: verified.attestation.trust.isTrusted,
            relyingPartyID: verified.relyingPartyID,
            createdAt: clock.now(),
            recordID: UUIDText.random(random.bytes(16)),
            origin: verified.origin
        )
    }

    private func makeCeremony(
        kind: Ceremony.Kind, clientID: String, pendingUser: User? = nil, userID: UserID? = nil, allowedCredentialIDs: [[UInt8]] = [],
        lifetime: TimeInterval?
    ) -> Ceremony {
        let now = clock.now()
        return Ceremony(
            id: Base64URL.encode(random.bytes(32)),
            kind: kind,
            clientID: clientID,
            challenge: random.bytes(32),
            userVerification: configuration.userVerification,
            pendingUser: pendingUser,
            userID: userID,
            allowedCredentialIDs: allowedCredentialIDs,
            createdAt: now,
            expiresAt: now.addingTimeInterval(lifetime ?? configuration.ceremonyLifetime)
        )
    }

    private func creationOptions(for user: User, ceremony: Ceremony, exclude: [CredentialDescriptor]) -> PublicKeyCredentialCreationOptionsJSON {
        PublicKeyCredentialCreationOptionsJSON(
            rp: .init(id: configuration.relyingPartyID, name: configuration.relyingPartyName),
            // A sign-up without a profile yet has no names to show: the client fills them in.
            user: user.profile.identifiers.isEmpty
                ? .init(id: Base64URLBytes(user.userHandle), name: "", displayName: "")
                : .init(id: Base64URLBytes(user.userHandle), name: user.accountName, displayName: user.displayName),
            challenge: Base64URLBytes(ceremony.challenge),
            pubKeyCredParams: configuration.algorithms.map { .init(alg: $0) },
            timeout: timeoutMilliseconds,
            excludeCredentials: exclude.isEmpty ? nil : exclude,
            authenticatorSelection: .init(residentKey: "required", requireResidentKey: true, userVerification: configuration.userVerification.rawValue),
            extensions: ExtensionInputs(credProps: true)
        )
    }

    private var timeoutMilliseconds: UInt32 { UInt32(min(configuration.ceremonyLifetime * 1000, Double(UInt32.max))) }

    /// A stable, secret-derived credential ID for an unknown login identifier.
    private func decoyCredentialID(for identifier: Identifier) async throws -> [UInt8] {
        let secret = try await storage.secret(named: "login-decoy", orStore: random.bytes(32))
        let mac = HMAC<SHA256>.authenticationCode(for: Data(identifier.value.utf8), using: SymmetricKey(data: secret))
        return Array(Data(mac).prefix(16))
    }

    /// Refuses a profile whose identifier already belongs to an account.
    private func refuseExisting(_ profile: UserProfile) async throws {
        for identifier in profile.identifiers where try await storage.user(identifier: identifier) != nil {
            throw IdentityError(
                .invalidRequest, "a user with this \(Self.name(of: identifier)) already exists; sign in instead",
                reason: .userExists, field: "user_profile"
            )
        }
    }

    private static func name(of identifier: Identifier) -> String {
        switch identifier {
        case .email: return "email"
        case .phoneNumber: return "phone number"
        case .username: return "username"
        }
    }
}
