public import LatchkeyWire
import Crypto
import Foundation
import WebAuthn

/// Finishing ceremonies. Each finish opens the sealed ceremony, verifies the response with
/// the one verifier, and hands everything it writes (account or passkey, passkey use,
/// audit events, the session the caller starts) to the store in one
/// ``CeremonyCompletion``. A refused finish completes the ceremony too, with its audit
/// events, so a ceremony is tried at most once whatever the outcome.
extension PasskeyService {
    /// The WebAuthn grant: finishes a sign-up or a login and issues tokens.
    /// - Parameter profile: For a sign-up started without a profile (the account creation
    ///   API), the identifier and name the person chose since.
    public func finishWebAuthnGrant(
        client: OAuthClient,
        authSession: String,
        response: PublicKeyCredentialResponse,
        profile: UserProfile? = nil,
        scope: String?,
        audience: String?,
        origin: RequestOrigin?,
        failureCheck: FailureCheck?
    ) async throws -> IssuedTokens {
        let scopes = try Scopes.grant(scope, to: client)
        let resolvedAudience = try tokens.resolveAudience(audience)
        let (signedIn, pending) = try await finishCeremony(
            client: client, authSession: authSession, response: response, profile: profile, origin: origin, failureCheck: failureCheck
        ) { signedIn in
            let pending = tokens.prepare(
                for: signedIn.user.id, client: client, scopes: scopes, audience: resolvedAudience, userVerified: signedIn.userVerified,
                method: .passkey, credentialID: signedIn.credentialID, acr: signedIn.level.acr(requested: nil)
            )
            return (.tokens(pending.session), pending)
        }
        return try await tokens.sign(pending, for: signedIn.user)
    }

    /// Finishes a sign-up or a login: the step every face shares, whatever session it then
    /// starts. The session is decided by `startSession` once the user is known, and written
    /// with the ceremony.
    /// - Parameters:
    ///   - profile: For a sign-up started without a profile, the identifier and name
    ///     chosen since; validated as at the start. A sign-up that had one refuses another.
    ///   - expectedUserID: For a login, the account the request named: a passkey of any
    ///     other account is refused before anything is written.
    ///   - findsUnnamedCredential: For a login whose response names no credential (`rawId`
    ///     empty, as some Android backends forward it): the passkey is the one of the user
    ///     handle's account whose key verifies the signature.
    ///   - origin: The request's, written on every audit event the finish records.
    ///   - failureCheck: The request's failed-finish check, made by the completion's write.
    ///   - startSession: The session to start for the signed-in user, and what the caller
    ///     needs of it afterwards.
    public func finishCeremony<Started: Sendable>(
        client: OAuthClient,
        authSession: String,
        response: PublicKeyCredentialResponse,
        profile: UserProfile? = nil,
        expectedUserID: UserID? = nil,
        findsUnnamedCredential: Bool = false,
        finishingFlow flowID: String? = nil,
        origin: RequestOrigin?,
        failureCheck: FailureCheck?,
        startSession: (SignedIn) throws -> (SessionRecord?, Started)
    ) async throws -> (SignedIn, Started) {
        // Validated before the ceremony is touched, so that a typo does not burn the challenge.
        let lateProfile = try profile.map { try ProfileValidation.validate($0, allowed: configuration.signupIdentifiers) }
        // A sign-up that names its identifier only now counts against the identifier's limit
        // as one that named it at the start does, whatever the answer will be.
        for identifier in lateProfile?.identifiers ?? [] { try await rateLimits?.admit(identifier: identifier) }
        let ceremony = FinishingCeremony(try open(authSession, clientID: client.clientID), origin: origin, failureCheck: failureCheck)
        switch (ceremony.kind, response) {
        case (.signup, .registration(let registration)):
            return try await finishSignup(ceremony, registration, profile: lateProfile, flowID: flowID, startSession: startSession)
        case (.login, .authentication(let assertion)):
            // Refused before anything is written: the login can be sent again without it.
            guard lateProfile == nil else {
                throw IdentityError(.invalidRequest, about: .profile, "is only accepted when finishing a sign-up")
            }
            return try await finishLogin(
                ceremony, assertion, expectedUserID: expectedUserID, findsUnnamedCredential: findsUnnamedCredential, flowID: flowID, startSession: startSession
            )
        case (.signup, .authentication), (.login, .registration):
            try await refuse(ceremony)
            throw IdentityError(.invalidGrant, about: .ceremony, "is for a \(ceremony.kind.rawValue), but the response is the other kind", reason: .wrongResponseKind, isField: false)
        case (.enrollment, _), (.conditionalEnrollment, _):
            try await refuse(ceremony)
            throw IdentityError(.invalidGrant, about: .ceremony, "of an enrollment is finished at the My Account API, not the token endpoint", isField: false)
        }
    }

