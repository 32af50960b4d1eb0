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
    /// The most events a read adds beyond the rollups: past that the job is behind (the
    /// first start after an upgrade), and a read counts only these rather than scanning the
    /// trail until it catches up.
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
            let signIns = tally.accountSignIns
            // Read before the batch, and consistent with it: only a batch changes the accounts'
            // sign-ins, and it applies only where the position is still this one.
            let earlier = try await store.accountSignIns(userIDs: signIns.map(\.userID))
            let moves = Self.histogramMoves(signIns, earlier: earlier)
            if try await store.applyStats(StatsBatch(from: position, to: last.id, counts: tally.dailyCounts + moves, signIns: signIns)) {
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
        let range = try Self.days(from: from, to: to)
        return intervals(range, try await consistentRead(fromDay: range.fromDay, toDay: range.toDay))
    }

    /// The overview: the figures of each day from `from`'s to `to`'s, and the accounts that
    /// signed in since the first of them, from one read of the rollups and the events since.
    public func overview(from: Date, to: Date) async throws -> (intervals: [StatsInterval], active: ActiveAccounts) {
        let range = try Self.days(from: from, to: to)
        // Every latest sign-in is on or before today, so when `to` is now the range's rows hold
        // the whole histogram from the first day.
        let read = try await consistentRead(fromDay: range.fromDay, toDay: max(range.toDay, StatsTally.day(of: clock.now().addingTimeInterval(86_400))))
        return (intervals(range, read), try await activeAccounts(since: range.first, read))
    }

    /// The days a range covers.
    private static func days(from: Date, to: Date) throws(IdentityError) -> (first: Date, starts: [Date], fromDay: String, toDay: String) {
        let first = StatsTally.startOfDay(from)
        let days = Int(((to.timeIntervalSince1970 - first.timeIntervalSince1970) / 86_400).rounded(.up))
        guard days >= 1 else { throw IdentityError(.invalidRequest, "to must be after from", field: "to") }
        guard days <= maximumDays else { throw IdentityError(.invalidRequest, "a range covers at most \(maximumDays) days", field: "to") }
        let starts = (0..<days).map { first.addingTimeInterval(Double($0) * 86_400) }
        return (first, starts, StatsTally.day(of: first), StatsTally.day(of: first.addingTimeInterval(Double(days) * 86_400)))
    }

    private func intervals(_ range: (first: Date, starts: [Date], fromDay: String, toDay: String), _ read: (rolled: [DailyCount], tail: StatsTally)) -> [StatsInterval] {
        var intervals = Dictionary(uniqueKeysWithValues: range.starts.map { (StatsTally.day(of: $0), StatsInterval(start: $0)) })
        // This instance's sign-up starts not added yet (other instances' are added within a
        // rollup interval).
        let tail = (read.tail.dailyCounts + (self.starts?.pending() ?? [])).filter { $0.day >= range.fromDay && $0.day < range.toDay }
        for count in read.rolled + tail {
            intervals[count.day]?.add(count.metric, count.count)
        }
        return range.starts.compactMap { intervals[StatsTally.day(of: $0)] }
    }

    /// The rolled-up counts of a range of days and the events since the rollups' position,
    /// read so that a batch applied meanwhile is counted once: the position is read before
    /// and after, and the read repeats if it moved.
    private func consistentRead(fromDay: String, toDay: String) async throws -> (rolled: [DailyCount], tail: StatsTally) {
        // A batch is applied every half minute at most per instance: a few tries suffice, and
        // the last one is taken as it is rather than trying forever.
        var attempt = 1
        while true {
            let position = try await store.statsPosition()
            let rolled = try await store.dailyCounts(fromDay: fromDay, toDay: toDay)
            let tail = try await store.events(after: position, limit: Self.tailLimit)
            if try await store.statsPosition() == position || attempt == 5 {
                var tally = StatsTally()
                for logged in tail { tally.add(logged.event) }
                return (rolled, tally)
            }
            attempt += 1
        }
    }

    /// The accounts that signed in on or after the UTC day of `since`, and how many of them
    /// with a passkey: the histogram of latest sign-ins summed from that day (a row per day,
    /// however many accounts), and the accounts of the events since the rollups' position
    /// whose latest sign-in the histogram puts earlier, or nowhere.
    public func activeAccounts(since: Date) async throws -> ActiveAccounts {
        try await activeAccounts(since: since, try await consistentRead(fromDay: StatsTally.day(of: since), toDay: "9999-12-31"))
    }

    /// The same from a read that holds the histogram's rows from `since`'s day on.
    private func activeAccounts(since: Date, _ read: (rolled: [DailyCount], tail: StatsTally)) async throws -> ActiveAccounts {
        let firstDay = StatsTally.day(of: since)
        let start = StatsTally.startOfDay(since)
        var all: Int64 = 0, passkey: Int64 = 0
        for count in read.rolled where count.day >= firstDay {
            if count.metric == StatsMetric.latestSignIns { all += count.count }
            if count.metric == StatsMetric.latestPasskeySignIns { passkey += count.count }
        }
        let recent = read.tail.accountSignIns.filter { $0.signedInAt >= start }
        let known = Dictionary(try await store.accountSignIns(userIDs: recent.map(\.userID)).map { ($0.userID, $0) }) { first, _ in first }
        for signIn in recent {
            let earlier = known[signIn.userID]
            if (earlier?.signedInAt ?? .distantPast) < start { all += 1 }
            if (signIn.passkeySignedInAt ?? .distantPast) >= start, (earlier?.passkeySignedInAt ?? .distantPast) < start { passkey += 1 }
        }
        return ActiveAccounts(all: Int(all), passkey: Int(passkey))
    }

    /// The histogram's moves for a batch's sign-ins: each account leaves the day of its
    /// earlier latest sign-in (when it had one) for the day of its new one, when they differ.
    static func histogramMoves(_ signIns: [AccountSignIn], earlier: [AccountSignIn]) -> [DailyCount] {
        let before = Dictionary(earlier.map { ($0.userID, $0) }) { first, _ in first }
        var moves: [StatsTally.Key: Int64] = [:]
        func move(_ metric: String, from old: Date?, to new: Date?) {
            guard let new else { return }
            let latest = max(old ?? new, new)
            let (oldDay, newDay) = (old.map(StatsTally.day(of:)), StatsTally.day(of: latest))
            guard oldDay != newDay else { return }
            if let oldDay { moves[StatsTally.Key(day: oldDay, metric: metric), default: 0] -= 1 }
            moves[StatsTally.Key(day: newDay, metric: metric), default: 0] += 1
        }
        for signIn in signIns {
            let old = before[signIn.userID]
            move(StatsMetric.latestSignIns, from: old?.signedInAt, to: signIn.signedInAt)
            move(StatsMetric.latestPasskeySignIns, from: old?.passkeySignedInAt, to: signIn.passkeySignedInAt)
        }
        return moves.filter { $0.value != 0 }.map { DailyCount(day: $0.key.day, metric: $0.key.metric, count: $0.value) }
    }
}
