import Synchronization
import WebAuthn

/// Parsed credential public keys, by credential ID. Decoding COSE and checking that the
/// point lies on its curve costs a measurable share of a login, and a passkey's key never
/// changes, so each is parsed once. An entry is used only when the stored COSE bytes are
/// the ones it was parsed from.
final class PublicKeyCache: Sendable {
    private let entries = Mutex<[[UInt8]: CredentialPublicKey]>([:])
    /// Bounds memory; a full cache starts again empty, which costs one parse per key.
    private let capacity: Int

    init(capacity: Int = 50_000) {
        self.capacity = capacity
    }

    /// The key of a credential, parsed now or earlier.
    func key(credentialID: [UInt8], coseKey: [UInt8], policy: KeyPolicy) throws(WebAuthnError) -> CredentialPublicKey {
        if let cached = entries.withLock({ $0[credentialID] }), cached.coseKey == coseKey {
            return cached
        }
        let parsed = try CredentialPublicKey(coseKey: coseKey, policy: policy)
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[credentialID] = parsed
        }
        return parsed
    }
}
