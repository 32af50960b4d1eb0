/// A storage backend could not do the work now, through no fault of the request: the
/// database is busy or locked by another process, the disk is full, or the database cannot
/// be reached. Nothing was written. The faces answer `503` with `Retry-After`.
public struct StorageUnavailable: Error, Sendable, CustomStringConvertible {
    /// What the backend reported, for the log; never shown to clients.
    public let reason: String

    public init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { "storage unavailable: \(reason)" }
}
