public import IdentityCore
import Testing

/// The behaviour every `IdentityStorage` backend must have, as a suite that runs against any
/// of them. Most of it is security, not convenience: single use of ceremonies, refresh token
/// reuse detection, all-or-nothing sign-up, never deleting a user's last passkey.
///
/// Each check expects a new, empty store. Run one check per test, so a failure names the
/// rule it broke:
///
/// ```swift
/// @Test(arguments: StorageContract.Check.allCases)
/// func contract(_ check: StorageContract.Check) async throws {
///     try await StorageContract.run(check, on: InMemoryStorage())
/// }
/// ```
///
/// Failures are recorded with Swift Testing's `#expect` and `#require`, so the suite must
/// run inside a test.
public enum StorageContract {
    /// One rule of the contract.
    public enum Check: String, CaseIterable, Sendable {
        // Users
        case userRoundTrip
        case usersWithoutSomeIdentifiers
        case createUserIdentifierConflicts
        case createUserCredentialConflict
        case createUserRejectsAnotherUsersCredential
        // Credentials
        case credentialsOldestFirst
        case addCredentialConflicts
        case renameCredential
        case deleteCredential
        case credentialRecordIDAndDisabling
        case userByHandle
        // Passwords
        case passwordAccountRoundTrip
        case passwordRemovalNeedsAPasskey
        case passwordKeepsTheLastPasskeyDeletable
        case passwordHashUpgrade
        // Imports
        case importWritesTheWholeAccountOnce
        case importConflictsWriteNothing
        case importMergesOnlyIntoAVerifiedAddress
        // Ceremonies
        case ceremonyCompletesOnce
        case ceremonyCompletionWritesEverything
        case ceremonyCompletionIsAllOrNothing
        case ceremonyCompletionRecordsUse
        case ceremonyCompletionRecordsRefusedUse
        case ceremonyCompletionChecksWhatWasVerified
        case loginShapesAllComplete
        case purgeCeremonies
        // Refresh tokens
        case refreshTokenRotation
        case refreshTokenReuseRevokesFamily
        case refreshTokenInvalid
        case refreshTokenFamilyRevocation
        case refreshTokenFamilyOwnership
        case sessionWithoutRefreshToken
        case passkeyRemovalRevokesItsSessions
        case passwordRemovalRevokesItsSessions
        case sessionBelongsToItsUser
        case signOutEverywhere
        case consentLifecycle
        // Mail and recovery
        case mailOutboxLifecycle
        case oneTimeCodeLifecycle
        case recoveryCodeLifecycle
        case accountCounters
        case emailVerification
        case retentionPurges
        case requestCounters
        // Browser sessions, authorization codes, profile
        case browserSessionLifecycle
        case authorizationCodeSingleUse
        case updateName
        case adminTokenLifecycle
        // Operating it
        case adminKeyLifecycle
        case operatorRoles
        case statsRollups
        case userDirectory
        case disablingAndDeletingUsers
        case sessionListing
        case auditQueries
        case auditEventOrigins
        case webhookOutbox
        case backchannelLogoutOutbox
        case signalStreamOutbox
        // Self-service flows
        case flowLifecycle
        case concurrentFlowCompletion
        case aFinishCompletesItsFlow
        // Signing keys, audit, secrets
        case signingKeyRotation
        case auditEvents
        case secrets
        // FIDO metadata
        case metadataBLOBNeverGoesBack
        case credentialsByAAGUID
        // Data
        case hostileAndLongText
        case textWithNULIsNeverTruncated
        // Concurrency
        case concurrentCeremonyCompletion
        case concurrentLoginsKeepTheirOutcomes
        case concurrentRotationsKeepTheirOutcomes
        case concurrentSignupsWithOneEmail
        case concurrentRefreshTokenRotation
        case concurrentCredentialDeletion
        case concurrentSecretCreation
    }

