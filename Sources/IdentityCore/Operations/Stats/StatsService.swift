public import Foundation

/// The figures of the console's overview and `GET /admin/v1/stats`, from daily rollups
/// rather than the audit trail: a job counts settled events into the rollups exactly once
/// (the counts and the position they reach move in one transaction, compared and set, so
/// instances may run it side by side), and a read adds the few events since, counted the
/// same way, so that the figures always agree with the trail.
public struct StatsService: Sendable {
    public typealias Storage = StatsStore

    let store: any Storage
    let clock: any WallClock
    let starts: CeremonyStarts?

    /// How old an event must be before the rollup counts it. A database numbers events as
    /// transactions insert them, not as they commit: one numbered lower may appear a moment
    /// after one numbered higher. Counting only events this old (far longer than any
    /// transaction may run) keeps the position from passing one still to appear.
    public static let settleTime: TimeInterval = 60
    /// Events read at once.
    static let batchSize = 5000
    /// The most events a read adds beyond the rollups; past that the job is behind, and the
    /// read says so rather than scanning the trail.
    static let tailLimit = 20_000
    /// The most days one read covers.
    public static let maximumDays = 400

    public init(store: any Storage, clock: any WallClock, starts: CeremonyStarts? = nil) {
        self.store = store
        self.clock = clock
        self.starts = starts
    }

    /// Counts every settled event not counted yet.
    /// - Returns: How many events this call counted.
    @discardableResult
    public func rollUp() async throws -> Int {
        var counted = 0
        while true {
            let position = try await store.statsPosition()
            let events = try await store.events(after: position, limit: Self.batchSize)
            let cutoff = clock.now().addingTimeInterval(-Self.settleTime)
            let settled = events.prefix { $0.event.time < cutoff }
            guard let last = settled.last else { return counted }
            var tally = StatsTally()
            for logged in settled { tally.add(logged.event) }
            if try await store.applyStats(StatsBatch(from: position, to: last.id, counts: tally.dailyCounts, signIns: tally.accountSignIns)) {
                counted += settled.count
            }
            // Caught up: the rest is not settled yet, or there is no rest.
            if settled.count < events.count || events.count < Self.batchSize { return counted }
        }
    }

    /// Adds the sign-up ceremonies this instance started since the last call.
    public func flushStarts() async throws {
        guard let starts else { return }
        let counts = starts.take()
        guard !counts.isEmpty else { return }
        do {
            try await store.addDailyCounts(counts)
        } catch {
            starts.restore(counts)
            throw error
        }
    }

    /// The figures of each UTC day from `from`'s to `to`'s (exclusive), oldest first: the
    /// rollups, and the events since their position.
    /// - Throws: `invalid_request` for a range that is empty, reversed or over
    ///   ``maximumDays`` days.
    public func intervals(from: Date, to: Date) async throws -> [StatsInterval] {
        let first = StatsTally.startOfDay(from)
        let days = Int(((to.timeIntervalSince1970 - first.timeIntervalSince1970) / 86_400).rounded(.up))
        guard days >= 1 else { throw IdentityError(.invalidRequest, "to must be after from", field: "to") }
        guard days <= Self.maximumDays else { throw IdentityError(.invalidRequest, "a range covers at most \(Self.maximumDays) days", field: "to") }
        let starts = (0..<days).map { first.addingTimeInterval(Double($0) * 86_400) }
        var intervals = Dictionary(uniqueKeysWithValues: starts.map { (StatsTally.day(of: $0), StatsInterval(start: $0)) })
        let end = first.addingTimeInterval(Double(days) * 86_400)
        for count in try await consistentCounts(fromDay: StatsTally.day(of: first), toDay: StatsTally.day(of: end)) {
            intervals[count.day]?.add(count.metric, count.count)
        }
        return starts.compactMap { intervals[StatsTally.day(of: $0)] }
    }

    /// The rolled-up counts and the tail's, read so that a batch applied meanwhile is
    /// counted once: the position is read before and after, and the read repeats if it moved.
    private func consistentCounts(fromDay: String, toDay: String) async throws -> [DailyCount] {
        // A batch is applied every half minute at most per instance: a few tries suffice, and
        // the last one is taken as it is rather than trying forever.
        for attempt in 1...5 {
            let position = try await store.statsPosition()
            let rolled = try await store.dailyCounts(fromDay: fromDay, toDay: toDay)
            let tail = try await store.events(after: position, limit: Self.tailLimit)
            guard try await store.statsPosition() == position || attempt == 5 else { continue }
            var tally = StatsTally()
            for logged in tail { tally.add(logged.event) }
            // This instance's sign-up starts not added yet (other instances' are added within
            // a rollup interval).
            let starts = self.starts?.pending() ?? []
            return rolled + (tally.dailyCounts + starts).filter { $0.day >= fromDay && $0.day < toDay }
        }
        return []
    }

    /// Accounts that signed in within the last `days` days, and how many of them with a
    /// passkey: the rollups' count, and the accounts of the events since that it lacks.
    /// Sign-ins are kept as each account's latest, so a batch applied meanwhile counts no
    /// account twice.
    public func activeAccounts(days: Int) async throws -> ActiveAccounts {
        let since = clock.now().addingTimeInterval(-Double(days) * 86_400)
        var tally = StatsTally()
        for logged in try await store.events(after: try await store.statsPosition(), limit: Self.tailLimit) { tally.add(logged.event) }
        let recent = tally.accountSignIns.filter { $0.signedInAt >= since }
        let rolled = try await store.activeAccounts(since: since)
        let known = Dictionary(try await store.accountSignIns(userIDs: recent.map(\.userID)).map { ($0.userID, $0) }) { first, _ in first }
        var all = rolled.all, passkey = rolled.passkey
        for signIn in recent {
            let earlier = known[signIn.userID]
            if (earlier?.signedInAt ?? .distantPast) < since { all += 1 }
            if (signIn.passkeySignedInAt ?? .distantPast) >= since, (earlier?.passkeySignedInAt ?? .distantPast) < since { passkey += 1 }
        }
        return ActiveAccounts(all: all, passkey: passkey)
    }
}
