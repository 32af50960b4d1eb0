import Crypto
import Foundation
import Synchronization
import WebAuthn

/// What an allow list shows of one passkey, and so what a decoy must imitate: the length of
/// its ID and the transports it was registered with (none, when the client reported none).
public struct CredentialShape: Sendable, Hashable {
    /// The credential ID's length in bytes.
    public let idLength: Int
    /// The transports, as stored.
    public let transports: [String]

    public init(idLength: Int, transports: [String]) {
        self.idLength = idLength
        self.transports = transports
    }
}

/// The `allowCredentials` a login for an identifier no account has (or an account without a
/// usable passkey) gets, made to look like a real account's: the list of a real account
/// (how many passkeys, their ID lengths, their transports or none), picked by a secret keyed
/// hash of the identifier, with IDs derived from the same hash. So the same identifier gets
/// the same answer every time, decoys are distributed as the deployment's real allow lists
/// are, and neither tells an attacker that the identifier is unknown.
///
/// The census of real lists is read in the background (at start-up and every few minutes),
/// never while answering a login, so that answering an unknown identifier reads what a
/// known one reads. It holds the lists of the oldest accounts, which change least, so that
/// a decoy stays as stable as a real account's list once a deployment has a few hundred.
public final class LoginDecoys: Sendable {
    /// How many accounts' lists the census keeps.
    public static let censusSize = 512
    private let census = Mutex<[[CredentialShape]]>([])

    /// Creates an empty census; until it is read, decoys take the shapes of common platform
    /// passkeys.
    public init() {}

    /// Reads the census from the store.
    public func refresh(from store: any CredentialStore) async throws {
        let lists = try await store.allowListShapes(limit: Self.censusSize).filter { !$0.isEmpty }
        census.withLock { $0 = lists }
    }

    /// How many real lists the census holds.
    public var censusCount: Int { census.withLock { $0.count } }

    /// The decoy list for `identifier`, under the instance's decoy key.
    func decoy(for identifier: Identifier, key: SymmetricKey) -> [CredentialDescriptor] {
        func mac(_ counter: UInt32) -> [UInt8] {
            Array(HMAC<SHA256>.authenticationCode(for: Data(identifier.value.utf8) + withUnsafeBytes(of: counter.bigEndian, Array.init), using: key))
        }
        let choice = mac(0)
        let pick = Int(UInt32(choice[0]) << 24 | UInt32(choice[1]) << 16 | UInt32(choice[2]) << 8 | UInt32(choice[3]))
        let lists = census.withLock { $0 }
        let shapes = lists.isEmpty ? Self.fallback[pick % Self.fallback.count] : lists[pick % lists.count]
        return shapes.enumerated().map { index, shape in
            // Enough keyed bytes for any real ID length (up to 1023).
            var bytes: [UInt8] = []
            var block: UInt32 = UInt32(index + 1) << 8
            while bytes.count < shape.idLength {
                bytes += mac(block)
                block += 1
            }
            return CredentialDescriptor(id: Base64URLBytes(Array(bytes.prefix(shape.idLength))), transports: shape.transports.isEmpty ? nil : shape.transports)
        }
    }

    /// Before the census is read (a new deployment): one platform passkey, in the shapes
    /// the common providers give (IDs of 16 to 64 bytes; transports as browsers report them,
    /// or none).
    private static let fallback: [[CredentialShape]] = [16, 20, 32, 48, 64].flatMap { length in
        [["hybrid", "internal"], ["internal"], []].map { [CredentialShape(idLength: length, transports: $0)] }
    }
}
