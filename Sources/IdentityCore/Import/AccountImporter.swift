import Foundation
public import WebAuthn

/// Brings accounts from other identity servers: checks each record a source file held,
/// turns it into an account with its passkeys and password hash, and writes it whole or
/// not at all. A record that fails leaves nothing behind and the others still import; a
/// record imported before changes nothing, so a file can be imported again.
public struct AccountImporter: Sendable {
    /// What it reads and writes.
    public typealias Storage = AccountImportStore & UserStore & CredentialStore & PasswordStore

    private let storage: any Storage
    private let relyingPartyID: String
    private let keyPolicy: KeyPolicy
    private let clock: any WallClock
    private let random: any RandomSource
    /// How many accounts are written at once.
    public let concurrentWrites: Int

    /// Imports for the relying party `relyingPartyID`: a passkey registered for another one
    /// is kept but cannot sign in here, and the report says so.
    /// - Parameter concurrentWrites: How many accounts are written at once, each in its own
    ///   transaction.
    public init(
        storage: any Storage, relyingPartyID: String, keyPolicy: KeyPolicy = KeyPolicy(), clock: any WallClock, random: any RandomSource, concurrentWrites: Int = 16
    ) {
        self.concurrentWrites = max(1, concurrentWrites)
        self.storage = storage
        self.relyingPartyID = relyingPartyID
        self.keyPolicy = keyPolicy
        self.clock = clock
        self.random = random
    }

    /// Imports `records` from `system`, telling `progress` after each one in file order.
    /// Records are checked one after another, so that of two records claiming one identifier
    /// the earlier wins; their writes then run side by side, up to ``concurrentWrites`` at
    /// once (each account is still its own transaction), which lets PostgreSQL commit many
    /// in one flush instead of waiting for each.
    /// - Parameter dryRun: Checks every record and says what would happen, writing nothing.
    /// - Parameter actor: Who the audit events name (``AuditEvent/commandLineActor``, or an
    ///   admin API key's).
    public func run(
        _ records: [Result<ImportRecord, UnreadableRecord>], from system: String, dryRun: Bool, actor: String = AuditEvent.commandLineActor,
        progress: (_ done: Int, _ report: ImportReport) -> Void = { _, _ in }
    ) async -> ImportReport {
        var run = Run()
        var start = 0
        while start < records.count {
            let end = min(start + window, records.count)
            await importWindow(records[start..<end], into: &run, from: system, dryRun: dryRun, actor: actor, progress: progress)
            start = end
        }
        return run.report
    }

    /// An import under way: its report so far, and the identifiers and passkeys earlier
    /// records of the file claimed (in a dry run nothing is written, so the store cannot tell
    /// a later duplicate).
    struct Run {
        var report = ImportReport()
        var claimed = Set<String>()
        /// How many records were read.
        var count = 0
    }

    /// How many records are checked, then written, at a time: windows keep memory flat and
    /// the progress line moving on a large file.
    var window: Int { max(64, concurrentWrites * 8) }

    /// Imports the next records of a file: checks them in order, then writes them.
    func importWindow(
        _ records: ArraySlice<Result<ImportRecord, UnreadableRecord>>, into run: inout Run, from system: String, dryRun: Bool, actor: String,
        progress: (_ done: Int, _ report: ImportReport) -> Void
    ) async {
        var checked: [Checked] = []
        for record in records {
            run.count += 1
            checked.append(check(record, position: run.count, from: system, actor: actor, claimed: &run.claimed))
        }
        for entry in await finish(checked, from: system, dryRun: dryRun) {
            run.report.append(entry)
            progress(entry.position, run.report)
        }
    }

    /// A record after its checks, before anything is read or written.
    private enum Checked: Sendable {
        /// A record that could not be read: failed.
        case unreadable(ImportReport.Entry)
        /// A record refused by the checks: failed, unless its source ID was imported before.
        case refused(ImportReport.Entry)
        /// An account to write.
        case ready(ImportedAccount, position: Int, notes: [String])
    }

    private func check(_ read: Result<ImportRecord, UnreadableRecord>, position: Int, from system: String, actor: String, claimed: inout Set<String>) -> Checked {
        let record: ImportRecord
        switch read {
        case .failure(let unreadable):
            return .unreadable(.init(position: position, sourceID: unreadable.sourceID, userID: nil, outcome: .failed, notes: [unreadable.reason]))
        case .success(let readable):
            record = readable
        }
        var notes = record.notes
        let account: ImportedAccount
        do {
            account = try self.account(record, source: system, actor: actor, notes: &notes)
        } catch {
            return .refused(.init(position: position, sourceID: record.sourceID, userID: nil, outcome: .failed, notes: [error.message] + notes))
        }
        let keys = account.user.profile.identifiers.map { "identifier \($0.value)" } + account.credentials.map { "passkey \(Base64URL.encode($0.credentialID))" }
        if let taken = keys.first(where: claimed.contains) {
            return .refused(.init(position: position, sourceID: record.sourceID, userID: nil, outcome: .failed, notes: ["\(taken) appears in an earlier record of this file"] + notes))
        }
        claimed.formUnion(keys)
        return .ready(account, position: position, notes: notes)
    }

