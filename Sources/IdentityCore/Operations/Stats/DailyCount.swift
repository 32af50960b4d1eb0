public import Foundation

/// One count of the daily rollups: a metric's total on a UTC day.
public struct DailyCount: Sendable, Hashable {
    /// The day, `YYYY-MM-DD` in UTC.
    public let day: String
    /// What is counted (see ``StatsMetric``).
    public let metric: String
    public let count: Int64

    public init(day: String, metric: String, count: Int64) {
        self.day = day
        self.metric = metric
        self.count = count
    }
}

/// What one pass of the rollup adds: the counts of the audit events after `from` up to and
/// including `to`, and who signed in among them.
public struct StatsBatch: Sendable, Hashable {
    /// The position the rollup had reached before these events.
    public let from: Int64
    /// The position of the last event counted.
    public let to: Int64
    public let counts: [DailyCount]
    public let signIns: [AccountSignIn]

    public init(from: Int64, to: Int64, counts: [DailyCount], signIns: [AccountSignIn]) {
        self.from = from
        self.to = to
        self.counts = counts
        self.signIns = signIns
    }
}

/// An account's latest sign-in in a batch, and its latest with a passkey.
public struct AccountSignIn: Sendable, Hashable {
    public let userID: UserID
    public let signedInAt: Date
    /// When it last signed in with a passkey, when it did in the batch.
    public let passkeySignedInAt: Date?

    public init(userID: UserID, signedInAt: Date, passkeySignedInAt: Date?) {
        self.userID = userID
        self.signedInAt = signedInAt
        self.passkeySignedInAt = passkeySignedInAt
    }
}

/// Accounts that signed in within a period.
public struct ActiveAccounts: Sendable, Hashable {
    /// Every account that signed in.
    public let all: Int
    /// Those that signed in with a passkey at least once.
    public let passkey: Int

    public init(all: Int, passkey: Int) {
        self.all = all
        self.passkey = passkey
    }
}

/// The metrics the rollups count, by name.
public enum StatsMetric {
    public static let passkeySignIns = "sign_in.passkey"
    public static let passwordSignIns = "sign_in.password"
    public static let recoverySignIns = "sign_in.recovery"
    public static let signUps = "sign_up"
    /// Sign-up ceremonies started (counted by each instance as they start, not in the trail).
    public static let signUpsStarted = "sign_up.started"
    public static let synced = "synced"
    public static let deviceBound = "device_bound"
    public static let hybrid = "hybrid"
    /// `failure.` and a stable code.
    public static let failurePrefix = "failure."
    /// `provider.` and an AAGUID, lowercase with dashes.
    public static let providerPrefix = "provider."
    /// Accounts whose latest sign-in is on the day: a histogram that moves an account from
    /// day to day as it signs in again, so that the accounts active since a day are the sum of
    /// a few rows, however many accounts there are.
    public static let latestSignIns = "accounts.latest_sign_in"
    /// The same for the latest sign-in with a passkey.
    public static let latestPasskeySignIns = "accounts.latest_passkey_sign_in"
}
