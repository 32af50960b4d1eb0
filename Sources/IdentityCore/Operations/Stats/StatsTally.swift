public import Foundation
import WebAuthn

/// Counts audit events into the rollups' metrics by UTC day: the one reading of the trail
/// that the rollup job, the live tail of ``StatsService`` and the tests share.
public struct StatsTally: Sendable {
    /// Each metric's count by day.
    public private(set) var counts: [Key: Int64] = [:]
    /// Each account's latest sign-in, and its latest with a passkey.
    private var signIns: [UserID: (any: Date, passkey: Date?)] = [:]

    public struct Key: Sendable, Hashable {
        public let day: String
        public let metric: String

        public init(day: String, metric: String) {
            self.day = day
            self.metric = metric
        }
    }

    public init() {}

    /// Counts one event; events the rollups do not count change nothing.
    public mutating func add(_ event: AuditEvent) {
        let day = Self.day(of: event.time)
        func count(_ metric: String) { counts[Key(day: day, metric: metric), default: 0] += 1 }
        switch event.kind {
        case .login:
            if event.detail == "password" {
                count(StatsMetric.passwordSignIns)
                signedIn(event, passkey: false)
                return
            }
            count(StatsMetric.passkeySignIns)
            signedIn(event, passkey: true)
            guard let use = PasskeyUse(detail: event.detail) else { return }
            count(StatsMetric.providerPrefix + use.aaguid.uuidString.lowercased())
            count(use.isSynced ? StatsMetric.synced : StatsMetric.deviceBound)
            if use.isCrossDevice { count(StatsMetric.hybrid) }
        case .accountRecovered:
            count(StatsMetric.recoverySignIns)
            signedIn(event, passkey: false)
        case .signup:
            count(StatsMetric.signUps)
        case .loginFailed, .recoveryFailed, .signCountRegressed:
            if let code = SignInFailure.code(of: event) { count(StatsMetric.failurePrefix + code) }
        default:
            break
        }
    }

    private mutating func signedIn(_ event: AuditEvent, passkey: Bool) {
        guard let user = event.userID else { return }
        let earlier = signIns[user]
        signIns[user] = (
            max(earlier?.any ?? event.time, event.time),
            passkey ? max(earlier?.passkey ?? event.time, event.time) : earlier?.passkey
        )
    }

    /// The counts as rows.
    public var dailyCounts: [DailyCount] {
        counts.map { DailyCount(day: $0.key.day, metric: $0.key.metric, count: $0.value) }.sorted { ($0.day, $0.metric) < ($1.day, $1.metric) }
    }

    /// The accounts that signed in.
    public var accountSignIns: [AccountSignIn] {
        signIns.map { AccountSignIn(userID: $0.key, signedInAt: $0.value.any, passkeySignedInAt: $0.value.passkey) }.sorted { $0.userID.rawValue < $1.userID.rawValue }
    }

    /// The UTC day of `time` as `YYYY-MM-DD`, by arithmetic (``CivilDate``): a calendar
    /// per event would cost more than the rest of the count.
    public static func day(of time: Date) -> String {
        let (year, month, day) = CivilDate.from(daysSince1970: Int((time.timeIntervalSince1970 / 86_400).rounded(.down)))
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day))"
    }

    /// The start of the UTC day `time` is in.
    public static func startOfDay(_ time: Date) -> Date {
        Date(timeIntervalSince1970: (time.timeIntervalSince1970 / 86_400).rounded(.down) * 86_400)
    }
}