    /// Finishes adding a passkey to an account.
    /// - Parameters:
    ///   - name: A name for the passkey, unique among the user's. A taken name writes
    ///     nothing and leaves the ceremony open, so the same response can be sent again
    ///     under another name.
    ///   - actor: Who adds it: the signed-in owner, whose sign-in must be recent (unless the
    ///     ceremony is the automatic upgrade right after a password sign-in), or an
    ///     administration application, named in the audit event. A stale sign-in is refused
    ///     before the ceremony is used, so it can be finished after signing in again.
    public func finishEnrollment(
        userID: UserID, clientID: String, authSession: String, response: RegistrationResponseJSON, name: String? = nil, by actor: Actor,
        origin: RequestOrigin?
    ) async throws -> PasskeyCredential {
        let newName = try ProfileValidation.optionalName(name, field: .named("name"))
        let ceremony = FinishingCeremony(try open(authSession, clientID: clientID), origin: origin, failureCheck: nil)
        if ceremony.kind == .enrollment { try sensitiveActions.requireRecent(actor, for: "Adding a passkey", allowingRecovery: true) }
        guard ceremony.kind == .enrollment || ceremony.kind == .conditionalEnrollment, ceremony.userID == userID else {
            try await refuse(ceremony)
            throw IdentityError(.invalidGrant, about: .ceremony, "was not started for adding a passkey to this account", reason: .invalidAuthSession, isField: false)
        }
        let verified = try await verifyRegistration(response, ceremony)
        var credential = makeCredential(verified, userID: userID)
        credential.name = newName
        let event = AuditEvent(
            time: clock.now(), kind: .enrollment, userID: userID, clientID: clientID, credentialID: Base64URL.encode(credential.credentialID),
            detail: actor.administratorID.map { "by administration application \($0)" } ?? "", origin: origin
        )
        do {
            try await complete(CeremonyCompletion(key: ceremony.key, newCredential: credential, events: [event]))
        } catch let conflict as StoreConflict {
            switch conflict.kind {
            case .credentialName:
                throw IdentityError(.conflict, "another passkey on this account is already named \"\(newName ?? "")\"", reason: .credentialNameTaken, field: "name")
            case .credentialID, .identifier:
                throw IdentityError(.conflict, "this passkey is already registered", credentialID: Base64URL.encode(credential.credentialID))
            }
        }
        return credential
    }

    // MARK: - Sign-up and login

    private func finishSignup<Started>(
        _ ceremony: FinishingCeremony, _ response: RegistrationResponseJSON, profile: UserProfile?, flowID: String?,
        startSession: (SignedIn) throws -> (SessionRecord?, Started)
    ) async throws -> (SignedIn, Started) {
        guard var user = ceremony.pendingUser else {
            try await refuse(ceremony)
            throw IdentityError(.invalidGrant, about: .ceremony, "of this sign-up carries no account", isField: false)
        }
        // Request mistakes, refused before anything is verified or written, like a malformed
        // profile: the same response can be sent again, corrected.
        switch (user.profile.identifiers.isEmpty, profile) {
        case (true, nil):
            throw IdentityError(.invalidRequest, about: .profile, "with an email or phone number is required: this sign-up was started without one")
        case (false, .some):
            throw IdentityError(.invalidRequest, about: .profile, "was given when this sign-up started; it cannot be given twice")
        case (true, .some(let profile)):
            user.profile = profile
        case (false, nil):
            break
        }
        let verified = try await verifyRegistration(response, ceremony)
        let credential = makeCredential(verified, userID: user.id)
        let encodedID = Base64URL.encode(credential.credentialID)
        var signedIn = SignedIn(user: user, userVerified: verified.flags.isUserVerified, credentialID: verified.credentialID, isNewAccount: true)
        signedIn.level = AuthenticationLevel(method: .passkey, userVerified: signedIn.userVerified, credential: credential)
        let (session, started) = try startSession(signedIn)
        do {
            // The account, its first passkey and its session appear together or not at all;
            // a concurrent sign-up for the same identifier loses here.
            let now = clock.now()
            try await complete(CeremonyCompletion(
                key: ceremony.key, newAccount: .init(user: user, credential: credential),
                events: [AuditEvent(time: now, kind: .signup, userID: user.id, clientID: ceremony.clientID, credentialID: encodedID, origin: ceremony.origin)],
                session: session, finishedFlow: flowID.map { (id: $0, at: now) }, failureCheck: ceremony.failureCheck
            ))
        } catch let conflict as StoreConflict {
            switch conflict.kind {
            case .identifier:
                // The device has just saved this passkey: the app can signal it unknown.
                throw IdentityError(.invalidRequest, "a user with this identifier already exists; sign in instead", reason: .userExists(nil), credentialID: encodedID)
            case .credentialID, .credentialName:
                throw IdentityError(.invalidGrant, "this passkey is already registered", credentialID: encodedID)
            }
        }
        return (signedIn, started)
    }

