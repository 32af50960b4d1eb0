import Synchronization

/// Passkeys and their owners as this instance last read or wrote them, so that a sign-in
/// does not read them from the store again.
///
/// An entry may be stale: another instance, or another request, may have used the passkey,
/// turned it off, deleted it or changed its owner since. That is safe because a sign-in
/// verified against a cached entry stores its use only while the passkey and owner are
/// still as cached (``CeremonyCompletion/VerifiedState``); otherwise the store refuses the
/// whole completion (``StaleRead``) and the sign-in is verified again against a fresh
/// read. A refusal decided from a cached entry does not depend on what may change: the
/// key, the user handle and backup eligibility never change, and a counter only grows, so
/// a counter that did not pass the cached one passes no newer one either. Turned-off
/// passkeys are never cached, so a refusal as disabled always comes from a fresh read.
final class CredentialCache: Sendable {
    typealias Entry = (credential: PasskeyCredential, owner: User)

    private let entries = Mutex<[[UInt8]: Entry]>([:])
    /// Bounds memory; a full cache starts again empty, which costs one read per passkey.
    private let capacity: Int

    init(capacity: Int = 20_000) {
        self.capacity = capacity
    }

    func entry(_ credentialID: [UInt8]) -> Entry? {
        entries.withLock { $0[credentialID] }
    }

    func store(_ entry: Entry) {
        guard !entry.credential.isDisabled else { return forget(entry.credential.credentialID) }
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[entry.credential.credentialID] = entry
        }
    }

    func forget(_ credentialID: [UInt8]) {
        _ = entries.withLock { $0.removeValue(forKey: credentialID) }
    }
}
