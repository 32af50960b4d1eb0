public import Foundation

/// Where a moment falls for a sliding-window count: the fixed window it is in, and how much of
/// the previous fixed window the sliding window still covers. The count is this window's
/// requests plus the previous window's, weighted by that share (rounded up). Fixed windows
/// alone would let a client send twice the limit across a boundary.
public struct SlidingWindow: Sendable {
    /// The fixed window the moment falls in, counted from the epoch.
    public let index: Int64
    /// How much of the previous fixed window the sliding window still covers (0 to 1).
    public let previousWeight: Double

    /// The window of `length` seconds around `time`.
    public init(_ length: TimeInterval, at time: Date) {
        let position = time.timeIntervalSince1970 / length
        index = Int64(position.rounded(.down))
        previousWeight = 1 - (position - Double(index))
    }

    /// The sliding count from this window's and the previous window's fixed counts.
    public func count(current: Int, previous: Int) -> Int {
        current + Int((Double(previous) * previousWeight).rounded(.up))
    }
}
