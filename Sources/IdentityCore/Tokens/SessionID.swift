public import Foundation

/// Login session IDs (refresh-token families, the `sid` claim): 16 bytes in lower-case hex,
/// the big-endian millisecond of the session's start, then 8 random bytes.
///
/// Starting with the time makes a new session's row land at the end of the sessions
/// index, on a page the sessions started just before it also changed, rather than on a
/// random page: fewer pages for every sign-in to write. The 8 random bytes (64 bits) keep
/// IDs unguessable within a millisecond; an ID is also never a credential on its own.
public enum SessionID {
    /// A new session ID for a session starting at `time`.
    public static func new(at time: Date, random: any RandomSource) -> String {
        let milliseconds = UInt64(max(0, (time.timeIntervalSince1970 * 1000).rounded(.down)))
        return UUIDText.hex((0..<8).map { UInt8(truncatingIfNeeded: milliseconds >> (56 - 8 * UInt64($0))) } + random.bytes(8))
    }
}