    /// Runs one check against `storage`, which must be empty.
    public static func run(_ check: Check, on storage: any IdentityStorage) async throws {
        switch check {
        case .userRoundTrip: try await userRoundTrip(storage)
        case .usersWithoutSomeIdentifiers: try await usersWithoutSomeIdentifiers(storage)
        case .createUserIdentifierConflicts: try await createUserIdentifierConflicts(storage)
        case .createUserCredentialConflict: try await createUserCredentialConflict(storage)
        case .createUserRejectsAnotherUsersCredential: try await createUserRejectsAnotherUsersCredential(storage)
        case .credentialsOldestFirst: try await credentialsOldestFirst(storage)
        case .addCredentialConflicts: try await addCredentialConflicts(storage)
        case .renameCredential: try await renameCredential(storage)
        case .deleteCredential: try await deleteCredential(storage)
        case .credentialRecordIDAndDisabling: try await credentialRecordIDAndDisabling(storage)
        case .userByHandle: try await userByHandle(storage)
        case .passwordAccountRoundTrip: try await passwordAccountRoundTrip(storage)
        case .passwordRemovalNeedsAPasskey: try await passwordRemovalNeedsAPasskey(storage)
        case .passwordKeepsTheLastPasskeyDeletable: try await passwordKeepsTheLastPasskeyDeletable(storage)
        case .passwordHashUpgrade: try await passwordHashUpgrade(storage)
        case .importWritesTheWholeAccountOnce: try await importWritesTheWholeAccountOnce(storage)
        case .importConflictsWriteNothing: try await importConflictsWriteNothing(storage)
        case .importMergesOnlyIntoAVerifiedAddress: try await importMergesOnlyIntoAVerifiedAddress(storage)
        case .adminTokenLifecycle: try await adminTokenLifecycle(storage)
        case .adminKeyLifecycle: try await adminKeyLifecycle(storage)
        case .operatorRoles: try await operatorRoles(storage)
        case .statsRollups: try await statsRollups(storage)
        case .userDirectory: try await userDirectory(storage)
        case .disablingAndDeletingUsers: try await disablingAndDeletingUsers(storage)
        case .sessionListing: try await sessionListing(storage)
        case .auditQueries: try await auditQueries(storage)
        case .auditEventOrigins: try await auditEventOrigins(storage)
        case .webhookOutbox: try await webhookOutbox(storage)
        case .backchannelLogoutOutbox: try await backchannelLogoutOutbox(storage)
        case .signalStreamOutbox: try await signalStreamOutbox(storage)
        case .ceremonyCompletesOnce: try await ceremonyCompletesOnce(storage)
        case .ceremonyCompletionWritesEverything: try await ceremonyCompletionWritesEverything(storage)
        case .ceremonyCompletionIsAllOrNothing: try await ceremonyCompletionIsAllOrNothing(storage)
        case .ceremonyCompletionRecordsUse: try await ceremonyCompletionRecordsUse(storage)
        case .ceremonyCompletionRecordsRefusedUse: try await ceremonyCompletionRecordsRefusedUse(storage)
        case .ceremonyCompletionChecksWhatWasVerified: try await ceremonyCompletionChecksWhatWasVerified(storage)
        case .loginShapesAllComplete: try await loginShapesAllComplete(storage)
        case .purgeCeremonies: try await purgeCeremonies(storage)
        case .refreshTokenRotation: try await refreshTokenRotation(storage)
        case .refreshTokenReuseRevokesFamily: try await refreshTokenReuseRevokesFamily(storage)
        case .refreshTokenInvalid: try await refreshTokenInvalid(storage)
        case .refreshTokenFamilyRevocation: try await refreshTokenFamilyRevocation(storage)
        case .refreshTokenFamilyOwnership: try await refreshTokenFamilyOwnership(storage)
        case .sessionWithoutRefreshToken: try await sessionWithoutRefreshToken(storage)
        case .passkeyRemovalRevokesItsSessions: try await passkeyRemovalRevokesItsSessions(storage)
        case .passwordRemovalRevokesItsSessions: try await passwordRemovalRevokesItsSessions(storage)
        case .sessionBelongsToItsUser: try await sessionBelongsToItsUser(storage)
        case .signOutEverywhere: try await signOutEverywhere(storage)
        case .consentLifecycle: try await consentLifecycle(storage)
        case .mailOutboxLifecycle: try await mailOutboxLifecycle(storage)
        case .oneTimeCodeLifecycle: try await oneTimeCodeLifecycle(storage)
        case .recoveryCodeLifecycle: try await recoveryCodeLifecycle(storage)
        case .accountCounters: try await accountCounters(storage)
        case .emailVerification: try await emailVerification(storage)
        case .retentionPurges: try await retentionPurges(storage)
        case .requestCounters: try await requestCounters(storage)
        case .browserSessionLifecycle: try await browserSessionLifecycle(storage)
        case .authorizationCodeSingleUse: try await authorizationCodeSingleUse(storage)
        case .updateName: try await updateName(storage)
        case .flowLifecycle: try await flowLifecycle(storage)
        case .concurrentFlowCompletion: try await concurrentFlowCompletion(storage)
        case .aFinishCompletesItsFlow: try await aFinishCompletesItsFlow(storage)
        case .signingKeyRotation: try await signingKeyRotation(storage)
        case .auditEvents: try await auditEvents(storage)
        case .secrets: try await secrets(storage)
        case .metadataBLOBNeverGoesBack: try await metadataBLOBNeverGoesBack(storage)
        case .credentialsByAAGUID: try await credentialsByAAGUID(storage)
        case .hostileAndLongText: try await hostileAndLongText(storage)
        case .textWithNULIsNeverTruncated: try await textWithNULIsNeverTruncated(storage)
        case .concurrentCeremonyCompletion: try await concurrentCeremonyCompletion(storage)
        case .concurrentLoginsKeepTheirOutcomes: try await concurrentLoginsKeepTheirOutcomes(storage)
        case .concurrentRotationsKeepTheirOutcomes: try await concurrentRotationsKeepTheirOutcomes(storage)
        case .concurrentSignupsWithOneEmail: try await concurrentSignupsWithOneEmail(storage)
        case .concurrentRefreshTokenRotation: try await concurrentRefreshTokenRotation(storage)
        case .concurrentCredentialDeletion: try await concurrentCredentialDeletion(storage)
        case .concurrentSecretCreation: try await concurrentSecretCreation(storage)
        }
    }

    /// Runs every check, each against a new store from `makeStorage`.
    public static func run(_ makeStorage: () async throws -> any IdentityStorage) async throws {
        for check in Check.allCases {
            try await run(check, on: makeStorage())
        }
    }

    // MARK: - Helpers

    /// Creates `label`'s account with one credential named after the label.
    @discardableResult
    static func signUp(_ label: String, on storage: any IdentityStorage) async throws -> (User, PasskeyCredential) {
        let user = StorageFixtures.user(label)
        let credential = StorageFixtures.credential("\(label)-1", userID: user.id)
        try await storage.createUser(user, credential: credential)
        return (user, credential)
    }

    /// Expects `body` to throw exactly `StoreConflict(kind)`.
    static func expectConflict(
        _ kind: StoreConflict.Kind,
        _ comment: Comment? = nil,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () async throws -> Void
    ) async {
        await #expect(throws: StoreConflict(kind), comment, sourceLocation: sourceLocation) {
            try await body()
        }
    }
}
