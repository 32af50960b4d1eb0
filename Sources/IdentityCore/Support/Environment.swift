public import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The source of the current time. Injected everywhere so that expiry is testable
/// without sleeping.
public protocol WallClock: Sendable {
    /// The current instant.
    func now() -> Date
}

public struct SystemClock: WallClock {
    public init() {}
    public func now() -> Date { Date() }
}

/// A source of cryptographically secure random bytes, injected for tests.
public protocol RandomSource: Sendable {
    /// `count` random bytes.
    func bytes(_ count: Int) -> [UInt8]
}

/// The system's secure random number generator.
public struct SystemRandom: RandomSource {
    public init() {}

    public func bytes(_ count: Int) -> [UInt8] {
        KernelRandomPool.shared.bytes(count)
    }
}

/// Random bytes from the kernel's generator, fetched 4 KiB per system call and handed out
/// once each. A login draws a few dozen bytes in several calls (challenge, keys, token
/// IDs); one `getrandom` each would cost more than the rest of the ceremony's bookkeeping.
/// Bytes are zeroed in the pool as they are handed out.
final class KernelRandomPool: Sendable {
    static let shared = KernelRandomPool()

    private struct Pool {
        var bytes = [UInt8](repeating: 0, count: KernelRandomPool.size)
        var next = KernelRandomPool.size
    }

    private static let size = 4096
    private let pool = Mutex(Pool())

    func bytes(_ count: Int) -> [UInt8] {
        guard count <= Self.size / 4 else { return Self.fresh(count) }
        return pool.withLock { pool in
            if pool.next + count > Self.size {
                pool.bytes = Self.fresh(Self.size)
                pool.next = 0
            }
            let range = pool.next..<(pool.next + count)
            pool.next += count
            defer { pool.bytes.replaceSubrange(range, with: repeatElement(0, count: count)) }
            return Array(pool.bytes[range])
        }
    }

    /// The kernel's generator as a file, opened once. Reading it never blocks once the
    /// system is up, and returns as many bytes as asked (up to 32 MiB) in one call.
    private static let urandom: Int32 = open("/dev/urandom", O_RDONLY | O_CLOEXEC)

    /// `count` bytes straight from the kernel.
    private static func fresh(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes { read(urandom, $0.baseAddress! + filled, count - filled) }
            // Only an interruption is worth retrying: without secure randomness nothing may go on.
            if got < 0, errno == EINTR { continue }
            precondition(got > 0, "reading /dev/urandom failed with errno \(errno)")
            filled += got
        }
        return bytes
    }
}
