import Crypto
import Foundation

/// The secrets every instance of one deployment shares: created once, by whichever instance
/// starts first, kept in the store, and read at start-up so that no request reads them.
public struct InstanceSecrets: Sendable {
    /// Seals the ceremonies clients carry.
    public let ceremonies: CeremonySeal
    /// Derives the stable decoy credential IDs shown for unknown usernames.
    let loginDecoyKey: SymmetricKey
    /// Keys the hashes of emailed one-time codes: a 6-digit code hashed without a key could be
    /// found from a database copy in a million tries.
    let oneTimeCodeKey: SymmetricKey

    /// The names the secrets are stored under.
    public static let names = ["ceremony-seal", "login-decoy", "one-time-codes"]

    /// Reads the secrets from the store, creating those that do not exist yet.
    public static func load(from store: any SecretStore, random: any RandomSource) async throws -> InstanceSecrets {
        InstanceSecrets(
            ceremonyKey: try await store.secret(named: "ceremony-seal", orStore: random.bytes(32)),
            loginDecoyKey: try await store.secret(named: "login-decoy", orStore: random.bytes(32)),
            oneTimeCodeKey: try await store.secret(named: "one-time-codes", orStore: random.bytes(32))
        )
    }

    /// Secrets from known bytes, 32 each.
    public init(ceremonyKey: [UInt8], loginDecoyKey: [UInt8], oneTimeCodeKey: [UInt8]) {
        ceremonies = CeremonySeal(key: ceremonyKey)
        self.loginDecoyKey = SymmetricKey(data: loginDecoyKey)
        self.oneTimeCodeKey = SymmetricKey(data: oneTimeCodeKey)
    }
}