    /// The report entries of `checked`, in its order, writing up to ``concurrentWrites`` at once.
    private func finish(_ checked: [Checked], from system: String, dryRun: Bool) async -> [ImportReport.Entry] {
        await withTaskGroup(of: (Int, ImportReport.Entry).self) { group in
            var entries = [ImportReport.Entry?](repeating: nil, count: checked.count)
            var next = 0
            func startNext() {
                guard next < checked.count else { return }
                let (index, item) = (next, checked[next])
                group.addTask { (index, await self.finish(item, from: system, dryRun: dryRun)) }
                next += 1
            }
            for _ in 0..<concurrentWrites { startNext() }
            for await (index, entry) in group {
                entries[index] = entry
                startNext()
            }
            return entries.compactMap { $0 }
        }
    }

    private func finish(_ checked: Checked, from system: String, dryRun: Bool) async -> ImportReport.Entry {
        func skipped(_ before: UserID, _ position: Int, _ sourceID: String) -> ImportReport.Entry {
            .init(position: position, sourceID: sourceID, userID: before, outcome: .skipped, notes: ["imported before as \(before)"])
        }
        // Read first so that a record imported before is skipped even when it would no longer
        // pass the checks; the store's write makes the same test atomically.
        switch checked {
        case .unreadable(let entry):
            return entry
        case .refused(let entry):
            guard let sourceID = entry.sourceID, let before = try? await storage.importedAccount(source: system, sourceID: sourceID) else { return entry }
            return skipped(before, entry.position, sourceID)
        case .ready(let account, let position, let notes):
            func failed(_ reason: String) -> ImportReport.Entry {
                .init(position: position, sourceID: account.sourceID, userID: nil, outcome: .failed, notes: [reason] + notes)
            }
            let created = ImportReport.Entry(position: position, sourceID: account.sourceID, userID: account.user.id, outcome: .created, notes: notes)
            do {
                if let before = try await storage.importedAccount(source: system, sourceID: account.sourceID) { return skipped(before, position, account.sourceID) }
                if let existing = try await mergeTarget(account) { return try await merge(account, into: existing, position: position, notes: notes, dryRun: dryRun) }
                if dryRun { return try await existingConflict(account).map(failed) ?? created }
                switch try await storage.importAccount(account) {
                case .importedBefore(let before): return skipped(before, position, account.sourceID)
                case .created: return created
                }
            } catch let conflict as StoreConflict {
                // Which identifier or passkey, when a read can still tell.
                let which = try? await existingConflict(account)
                return failed((which ?? nil) ?? Self.describe(conflict))
            } catch {
                return failed("not written: \(error)")
            }
        }
    }

    /// The account here that a record joins instead of becoming one: the account with the
    /// record's email address, when this server and the source both verified it. Whoever
    /// controls that address can already recover the account, so joining gives nobody more.
    private func mergeTarget(_ account: ImportedAccount) async throws -> User? {
        guard let email = account.user.profile.email, account.user.emailVerifiedAt != nil,
            let existing = try await storage.user(identifier: .email(email)), existing.id != account.user.id, existing.isEmailVerified
        else { return nil }
        return existing
    }

    /// Joins `account`'s record to `existing`: the source ID, the password where the account
    /// has none, the external ID and metadata where it has none.
    private func merge(_ account: ImportedAccount, into existing: User, position: Int, notes: [String], dryRun: Bool) async throws -> ImportReport.Entry {
        var notes = ["joined to the account here with the same verified address"] + notes
        if !account.credentials.isEmpty {
            // An account has one user handle, which every discoverable sign-in names.
            notes.append(
                "its \(account.credentials.count) passkey(s) were registered under the old server's user handle and cannot sign in to an account that has its own: not kept; the person adds one here"
            )
        }
        if account.user.isDisabled { notes.append("it was turned off at its source; the account here stays as it is") }
        let keepsItsOwn = "the account keeps its own password; the imported one is not kept"
        if dryRun {
            if account.passwordHash != nil, try await storage.password(userID: existing.id) != nil { notes.append(keepsItsOwn) }
            return .init(position: position, sourceID: account.sourceID, userID: existing.id, outcome: .merged, notes: notes)
        }
        let merge = ImportedMerge(
            source: account.source, sourceID: account.sourceID, userID: existing.id, email: existing.profile.email ?? "", passwordHash: account.passwordHash,
            externalID: account.user.externalID, metadata: account.user.metadata, importedAt: account.importedAt,
            event: AuditEvent(
                time: account.importedAt, kind: .userUpdated, userID: existing.id, detail: "merged with \(account.source) record \(account.sourceID)",
                actor: account.event?.actor ?? AuditEvent.commandLineActor, origin: nil
            )
        )
        switch try await storage.mergeImportedAccount(merge) {
        case .merged(let passwordAdded):
            if account.passwordHash != nil && !passwordAdded { notes.append(keepsItsOwn) }
            return .init(position: position, sourceID: account.sourceID, userID: existing.id, outcome: .merged, notes: notes)
        case .importedBefore(let before):
            return .init(position: position, sourceID: account.sourceID, userID: before, outcome: .skipped, notes: ["imported before as \(before)"])
        case .accountChanged:
            return .init(position: position, sourceID: account.sourceID, userID: nil, outcome: .failed, notes: ["the account with its address changed while it was imported: run the import again"])
        }
    }

    /// The account `record` becomes, with its notes; an `IdentityError` for a record that
    /// cannot become one.
    private func account(_ record: ImportRecord, source: String, actor: String, notes: inout [String]) throws(IdentityError) -> ImportedAccount {
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
