public import Foundation
import WebAuthn

/// One day of the figures the console's overview draws and `GET /admin/v1/stats` answers.
public struct StatsInterval: Sendable, Hashable {
    /// The day's start (UTC midnight).
    public let start: Date
    public var passkeySignIns: Int64 = 0
    public var passwordSignIns: Int64 = 0
    public var recoverySignIns: Int64 = 0
    public var signUps: Int64 = 0
    /// Sign-up ceremonies started (see ``CeremonyStarts``).
    public var signUpsStarted: Int64 = 0
    /// Refused sign-ins and recoveries by stable code.
    public var failures: [String: Int64] = [:]
    /// Passkey sign-ins by the passkey's AAGUID (lowercase, with dashes).
    public var providers: [String: Int64] = [:]
    /// Passkey sign-ins with a synced passkey.
    public var synced: Int64 = 0
    /// Passkey sign-ins with a device-bound passkey.
    public var deviceBound: Int64 = 0
    /// Passkey sign-ins with a passkey on another device, over hybrid.
    public var hybrid: Int64 = 0

    public init(start: Date) { self.start = start }

    /// Every sign-in, whatever the method.
    public var signIns: Int64 { passkeySignIns + passwordSignIns + recoverySignIns }

    /// Passkey sign-ins by provider name, merged where AAGUIDs share one; `unknown` for the
    /// zero AAGUID and for AAGUIDs the names do not list.
    public func providerNames(_ names: AuthenticatorNames) -> [String: Int64] {
        var named: [String: Int64] = [:]
        for (aaguid, count) in providers {
            let name = AAGUID(uuidString: aaguid).flatMap { $0.isZero ? nil : names.entry(for: $0)?.name } ?? Self.unknownProvider
            named[name, default: 0] += count
        }
        return named
    }

    /// The provider of a passkey whose AAGUID says nothing.
    public static let unknownProvider = "unknown"

    /// Adds a metric's count.
    mutating func add(_ metric: String, _ count: Int64) {
        switch metric {
        case StatsMetric.passkeySignIns: passkeySignIns += count
        case StatsMetric.passwordSignIns: passwordSignIns += count
        case StatsMetric.recoverySignIns: recoverySignIns += count
        case StatsMetric.signUps: signUps += count
        case StatsMetric.signUpsStarted: signUpsStarted += count
        case StatsMetric.synced: synced += count
        case StatsMetric.deviceBound: deviceBound += count
        case StatsMetric.hybrid: hybrid += count
        default:
            if metric.hasPrefix(StatsMetric.failurePrefix) {
                failures[String(metric.dropFirst(StatsMetric.failurePrefix.count)), default: 0] += count
            } else if metric.hasPrefix(StatsMetric.providerPrefix) {
                providers[String(metric.dropFirst(StatsMetric.providerPrefix.count)), default: 0] += count
            }
        }
    }
}
