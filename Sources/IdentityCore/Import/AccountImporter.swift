import Foundation
public import WebAuthn

/// Brings accounts from other identity servers: checks each record a source file held,
/// turns it into an account with its passkeys and password hash, and writes it whole or
/// not at all. A record that fails leaves nothing behind and the others still import; a
/// record imported before changes nothing, so a file can be imported again.
public struct AccountImporter: Sendable {
    /// What it reads and writes.
    public typealias Storage = AccountImportStore & UserStore & CredentialStore

    private let storage: any Storage
    private let relyingPartyID: String
    private let keyPolicy: KeyPolicy
    private let clock: any WallClock
    private let random: any RandomSource

    /// Imports for the relying party `relyingPartyID`: a passkey registered for another one
    /// is kept but cannot sign in here, and the report says so.
    public init(storage: any Storage, relyingPartyID: String, keyPolicy: KeyPolicy = KeyPolicy(), clock: any WallClock, random: any RandomSource) {
        self.storage = storage
        self.relyingPartyID = relyingPartyID
        self.keyPolicy = keyPolicy
        self.clock = clock
        self.random = random
    }

    /// Imports `records` from `system` in order, telling `progress` after each one.
    /// - Parameter dryRun: Checks every record and says what would happen, writing nothing.
    /// - Parameter actor: Who the audit events name (``AuditEvent/commandLineActor``, or an
    ///   admin API key's).
    public func run(
        _ records: [Result<ImportRecord, UnreadableRecord>], from system: String, dryRun: Bool, actor: String = AuditEvent.commandLineActor,
        progress: (_ done: Int, _ report: ImportReport) -> Void = { _, _ in }
    ) async -> ImportReport {
        var report = ImportReport()
        // Identifiers and passkeys claimed by earlier records of this file: in a dry run
        // nothing is written, so the store cannot tell a later duplicate.
        var claimed = Set<String>()
        for (index, record) in records.enumerated() {
            let position = index + 1
            switch record {
            case .failure(let unreadable):
                report.append(.init(position: position, sourceID: unreadable.sourceID, userID: nil, outcome: .failed, notes: [unreadable.reason]))
            case .success(let record):
                report.append(await importRecord(record, position: position, from: system, dryRun: dryRun, actor: actor, claimed: &claimed))
            }
            progress(position, report)
        }
        return report
    }

    private func importRecord(
        _ record: ImportRecord, position: Int, from system: String, dryRun: Bool, actor: String, claimed: inout Set<String>
    ) async -> ImportReport.Entry {
        func failed(_ reason: String, notes: [String] = []) -> ImportReport.Entry {
            .init(position: position, sourceID: record.sourceID, userID: nil, outcome: .failed, notes: [reason] + notes)
        }
        do {
            // Read first so that a record imported before is skipped even when it would no
            // longer pass the checks; the store's write makes the same test atomically.
            if let before = try await storage.importedAccount(source: system, sourceID: record.sourceID) {
                return .init(position: position, sourceID: record.sourceID, userID: before, outcome: .skipped, notes: ["imported before as \(before)"])
            }
            var notes = record.notes
            let account: ImportedAccount
            do {
                account = try self.account(record, source: system, actor: actor, notes: &notes)
            } catch let error as IdentityError {
                return failed(error.message, notes: notes)
            }
            let keys = account.user.profile.identifiers.map { "identifier \($0.value)" } + account.credentials.map { "passkey \(Base64URL.encode($0.credentialID))" }
            if let taken = keys.first(where: claimed.contains) {
                return failed("\(taken) appears in an earlier record of this file", notes: notes)
            }
            claimed.formUnion(keys)
            if dryRun {
                if let conflict = try await existingConflict(account) { return failed(conflict, notes: notes) }
                return .init(position: position, sourceID: record.sourceID, userID: account.user.id, outcome: .created, notes: notes)
            }
            switch try await storage.importAccount(account) {
            case .importedBefore(let before):
                return .init(position: position, sourceID: record.sourceID, userID: before, outcome: .skipped, notes: ["imported before as \(before)"])
            case .created:
                return .init(position: position, sourceID: record.sourceID, userID: account.user.id, outcome: .created, notes: notes)
            }
        } catch let conflict as StoreConflict {
            return failed(Self.describe(conflict))
        } catch {
            return failed("not written: \(error)")
        }
    }

