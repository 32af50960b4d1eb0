import Foundation
import IdentityCore
import Testing

extension StorageContract {
    /// Operators: set, changed, removed; refused for an account that does not exist; gone
    /// with the account.
    static func operatorRoles(_ storage: any IdentityStorage) async throws {
        let ada = StorageFixtures.user("ada"), grace = StorageFixtures.user("grace")
        try await storage.createUser(ada)
        try await storage.createUser(grace)
        #expect(try await storage.operatorRole(userID: ada.id) == nil)
        #expect(try await storage.setOperatorRole(userID: ada.id, role: .viewer, at: StorageFixtures.time(1)))
        #expect(try await storage.setOperatorRole(userID: grace.id, role: .admin, at: StorageFixtures.time(2)))
        #expect(try await storage.setOperatorRole(userID: UserID(rawValue: "user-nobody"), role: .admin, at: StorageFixtures.time(2)) == false)
        #expect(try await storage.setOperatorRole(userID: UserID(rawValue: "user-\u{0}ada"), role: .admin, at: StorageFixtures.time(2)) == false)
        #expect(try await storage.operatorRole(userID: ada.id) == .viewer)
        #expect(try await storage.operators() == [
            Operator(userID: ada.id, role: .viewer, since: StorageFixtures.time(1)), Operator(userID: grace.id, role: .admin, since: StorageFixtures.time(2)),
        ], "oldest first")
        // The same role again keeps its date; a new role starts one.
        #expect(try await storage.setOperatorRole(userID: ada.id, role: .viewer, at: StorageFixtures.time(3)))
        #expect(try await storage.operators().first?.since == StorageFixtures.time(1))
        #expect(try await storage.setOperatorRole(userID: ada.id, role: .admin, at: StorageFixtures.time(4)))
        #expect(try await storage.operatorRole(userID: ada.id) == .admin)
        #expect(try await storage.setOperatorRole(userID: ada.id, role: nil, at: StorageFixtures.time(5)))
        #expect(try await storage.operatorRole(userID: ada.id) == nil)
        #expect(try await storage.deleteUser(id: grace.id, at: StorageFixtures.time(6)))
        #expect(try await storage.operators().isEmpty, "an operator goes with the account")
    }

    /// The rollups: events read after a position in order; a batch applied once (compared
    /// and set on the position), its counts added by day and metric, the latest sign-ins
    /// kept per account; counts outside the trail added; days read by range.
    static func statsRollups(_ storage: any IdentityStorage) async throws {
        for second in 1...5 {
            try await storage.record(AuditEvent(time: StorageFixtures.time(Double(second)), kind: .login, userID: UserID(rawValue: "user-\(second)"), origin: nil))
        }
        let all = try await storage.events(after: 0, limit: 10)
        #expect(all.count == 5)
        #expect(all.map(\.id) == all.map(\.id).sorted(), "oldest first")
        let firstPosition = try #require(all.first?.id)
        #expect(try await storage.events(after: firstPosition, limit: 2).map(\.id) == Array(all.map(\.id)[1...2]))
        #expect(try await storage.events(after: all[4].id, limit: 10).isEmpty)
        #expect(try await storage.events(after: 0, limit: 0).isEmpty)

        #expect(try await storage.statsPosition() == 0)
        let ada = UserID(rawValue: "user-ada")
        let batch = StatsBatch(
            from: 0, to: all[2].id,
            counts: [DailyCount(day: "2026-11-27", metric: StatsMetric.passkeySignIns, count: 2), DailyCount(day: "2026-11-28", metric: "failure.bad_signature", count: 1)],
            signIns: [AccountSignIn(userID: ada, signedInAt: StorageFixtures.time(10), passkeySignedInAt: StorageFixtures.time(10))]
        )
        #expect(try await storage.applyStats(batch))
        #expect(try await storage.applyStats(batch) == false, "a batch is applied once: the position moved")
        #expect(try await storage.statsPosition() == all[2].id)
        let second = StatsBatch(
            from: all[2].id, to: all[4].id, counts: [DailyCount(day: "2026-11-28", metric: "failure.bad_signature", count: 3)],
            signIns: [AccountSignIn(userID: ada, signedInAt: StorageFixtures.time(20), passkeySignedInAt: nil)]
        )
        #expect(try await storage.applyStats(second))
        try await storage.addDailyCounts([DailyCount(day: "2026-11-29", metric: StatsMetric.signUpsStarted, count: 4)])
        try await storage.addDailyCounts([DailyCount(day: "2026-11-29", metric: StatsMetric.signUpsStarted, count: 1)])
        // Counts may go down (an account's latest sign-in leaves a day).
        try await storage.addDailyCounts([DailyCount(day: "2026-11-29", metric: StatsMetric.latestSignIns, count: 2)])
        try await storage.addDailyCounts([DailyCount(day: "2026-11-29", metric: StatsMetric.latestSignIns, count: -1)])
        let counts = try await storage.dailyCounts(fromDay: "2026-11-28", toDay: "2026-11-30").sorted { ($0.day, $0.metric) < ($1.day, $1.metric) }
        #expect(counts == [
            DailyCount(day: "2026-11-28", metric: "failure.bad_signature", count: 4), DailyCount(day: "2026-11-29", metric: StatsMetric.latestSignIns, count: 1),
            DailyCount(day: "2026-11-29", metric: StatsMetric.signUpsStarted, count: 5),
        ], "added up, and only the days asked for")
        // The account's latest sign-in is kept, and its latest with a passkey with it.
        #expect(try await storage.accountSignIns(userIDs: [ada, UserID(rawValue: "user-none"), UserID(rawValue: "user-\u{0}")]) == [
            AccountSignIn(userID: ada, signedInAt: StorageFixtures.time(20), passkeySignedInAt: StorageFixtures.time(10))
        ])
        #expect(try await storage.accountSignIns(userIDs: []).isEmpty)
    }
}