    private func finishLogin<Started>(
        _ ceremony: FinishingCeremony, _ response: AuthenticationResponseJSON, expectedUserID: UserID?, findsUnnamedCredential: Bool, flowID: String?,
        startSession: (SignedIn) throws -> (SessionRecord?, Started)
    ) async throws -> (SignedIn, Started) {
        // A completion refused as stale wrote nothing, the ceremony included: verify again
        // against a fresh read. Another sign-in with the same passkey at the same moment can
        // make that happen again; three attempts are plenty for any real use.
        for attempt in 0..<3 {
            do {
                return try await attemptLogin(
                    ceremony, response, expectedUserID: expectedUserID, findsUnnamedCredential: findsUnnamedCredential, cached: attempt == 0,
                    flowID: flowID, startSession: startSession
                )
            } catch is StaleRead {
                continue
            }
        }
        throw IdentityError(.invalidGrant, "this passkey was used by other sign-ins at the same moment; try again", reason: .verification(.signCountRegressed))
    }

    /// One attempt: resolve the passkey and its owner, verify the assertion against them,
    /// record the use (each refusal is recorded where it is decided).
    private func attemptLogin<Started>(
        _ ceremony: FinishingCeremony, _ response: AuthenticationResponseJSON, expectedUserID: UserID?, findsUnnamedCredential: Bool, cached: Bool, flowID: String?,
        startSession: (SignedIn) throws -> (SessionRecord?, Started)
    ) async throws -> (SignedIn, Started) {
        let resolved = try await resolveLogin(ceremony, response, expectedUserID: expectedUserID, findsUnnamedCredential: findsUnnamedCredential, cached: cached)
        let verified = try await verifyLogin(ceremony, resolved)
        // After the signature, so that the refusal tells only the passkey's holder about it.
        if let refusal = configuration.policy(for: ceremony.clientID).refusal(of: resolved.credential) {
            try await refuse(ceremony, event: AuditEvent(
                time: clock.now(), kind: .loginFailed, userID: resolved.user.id, clientID: ceremony.clientID, credentialID: resolved.encodedID,
                detail: "passkey not allowed: \(refusal)", origin: ceremony.origin
            ))
            throw IdentityError(.invalidGrant, refusal, reason: .verification(.passkeyNotAllowed), credentialID: resolved.encodedID)
        }
        return try await recordLogin(ceremony, resolved, verified, flowID: flowID, startSession: startSession)
    }

    /// A login's passkey and its owner, once both may sign in.
    private struct ResolvedLogin {
        let response: AuthenticationResponseJSON
        let credential: PasskeyCredential
        let user: User
        /// The credential ID as the audit trail writes it.
        let encodedID: String
    }