    /// The account `record` becomes, with its notes; an `IdentityError` for a record that
    /// cannot become one.
    private func account(_ record: ImportRecord, source: String, actor: String, notes: inout [String]) throws -> ImportedAccount {
        guard !record.sourceID.isEmpty, record.sourceID.count <= 255 else { throw IdentityError(.invalidRequest, "the record has no usable source ID") }
        let profile = try ProfileValidation.validate(record.profile, allowed: Set(ProfileValidation.IdentifierKind.allCases))
        guard !profile.identifiers.isEmpty || !record.passkeys.isEmpty else {
            throw IdentityError(.invalidRequest, "the account has no email, phone number, username or passkey to sign in with")
        }
        if let hash = record.passwordHash, !ImportedPasswordHash.canVerify(hash) {
            throw IdentityError(
                .invalidRequest,
                "its Argon2 password hash needs \(ImportedPasswordHash.argon2Requirement), which this machine lacks: install it and import the file again"
            )
        }
        if let externalID = record.externalID, externalID.count > 255 { throw IdentityError(.invalidRequest, "its external ID is longer than 255 characters") }
        if let metadata = record.metadata, metadata.utf8.count > Self.maximumMetadataBytes {
            throw IdentityError(.invalidRequest, "its metadata is larger than \(Self.maximumMetadataBytes / 1024) KiB")
        }
        let now = clock.now()
        let userID = record.userID ?? UserID.new(randomBytes: random.bytes(16))
        let handle = record.userHandle ?? random.bytes(32)
        guard (1...64).contains(handle.count) else { throw IdentityError(.invalidRequest, "the user handle is \(handle.count) bytes; WebAuthn allows 1 to 64") }
        let user = User(
            id: userID, userHandle: handle, profile: profile, createdAt: record.createdAt ?? now, updatedAt: now,
            emailVerifiedAt: record.isEmailVerified && profile.email != nil ? now : nil, disabledAt: record.isDisabled ? now : nil,
            externalID: record.externalID, metadata: record.metadata
        )
        var credentials: [PasskeyCredential] = []
        var names = Set<String>()
        for (index, passkey) in record.passkeys.enumerated() {
            let label = "passkey \(index + 1) (\(Base64URL.encode(passkey.credentialID)))"
            // The bounds a registration here enforces (WebAuthn L3 §6.1, §7.1 step 26).
            let lengths = WebAuthnVerifier.minimumRegisteredCredentialIDLength...WebAuthnVerifier.maximumCredentialIDLength
            guard lengths.contains(passkey.credentialID.count) else {
                throw IdentityError(
                    .invalidRequest, "\(label): a credential ID is \(lengths.lowerBound) to \(lengths.upperBound) bytes, this one \(passkey.credentialID.count)"
                )
            }
            let key: CredentialPublicKey
            do {
                key = try CredentialPublicKey(coseKey: passkey.publicKey, policy: keyPolicy)
            } catch {
                throw IdentityError(.invalidRequest, "\(label): its public key is not a COSE key this server verifies: \(error)")
            }
            let relyingParty = passkey.relyingPartyID ?? relyingPartyID
            if relyingParty != relyingPartyID {
                notes.append("\(label) is for RP ID \(relyingParty): kept, but it will not sign in here (RP ID \(relyingPartyID))")
            }
            // Names are unique per account here; a source that allowed two alike gets a number.
            var name = passkey.name.flatMap { try? ProfileValidation.text($0, "name", maximum: 90) }
            if let base = name, names.contains(base) { name = "\(base) (\(index + 1))" }
            if let name { names.insert(name) }
            credentials.append(PasskeyCredential(
                credentialID: passkey.credentialID, userID: userID, publicKey: key.coseKey, algorithm: key.algorithm, signCount: passkey.signCount,
                isBackupEligible: passkey.isBackupEligible, isBackedUp: passkey.isBackedUp, isUserVerified: false, transports: passkey.transports,
                aaguid: passkey.aaguid, attestationFormat: "none", isAttestationTrusted: false, relyingPartyID: relyingParty,
                name: name, createdAt: passkey.createdAt ?? now
            ))
        }
        if Set(credentials.map(\.credentialID)).count != credentials.count { throw IdentityError(.invalidRequest, "the record lists one passkey twice") }
        let event = AuditEvent(
            time: now, kind: .userCreated, userID: userID, detail: "imported from \(source) (\(record.sourceID))", actor: actor, origin: nil
        )
        return ImportedAccount(
            source: source, sourceID: record.sourceID, user: user, credentials: credentials, passwordHash: record.passwordHash, importedAt: now, event: event
        )
    }

    /// What a dry run can tell without writing: an account that already holds the ID, an
    /// identifier, the user handle or a passkey.
    private func existingConflict(_ account: ImportedAccount) async throws -> String? {
        if try await storage.user(id: account.user.id) != nil { return "user ID \(account.user.id) is another account's" }
        for identifier in account.user.profile.identifiers where try await storage.user(identifier: identifier) != nil {
            return "\(identifier.value) is another account's"
        }
        if try await storage.user(handle: account.user.userHandle) != nil { return "the user handle is another account's" }
        for credential in account.credentials where try await storage.credential(id: credential.credentialID) != nil {
            return "passkey \(Base64URL.encode(credential.credentialID)) is registered to another account"
        }
        return nil
    }

    /// The most metadata an account brings: every response that shows the account
    /// carries it.
    static let maximumMetadataBytes = 64 * 1024

    private static func describe(_ conflict: StoreConflict) -> String {
        switch conflict.kind {
        case .credentialID: "a passkey of this record is registered to another account"
        case .credentialName: "two of its passkeys have one name"
        case .identifier: "its ID, an identifier or its user handle is another account's"
        }
    }
}
