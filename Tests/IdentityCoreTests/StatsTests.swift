import Foundation
import IdentityCore
import IdentityTestSupport
import Testing
import WebAuthn

/// The daily rollups: the trail read into metrics, the job that counts each settled event
/// once (two instances side by side included), and reads that add the events since, so
/// that the figures always agree with the trail counted directly.
@Suite struct StatsTests {
    static let apple = AAGUID(uuidString: "fbfc3007-154e-4ecc-8c0b-6e020557d7bd")!

    @Test func daysAreUTCCalendarDays() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        // Every day of a few centuries' worth of samples, leap years and 1970's before included.
        for step in stride(from: -3_000_000_000.0, through: 7_000_000_000.0, by: 86_400 * 37 + 3_601) {
            let date = Date(timeIntervalSince1970: step)
            let parts = calendar.dateComponents([.year, .month, .day], from: date)
            let expected = String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
            #expect(StatsTally.day(of: date) == expected, "\(step)")
        }
        #expect(StatsTally.day(of: Date(timeIntervalSince1970: 1_709_164_800)) == "2024-02-29")
        #expect(StatsTally.startOfDay(Date(timeIntervalSince1970: 1_709_164_800 + 3_000)) == Date(timeIntervalSince1970: 1_709_164_800))
    }

    @Test func aPasskeySignInSaysWhatItUsed() throws {
        let use = PasskeyUse(aaguid: Self.apple, isSynced: true, isCrossDevice: true)
        #expect(use.description == "passkey fbfc3007-154e-4ecc-8c0b-6e020557d7bd; synced; cross-device")
        #expect(PasskeyUse(detail: use.description) == use)
        let local = PasskeyUse(aaguid: .zero, isSynced: false, isCrossDevice: false)
        #expect(PasskeyUse(detail: local.description) == local)
        for other in ["", "password", "passkey", "passkey nonsense; synced", "passkey fbfc3007-154e-4ecc-8c0b-6e020557d7bd; maybe"] {
            #expect(PasskeyUse(detail: other) == nil, "\(other)")
        }
    }

    @Test func refusalsHaveStableCodes() {
        func code(_ kind: AuditEvent.Kind, _ detail: String) -> String? {
            SignInFailure.code(of: AuditEvent(time: Date(), kind: kind, detail: detail, origin: nil))
        }
        #expect(code(.loginFailed, "bad_signature: the signature does not verify") == "bad_signature")
        #expect(code(.loginFailed, "origin_mismatch: https://evil.example is not allowed") == "origin_mismatch")
        #expect(code(.loginFailed, "unknown credential") == "unknown_credential")
        #expect(code(.loginFailed, "disabled passkey") == "credential_disabled")
        #expect(code(.loginFailed, "account disabled") == "account_disabled")
        #expect(code(.loginFailed, "passkey not allowed: the passkey is synced") == "passkey_not_allowed")
        #expect(code(.loginFailed, "wrong email or password") == "invalid_credentials")
        #expect(code(.loginFailed, "Something: else") == "other", "a code is snake_case")
        #expect(code(.signCountRegressed, "counter 3 after 7") == "sign_count_regressed")
        #expect(code(.recoveryFailed, "saved code") == "invalid_recovery_code")
        #expect(code(.recoveryFailed, "account disabled") == "account_disabled")
        #expect(code(.login, "") == nil)
    }

    /// A seeded mix over three days, each event as the core writes it.
    static func seed(_ storage: InMemoryStorage, start: Date) async throws -> [AuditEvent] {
        var events: [AuditEvent] = []
        for index in 0..<300 {
            let time = start.addingTimeInterval(Double(index) * 900)
            let user = UserID(rawValue: "user-\(index % 17)")
            let event: AuditEvent
            switch index % 10 {
            case 0, 1, 2:
                let use = PasskeyUse(aaguid: index % 3 == 0 ? .zero : Self.apple, isSynced: index % 2 == 0, isCrossDevice: index % 5 == 0)
                event = AuditEvent(time: time, kind: .login, userID: user, credentialID: "c\(index)", detail: use.description, origin: nil)
            case 3: event = AuditEvent(time: time, kind: .login, userID: user, detail: "password", origin: nil)
            case 4: event = AuditEvent(time: time, kind: .accountRecovered, userID: user, detail: "saved code", origin: nil)
            case 5: event = AuditEvent(time: time, kind: .signup, userID: user, origin: nil)
            case 6: event = AuditEvent(time: time, kind: .loginFailed, userID: user, detail: "bad_signature: no", origin: nil)
            case 7: event = AuditEvent(time: time, kind: .loginFailed, detail: "unknown credential", origin: nil)
            case 8: event = AuditEvent(time: time, kind: .recoveryFailed, userID: user, detail: "email code", origin: nil)
            default: event = AuditEvent(time: time, kind: .profileUpdated, userID: user, origin: nil)
            }
            try await storage.record(event)
            events.append(event)
        }
        return events
    }

    /// The figures of `events` counted directly, one interval per day.
    static func counted(_ events: [AuditEvent]) -> [String: [String: Int64]] {
        var tally = StatsTally()
        for event in events { tally.add(event) }
        return tally.counts.reduce(into: [:]) { $0[$1.key.day, default: [:]][$1.key.metric] = $1.value }
    }

    static func figures(_ intervals: [StatsInterval]) -> [String: [String: Int64]] {
        var figures: [String: [String: Int64]] = [:]
        for interval in intervals {
            var metrics: [String: Int64] = [
                StatsMetric.passkeySignIns: interval.passkeySignIns, StatsMetric.passwordSignIns: interval.passwordSignIns,
                StatsMetric.recoverySignIns: interval.recoverySignIns, StatsMetric.signUps: interval.signUps, StatsMetric.synced: interval.synced,
                StatsMetric.deviceBound: interval.deviceBound, StatsMetric.hybrid: interval.hybrid,
            ]
            for (code, count) in interval.failures { metrics[StatsMetric.failurePrefix + code] = count }
            for (aaguid, count) in interval.providers { metrics[StatsMetric.providerPrefix + aaguid] = count }
            let kept = metrics.filter { $0.value != 0 }
            if !kept.isEmpty { figures[StatsTally.day(of: interval.start)] = kept }
        }
        return figures
    }

    @Test func theFiguresAgreeWithTheTrailBeforeDuringAndAfterTheRollup() async throws {
        let storage = InMemoryStorage()
        let clock = ManualClock()
        let start = StatsTally.startOfDay(clock.now())
        let events = try await Self.seed(storage, start: start)
        // The last event half a minute ago: not settled yet.
        clock.advance(by: 299 * 900 + 30 - clock.now().timeIntervalSince(start))
        let stats = StatsService(store: storage, clock: clock)
        let expected = Self.counted(events)
        #expect(expected.count == 4, "the seed spans four days")
        let range = (from: start, to: start.addingTimeInterval(5 * 86_400))

        // Nothing rolled up: the tail alone.
        #expect(Self.figures(try await stats.intervals(from: range.from, to: range.to)) == expected)
        #expect(try await stats.activeAccounts(since: start) == ActiveAccounts(all: 17, passkey: 17), "from the tail alone too")
        // Rolled up but for the last minute: the rollups and the tail.
        let counted = try await stats.rollUp()
        #expect(counted > 0 && counted < events.count, "the events of the last minute wait")
        #expect(Self.figures(try await stats.intervals(from: range.from, to: range.to)) == expected)
        // Everything settled and rolled up; once more counts nothing twice.
        clock.advance(by: 120)
        #expect(try await stats.rollUp() == events.count - counted)
        #expect(try await stats.rollUp() == 0)
        #expect(Self.figures(try await stats.intervals(from: range.from, to: range.to)) == expected)
        #expect(try await storage.statsPosition() == Int64(events.count))
        // One day only, and a day with nothing.
        let second = try await stats.intervals(from: start.addingTimeInterval(86_400 + 5), to: start.addingTimeInterval(2 * 86_400))
        #expect(second.count == 1 && second[0].start == start.addingTimeInterval(86_400))
        #expect(Self.figures(second) == expected.filter { $0.key == StatsTally.day(of: second[0].start) })
        #expect(try await stats.intervals(from: start.addingTimeInterval(9 * 86_400), to: start.addingTimeInterval(10 * 86_400)).map(\.signIns) == [0])
        // The accounts that signed in, from the histogram of latest sign-ins alone now; and
        // since a later day, only those whose latest sign-in is on or after it.
        #expect(try await stats.activeAccounts(since: start) == ActiveAccounts(all: 17, passkey: 17))
        let overview = try await stats.overview(from: range.from, to: range.to)
        #expect(Self.figures(overview.intervals) == expected && overview.active == ActiveAccounts(all: 17, passkey: 17), "one read, the same figures")
        let lastDay = StatsTally.startOfDay(events.last!.time)
        let lastDayAccounts = Set(events.filter { $0.time >= lastDay && ($0.kind == .login || $0.kind == .accountRecovered) }.compactMap(\.userID))
        let expectedPasskey = Set(events.filter { $0.time >= lastDay && $0.kind == .login && $0.detail != "password" }.compactMap(\.userID))
        #expect(try await stats.activeAccounts(since: lastDay) == ActiveAccounts(all: lastDayAccounts.count, passkey: expectedPasskey.count))
    }

    @Test func anAccountMovesInTheHistogramAsItSignsInAgain() async throws {
        let storage = InMemoryStorage()
        let clock = ManualClock()
        let stats = StatsService(store: storage, clock: clock)
        let ada = UserID(rawValue: "user-ada")
        let day = StatsTally.startOfDay(clock.now()).addingTimeInterval(-10 * 86_400)
        func signIn(_ days: Double, passkey: Bool) async throws {
            let detail = passkey ? PasskeyUse(aaguid: Self.apple, isSynced: true, isCrossDevice: false).description : "password"
            try await storage.record(AuditEvent(time: day.addingTimeInterval(days * 86_400 + 60), kind: .login, userID: ada, detail: detail, origin: nil))
            try await stats.rollUp()
        }
        try await signIn(0, passkey: true)
        try await signIn(3, passkey: false)
        try await signIn(3, passkey: false)
        #expect(try await stats.activeAccounts(since: day) == ActiveAccounts(all: 1, passkey: 1))
        #expect(try await stats.activeAccounts(since: day.addingTimeInterval(86_400)) == ActiveAccounts(all: 1, passkey: 0), "the passkey sign-in is older")
        #expect(try await stats.activeAccounts(since: day.addingTimeInterval(4 * 86_400)) == ActiveAccounts(all: 0, passkey: 0))
        let histogram = try await storage.dailyCounts(fromDay: "0000", toDay: "9999").filter { $0.metric.hasPrefix("accounts.") && $0.count != 0 }
        #expect(Set(histogram) == [
            DailyCount(day: StatsTally.day(of: day.addingTimeInterval(3 * 86_400)), metric: StatsMetric.latestSignIns, count: 1),
            DailyCount(day: StatsTally.day(of: day), metric: StatsMetric.latestPasskeySignIns, count: 1),
        ], "one row per account and metric holds it")
    }

    @Test func twoInstancesRollingUpTogetherCountEachEventOnce() async throws {
        let storage = InMemoryStorage()
        let clock = ManualClock()
        let start = StatsTally.startOfDay(clock.now()).addingTimeInterval(-4 * 86_400)
        let events = try await Self.seed(storage, start: start)
        let (a, b) = (StatsService(store: storage, clock: clock), StatsService(store: storage, clock: clock))
        async let first = a.rollUp()
        async let second = b.rollUp()
        #expect(try await first + second == events.count)
        #expect(Self.figures(try await a.intervals(from: start, to: clock.now())) == Self.counted(events))
    }

    @Test func signUpsStartedAreAddedOnceAndKeptWhenTheStoreFails() async throws {
        let storage = InMemoryStorage()
        let clock = ManualClock()
        let starts = CeremonyStarts()
        let stats = StatsService(store: storage, clock: clock, starts: starts)
        for _ in 0..<3 { starts.signUpStarted(at: clock.now()) }
        try await stats.flushStarts()
        try await stats.flushStarts()
        let today = try await stats.intervals(from: clock.now(), to: clock.now().addingTimeInterval(1))
        #expect(today.map(\.signUpsStarted) == [3])
    }

    @Test func rangesAreChecked() async throws {
        let stats = StatsService(store: InMemoryStorage(), clock: ManualClock())
        let now = StatsTally.startOfDay(Date(timeIntervalSince1970: 1_800_000_000))
        await #expect(throws: IdentityError.self) { try await stats.intervals(from: now, to: now.addingTimeInterval(-86_400 * 2)) }
        await #expect(throws: IdentityError.self) { try await stats.intervals(from: now, to: now.addingTimeInterval(500 * 86_400)) }
        #expect(try await stats.intervals(from: now, to: now.addingTimeInterval(400 * 86_400 - 1)).count <= 400)
    }

    @Test func providersAreNamedAndMerged() {
        var interval = StatsInterval(start: Date())
        interval.providers = [Self.apple.uuidString.lowercased(): 3, AAGUID.zero.uuidString.lowercased(): 2, "00000000-0000-0000-0000-0000000000aa": 1]
        let names = AuthenticatorNames([Self.apple: AuthenticatorNames.Entry(name: "iCloud Keychain", iconLight: nil, iconDark: nil)])
        #expect(interval.providerNames(names) == ["iCloud Keychain": 3, StatsInterval.unknownProvider: 3])
    }
}
