public import Foundation

/// The source of the current time. Injected everywhere so that expiry is testable
/// without sleeping.
public protocol WallClock: Sendable {
    /// The current instant.
    func now() -> Date
}

/// The system clock.
public struct SystemClock: WallClock {
    /// Creates the system clock.
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
    /// Creates the source.
    public init() {}

    public func bytes(_ count: Int) -> [UInt8] {
        // Eight bytes per call to the generator (one system call each), not one.
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 7)
        while bytes.count < count {
            withUnsafeBytes(of: generator.next() as UInt64) { bytes.append(contentsOf: $0) }
        }
        return Array(bytes.prefix(count))
    }
}
