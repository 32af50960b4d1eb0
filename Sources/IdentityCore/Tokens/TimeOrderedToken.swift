public import Foundation
import WebAuthn

/// Bearer secrets (refresh tokens) that carry their issue time, and the keys they are stored
/// under.
///
/// A token is 39 bytes in base64url: a version byte (1), the big-endian millisecond it was
/// issued (6 bytes), then 32 random bytes. It is stored under the version and time followed
/// by the SHA-256 of the whole token, so a database leak still does not leak it, and a new
/// token's row lands at the end of the table's key order, on a page the tokens issued just
/// before it also changed. Under SHA-256 alone every new token lands on a random page of an
/// index that only grows, and each sign-in then writes a page of its own to the log and
/// later to the file (measured: the largest share of a login's storage cost).
///
/// Tokens issued before this format (32 random bytes) are still stored under their plain
/// SHA-256, and are looked up that way; the two kinds of key differ in length, so neither
/// can be taken for the other.
public enum TimeOrderedToken {
    private static let version: UInt8 = 1
    private static let timeBytes = 6
    private static let randomBytes = 32

    /// A new token issued at `time`.
    public static func new(at time: Date, random: any RandomSource) -> String {
        let milliseconds = UInt64(max(0, (time.timeIntervalSince1970 * 1000).rounded(.down)))
        var bytes: [UInt8] = [version]
        bytes.reserveCapacity(1 + timeBytes + randomBytes)
        for index in 0..<timeBytes {
            bytes.append(UInt8(truncatingIfNeeded: milliseconds >> (8 * UInt64(timeBytes - 1 - index))))
        }
        bytes += random.bytes(randomBytes)
        return Base64URL.encode(bytes)
    }

    /// The key `token` is stored under: its version and time, then its SHA-256; for a token
    /// of no known format, its SHA-256 alone.
    public static func storageKey(of token: String) -> [UInt8] {
        let hash = TokenService.hash(token)
        guard token.utf8.count == encodedLength, let bytes = Base64URL.decode(token),
            bytes.count == 1 + timeBytes + randomBytes, bytes[0] == version
        else { return hash }
        return Array(bytes[0...timeBytes]) + hash
    }

    /// Base64url without padding of the token's bytes: 52 characters.
    private static let encodedLength = ((1 + timeBytes + randomBytes) * 8 + 5) / 6
}