    /// Finds the passkey an assertion names (or, without a credential ID, the one whose key
    /// made it), from this instance's cache unless `cached` is off, and checks that it and
    /// its owner may sign in.
    private func resolveLogin(
        _ ceremony: FinishingCeremony, _ response: AuthenticationResponseJSON, expectedUserID: UserID?, findsUnnamedCredential: Bool, cached: Bool
    ) async throws -> ResolvedLogin {
        var response = response
        if findsUnnamedCredential, response.rawId.bytes.isEmpty {
            guard let found = try await credentialID(madeBy: response) else {
                try await refuse(ceremony, event: AuditEvent(
                    time: clock.now(), kind: .loginFailed, clientID: ceremony.clientID, detail: "no passkey of the user handle's account made this signature",
                    origin: ceremony.origin
                ))
                throw IdentityError(
                    .invalidGrant, "no passkey of the account named by the user handle made this signature; without a credential ID the passkey cannot be identified otherwise",
                    reason: .verification(.badSignature)
                )
            }
            response.id = Base64URL.encode(found)
            response.rawId = Base64URLBytes(found)
        }
        let credentialID = response.rawId.bytes
        // No lookup with an ID that cannot name a credential (an empty one once could).
        do {
            try WebAuthnVerifier.checkCredentialIDLength(credentialID)
        } catch {
            try await refuse(ceremony, event: AuditEvent(time: clock.now(), kind: .loginFailed, clientID: ceremony.clientID, detail: error.description, origin: ceremony.origin))
            throw IdentityError(.invalidGrant, error.reason, reason: .verification(error.code))
        }
        let encodedID = Base64URL.encode(credentialID)
        func failed(_ detail: String, userID: UserID?) -> AuditEvent {
            AuditEvent(time: clock.now(), kind: .loginFailed, userID: userID, clientID: ceremony.clientID, credentialID: encodedID, detail: detail, origin: ceremony.origin)
        }
        // A passkey read before, from this instance's cache, unless this is the retry of a
        // completion that found the cached state stale; see CredentialCache.
        var record = cached ? signInRecords.entry(credentialID) : nil
        if record == nil {
            record = try await storage.credentialWithOwner(id: credentialID)
            if let record { signInRecords.store(record) } else { signInRecords.forget(credentialID) }
        }
        guard let (credential, user) = record else {
            try await refuse(ceremony, event: failed("unknown credential", userID: nil))
            throw IdentityError(
                .invalidGrant, "this passkey is not registered here; the app should signal it as unknown to the platform",
                reason: .unknownCredential, credentialID: encodedID
            )
        }
        if let expectedUserID, expectedUserID != user.id {
            try await refuse(ceremony, event: failed("passkey of another account than the one named", userID: user.id))
            throw IdentityError(.invalidGrant, "the passkey does not belong to the account the request named", reason: .userMismatch)
        }
        guard !credential.isDisabled else {
            signInRecords.forget(credentialID)
            try await refuse(ceremony, event: failed("disabled passkey", userID: user.id))
            throw IdentityError(.invalidGrant, "this passkey has been disabled on this account", reason: .credentialDisabled, credentialID: encodedID)
        }
        guard !user.isDisabled else {
            signInRecords.forget(credentialID)
            try await refuse(ceremony, event: failed("account disabled", userID: user.id))
            throw IdentityError.accountDisabled
        }
        return ResolvedLogin(response: response, credential: credential, user: user, encodedID: encodedID)
    }

    /// Verifies the assertion against the passkey; a refusal is recorded (a counter that
    /// did not increase also on the passkey) before it is thrown.
    private func verifyLogin(_ ceremony: FinishingCeremony, _ resolved: ResolvedLogin) async throws -> VerifiedAuthentication {
        let (credential, user, encodedID) = (resolved.credential, resolved.user, resolved.encodedID)
        do {
            let record = CredentialRecord(
                credentialID: credential.credentialID,
                publicKey: try publicKeys.key(credentialID: credential.credentialID, coseKey: credential.publicKey, policy: verifier.policy.keyPolicy),
                signCount: credential.signCount,
                isBackupEligible: credential.isBackupEligible,
                userHandle: user.userHandle
            )
            let expectations = AuthenticationCeremony(
                challenge: ceremony.challenge, userVerification: ceremony.userVerification, allowedCredentialIDs: ceremony.allowedCredentialIDs
            )
            return try verifier.tracedAuthentication(resolved.response, for: expectations, credential: record, algorithm: credential.algorithm)
        } catch where error.code == .signCountRegressed {
            // The verifier's policy refused a counter that did not increase: the passkey may
            // be cloned. Recorded on the passkey and in the audit log, with the refusal.
            let event = AuditEvent(
                time: clock.now(), kind: .signCountRegressed, userID: credential.userID, clientID: ceremony.clientID, credentialID: encodedID,
                detail: "\(error.reason); policy reject", origin: ceremony.origin
            )
            let refusedUse = CredentialUse(
                signCount: credential.signCount, isBackedUp: credential.isBackedUp, isUserVerified: credential.isUserVerified, usedAt: nil, signCountRegressed: true
            )
            try await refuse(ceremony, events: [event], use: .init(credentialID: credential.credentialID, use: refusedUse))
            throw IdentityError(
                .invalidGrant, "\(error.reason): the passkey may be cloned", reason: .verification(.signCountRegressed), credentialID: encodedID
            )
        } catch {
            let event = AuditEvent(
                time: clock.now(), kind: .loginFailed, userID: user.id, clientID: ceremony.clientID, credentialID: encodedID, detail: error.description, origin: ceremony.origin
            )
            try await refuse(ceremony, event: event)
            throw IdentityError(.invalidGrant, error.reason, reason: .verification(error.code), credentialID: encodedID)
        }
    }

