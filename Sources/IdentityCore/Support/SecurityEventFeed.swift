import Synchronization

/// Hands each security event to whoever watches: the server logs one structured line per
/// event. Storage backends announce the audit events they commit (after the commit, so that
/// nothing rolled back is announced); services announce events that are not stored, such as
/// a routine token refresh.
public final class SecurityEventFeed: Sendable {
    private let watcher = Mutex<(@Sendable (AuditEvent) -> Void)?>(nil)

    /// Creates a feed nobody watches yet.
    public init() {}

    /// Sets the one watcher, replacing any earlier one.
    public func watch(_ watcher: @escaping @Sendable (AuditEvent) -> Void) {
        self.watcher.withLock { $0 = watcher }
    }

    /// Announces events, in order.
    public func announce(_ events: [AuditEvent]) {
        guard !events.isEmpty, let watcher = watcher.withLock({ $0 }) else { return }
        for event in events { watcher(event) }
    }

    /// Announces one event.
    public func announce(_ event: AuditEvent) {
        announce([event])
    }
}
