import Synchronization

/// Hands each security event to whoever watches: the server logs one structured line per
/// event. Storage backends announce the audit events they commit (after the commit, so that
/// nothing rolled back is announced); services announce events that are not stored, such as
/// a routine token refresh.
public final class SecurityEventFeed: Sendable {
    private let watchers = Mutex<[@Sendable (AuditEvent) -> Void]>([])

    /// Creates a feed nobody watches yet.
    public init() {}

    /// Adds a watcher (the log, the metrics).
    public func watch(_ watcher: @escaping @Sendable (AuditEvent) -> Void) {
        watchers.withLock { $0.append(watcher) }
    }

    /// Announces events, in order, to every watcher.
    public func announce(_ events: [AuditEvent]) {
        guard !events.isEmpty else { return }
        let current = watchers.withLock { $0 }
        for event in events {
            for watcher in current { watcher(event) }
        }
    }

    /// Announces one event.
    public func announce(_ event: AuditEvent) {
        announce([event])
    }
}