    /// Records a verified login in one completion (the use, its events, the session) and
    /// remembers the passkey as used.
    private func recordLogin<Started>(
        _ ceremony: FinishingCeremony, _ resolved: ResolvedLogin, _ verified: VerifiedAuthentication, flowID: String?,
        startSession: (SignedIn) throws -> (SessionRecord?, Started)
    ) async throws -> (SignedIn, Started) {
        let (credential, user, encodedID, credentialID) = (resolved.credential, resolved.user, resolved.encodedID, resolved.credential.credentialID)
        // A counter the verifier's policy let through (accept and flag) is recorded as a
        // refused one is, and the login goes on.
        let now = clock.now()
        var events: [AuditEvent] = []
        var regressed = false
        if case .regressed(let stored, let received) = verified.signCountStatus {
            regressed = true
            events.append(AuditEvent(
                time: now, kind: .signCountRegressed, userID: credential.userID, clientID: ceremony.clientID, credentialID: encodedID,
                detail: "counter \(received) after \(stored); policy accept and flag", origin: ceremony.origin
            ))
        }
        let isCrossDevice = SignedIn.isCrossDevice(attachment: resolved.response.authenticatorAttachment, transports: credential.transports)
        // What the rollups count (provider, synced, cross-device), said where the trail keeps it.
        let passkeyUse = PasskeyUse(aaguid: credential.aaguid, isSynced: credential.isBackupEligible, isCrossDevice: isCrossDevice)
        events.append(AuditEvent(
            time: now, kind: .login, userID: user.id, clientID: ceremony.clientID, credentialID: encodedID, detail: passkeyUse.description, origin: ceremony.origin
        ))
        let use = CredentialUse(
            signCount: verified.signCount, isBackedUp: verified.flags.isBackedUp, isUserVerified: verified.flags.isUserVerified,
            usedAt: now, signCountRegressed: regressed
        )
        var signedIn = SignedIn(user: user, userVerified: verified.flags.isUserVerified, credentialID: credentialID, isNewAccount: false)
        signedIn.isCrossDevice = isCrossDevice
        signedIn.level = AuthenticationLevel(method: .passkey, userVerified: signedIn.userVerified, credential: credential)
        let (session, started) = try startSession(signedIn)
        let verifiedAgainst = CeremonyCompletion.VerifiedState(signCount: credential.signCount, ownerUpdatedAt: user.updatedAt)
        try await complete(CeremonyCompletion(
            key: ceremony.key, credentialUse: .init(credentialID: credentialID, use: use, verifiedAgainst: verifiedAgainst), events: events, session: session,
            finishedFlow: flowID.map { (id: $0, at: now) }, failureCheck: ceremony.failureCheck
        ))
        var used = credential
        used.signCount = use.signCount
        used.isBackedUp = use.isBackedUp
        used.isUserVerified = used.isUserVerified || use.isUserVerified
        used.lastUsedAt = now
        used.hasSignCountRegressed = used.hasSignCountRegressed || regressed
        signInRecords.store((used, user))
        return (signedIn, started)
    }

    /// Finds which of a user's passkeys made an assertion that does not name its credential:
    /// the user comes from the user handle, and the passkey is the one whose key verifies
    /// the signature. Costs one signature check per passkey of that user; runs only inside
    /// a ceremony that has been opened, so it cannot be driven without a valid one.
    private func credentialID(madeBy response: AuthenticationResponseJSON) async throws -> [UInt8]? {
        let parts = response.response
        guard let userHandle = parts.userHandle?.bytes, !userHandle.isEmpty, userHandle.count <= 64,
            let user = try await storage.user(handle: userHandle)
        else { return nil }
        let clientDataHash = Array(SHA256.hash(data: parts.clientDataJSON.bytes))
        for credential in try await storage.credentials(userID: user.id) {
            guard let key = try? publicKeys.key(credentialID: credential.credentialID, coseKey: credential.publicKey, policy: verifier.policy.keyPolicy) else { continue }
            if key.isValidSignature(parts.signature.bytes, over: [parts.authenticatorData.bytes[...], clientDataHash[...]]) { return credential.credentialID }
        }
        return nil
    }

    // MARK: - Helpers

