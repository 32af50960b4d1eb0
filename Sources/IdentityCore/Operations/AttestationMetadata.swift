import Foundation
import Synchronization
public import WebAuthn

/// The FIDO metadata BLOB registrations are verified with: the last good one, replaced when
/// a newer one validates. Shared by the passkey service (which reads it per registration)
/// and the updater (which replaces it).
public final class AttestationMetadata: Sendable {
    /// The roots a BLOB's signing chain must end at.
    public let roots: [AttestationCertificate]
    /// Statuses that refuse a registration, and flag existing passkeys of that model.
    public let refusedStatuses: Set<String>
    private let current = Mutex<MetadataBLOB?>(nil)

    /// Creates an empty holder.
    public init(roots: [AttestationCertificate], refusedStatuses: Set<String>) {
        self.roots = roots
        self.refusedStatuses = refusedStatuses
    }

    /// The BLOB in use, if one has been installed.
    public var blob: MetadataBLOB? { current.withLock { $0 } }

    /// Installs `blob` unless the one in use has a higher serial number; returns the one
    /// it replaced.
    @discardableResult
    func install(_ blob: MetadataBLOB) -> (installed: Bool, previous: MetadataBLOB?) {
        current.withLock { held in
            let previous = held
            if let previous, previous.number > blob.number { return (false, previous) }
            held = blob
            return (true, previous)
        }
    }
}

/// What a metadata update did.
public struct MetadataUpdate: Sendable {
    /// What happened to the BLOB offered.
    public enum Outcome: Sendable, Hashable {
        /// It validated and is now stored and in use; `previous` is the serial it replaced.
        case installed(previous: Int?)
        /// The same serial number is already stored and in use.
        case unchanged
    }

    /// What happened.
    public let outcome: Outcome
    /// The BLOB in use afterwards.
    public let blob: MetadataBLOB
    /// How many existing passkeys were flagged in the audit log.
    public let flaggedCredentials: Int
}

/// Validates, stores and installs metadata BLOBs, and flags the passkeys of models that a
/// new BLOB gives a refused status. Fetching the bytes is the caller's (a file, or HTTPS).
public struct MetadataUpdater: Sendable {
    let metadata: AttestationMetadata
    let storage: any MetadataStore & AuditLog
    let clock: any WallClock

    public init(metadata: AttestationMetadata, storage: any MetadataStore & AuditLog, clock: any WallClock) {
        self.metadata = metadata
        self.storage = storage
        self.clock = clock
    }

    /// Verifies `bytes` as a BLOB under the configured roots, now, and makes it the stored
    /// and installed one.
    /// - Throws: ``WebAuthnError`` (`metadata_invalid`) naming the failed check, or
    ///   ``IdentityError`` (`conflict`) when a BLOB with a higher serial number is stored.
    public func update(with bytes: [UInt8]) async throws -> MetadataUpdate {
        let now = clock.now()
        let blob = try MetadataBLOB.verify(bytes, roots: metadata.roots, at: now)
        switch try await storage.saveMetadataBLOB(StoredMetadataBLOB(number: blob.number, bytes: bytes, storedAt: now)) {
        case .older(let stored):
            throw IdentityError(.conflict, "metadata BLOB: its no \(blob.number) is lower than the stored BLOB's \(stored); a BLOB's serial number never goes back")
        case .unchanged:
            let (installed, previous) = metadata.install(blob)
            guard installed, previous?.number != blob.number else {
                return MetadataUpdate(outcome: .unchanged, blob: metadata.blob ?? blob, flaggedCredentials: 0)
            }
            return MetadataUpdate(outcome: .installed(previous: previous?.number), blob: blob, flaggedCredentials: 0)
        case .stored:
            let (_, previous) = metadata.install(blob)
            let flagged = try await flagCredentials(of: blob, previous: previous)
            return MetadataUpdate(outcome: .installed(previous: previous?.number), blob: blob, flaggedCredentials: flagged)
        }
    }

    /// Installs the stored BLOB, verified again, when it is newer than the one in use:
    /// at start-up, and on each refresh so that a BLOB another instance (or `latchkey mds
    /// update`) stored is picked up. A stored BLOB past its `nextUpdate` is still used, as
    /// the last good one, until a newer one arrives.
    /// - Returns: The BLOB installed now, or `nil` when nothing newer is stored.
    public func installStored() async throws -> MetadataBLOB? {
        // The number first: polled every few seconds, this reads a whole BLOB (megabytes)
        // only when there is a newer one.
        guard let number = try await storage.metadataBLOBNumber(), number > (metadata.blob?.number ?? 0) else { return nil }
        guard let stored = try await storage.metadataBLOB(), stored.number > (metadata.blob?.number ?? 0) else { return nil }
        let blob = try MetadataBLOB.verify(stored.bytes, roots: metadata.roots, at: clock.now(), requireCurrent: false)
        let (installed, _) = metadata.install(blob)
        return installed ? blob : nil
    }

    /// Records an audit event for each passkey whose model the new BLOB gives a refused
    /// status it did not have in the previous one.
    private func flagCredentials(of blob: MetadataBLOB, previous: MetadataBLOB?) async throws -> Int {
        var newlyRefused: [AAGUID: MetadataEntry] = [:]
        for entry in blob.entries {
            guard let aaguid = entry.aaguid, let latest = entry.latestStatus, metadata.refusedStatuses.contains(latest.status) else { continue }
            if previous?.entry(aaguid: aaguid)?.latestStatus == latest { continue }
            newlyRefused[aaguid] = entry
        }
        guard !newlyRefused.isEmpty else { return 0 }
        let now = clock.now()
        let credentials = try await storage.credentials(aaguids: Set(newlyRefused.keys))
        for credential in credentials {
            guard let entry = newlyRefused[credential.aaguid], let latest = entry.latestStatus else { continue }
            try await storage.record(AuditEvent(
                time: now, kind: .authenticatorStatusFlagged, userID: credential.userID, credentialID: Base64URL.encode(credential.credentialID),
                detail: "metadata BLOB \(blob.number): model \(entry.description ?? entry.identifier) (\(entry.identifier)) has status \(latest.status)\(latest.effectiveDate.map { " since \($0)" } ?? "")",
                origin: nil
            ))
        }
        return credentials.count
    }
}

extension AttestationMetadata {
    /// An authenticator model the BLOB in use gives a status the relying party refuses.
    public struct RefusedModel: Sendable, Hashable {
        /// Its AAGUID (lowercase, with dashes), or the entry's other identifier.
        public let identifier: String
        public let description: String?
        public let status: String
        public let effectiveDate: String?
    }

    /// The models the BLOB in use gives a refused status (the Admin API's and the console's list).
    public var refusedModels: [RefusedModel] {
        (blob?.entries ?? []).compactMap { entry in
            guard let latest = entry.latestStatus, refusedStatuses.contains(latest.status) else { return nil }
            return RefusedModel(
                identifier: entry.aaguid.map { $0.uuidString.lowercased() } ?? entry.identifier, description: entry.description, status: latest.status,
                effectiveDate: latest.effectiveDate
            )
        }
    }
}
