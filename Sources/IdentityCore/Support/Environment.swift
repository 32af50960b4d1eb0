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
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}