    /// A ceremony being finished for one request, with what the request brings to what
    /// finishing it writes: its origin, on every audit event, and its failed-finish check,
    /// made by the first completion. The ceremony's own members read through.
    @dynamicMemberLookup
    struct FinishingCeremony {
        let ceremony: Ceremony
        let origin: RequestOrigin?
        let failureCheck: FailureCheck?

        init(_ ceremony: Ceremony, origin: RequestOrigin?, failureCheck: FailureCheck?) {
            self.ceremony = ceremony
            self.origin = origin
            self.failureCheck = failureCheck
        }

        subscript<Value>(dynamicMember path: KeyPath<Ceremony, Value>) -> Value { ceremony[keyPath: path] }
    }

    /// The ceremony a handle seals, if it is this client's and has not expired.
    /// Whether it was already used is decided when it completes.
    func open(_ authSession: String, clientID: String) throws -> Ceremony {
        guard !authSession.isEmpty, authSession.utf8.count <= CeremonySeal.maximumTokenBytes * 4 / 3 + 4,
            let token = Base64URL.decode(authSession), let ceremony = secrets.ceremonies.open(token),
            ceremony.clientID == clientID, clock.now() < ceremony.expiresAt
        else { throw Self.invalidAuthSession }
        return ceremony
    }

    private static var invalidAuthSession: IdentityError {
        IdentityError(.invalidGrant, about: .ceremony, "is unknown, expired, already used, or belongs to another client", reason: .invalidAuthSession, isField: false)
    }

    /// Completes a ceremony; one that was completed before is an invalid handle.
    private func complete(_ completion: CeremonyCompletion) async throws {
        guard try await storage.completeCeremony(completion) else { throw Self.invalidAuthSession }
        openCeremonies?.finished(expiresAt: completion.key.expiresAt, now: clock.now())
    }

    /// Completes a refused ceremony with what the refusal records, so that it cannot be
    /// tried again. A ceremony already completed records nothing more: the refusal is then
    /// a replay, answered like any other.
    private func refuse(_ ceremony: FinishingCeremony, event: AuditEvent? = nil, events: [AuditEvent] = [], use: CeremonyCompletion.CredentialUseUpdate? = nil) async throws {
        let completion = CeremonyCompletion(
            key: ceremony.key, credentialUse: use, events: events + (event.map { [$0] } ?? []), failureCheck: ceremony.failureCheck
        )
        guard try await storage.completeCeremony(completion) else {
            throw Self.invalidAuthSession
        }
        openCeremonies?.finished(expiresAt: ceremony.key.expiresAt, now: clock.now())
    }

    /// Verifies a registration; a refused one completes its ceremony.
    private func verifyRegistration(_ response: RegistrationResponseJSON, _ ceremony: FinishingCeremony) async throws -> VerifiedRegistration {
        let expectations = RegistrationCeremony(
            challenge: ceremony.challenge, userVerification: ceremony.userVerification, allowedAlgorithms: configuration.policy(for: ceremony.clientID).algorithms,
            isConditionalCreate: ceremony.kind == .conditionalEnrollment
        )
        // The metadata in use now: a BLOB installed since start-up applies at once.
        var verifier = self.verifier
        if let metadata, let blob = metadata.blob {
            var policy = verifier.policy
            policy.attestation.metadata = blob
            policy.attestation.refusedStatuses = metadata.refusedStatuses
            verifier = WebAuthnVerifier(policy: policy)
        }
        let verified: VerifiedRegistration
        do {
            verified = try verifier.tracedRegistration(response, for: expectations, at: clock.now())
        } catch {
            try await refuse(ceremony)
            throw IdentityError(.invalidGrant, error.reason, reason: .verification(error.code), credentialID: Base64URL.encode(response.rawId.bytes))
        }
        if let refusal = configuration.policy(for: ceremony.clientID).refusal(
            isBackupEligible: verified.flags.isBackupEligible, isAttestationTrusted: verified.attestation.trust.isTrusted, aaguid: verified.aaguid,
            algorithm: verified.publicKey.algorithm
        ) {
            try await refuse(ceremony)
            throw IdentityError(.invalidGrant, refusal, reason: .verification(.passkeyNotAllowed), credentialID: Base64URL.encode(response.rawId.bytes))
        }
        return verified
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
            attestationMetadata: verified.metadata,
            relyingPartyID: verified.relyingPartyID,
            createdAt: clock.now(),
            recordID: UUIDText.random(random.bytes(16)),
            origin: verified.origin
        )
    }
}
