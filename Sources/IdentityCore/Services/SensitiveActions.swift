public import Foundation

/// Actions that change how an account signs in (adding a passkey, removing one, removing the
/// password) need a recent sign-in, so that a stolen or forgotten session cannot take the
/// account over: the sign-in's `auth_time` must be within ``maximumAge``.
public struct SensitiveActions: Sendable {
    /// The oldest a sign-in may be (`passkeys.sensitive_action_max_age`).
    public let maximumAge: TimeInterval
    let clock: any WallClock

    /// Creates the rule.
    public init(maximumAge: TimeInterval = 15 * 60, clock: any WallClock) {
        self.maximumAge = maximumAge
        self.clock = clock
    }

    /// Refuses a sign-in at `authenticatedAt` that is too old for a sensitive action: `401`
    /// with RFC 9470's `insufficient_user_authentication` and `max_age`.
    public func requireRecentSignIn(_ authenticatedAt: Date, for action: String) throws(IdentityError) {
        let age = clock.now().timeIntervalSince(authenticatedAt)
        guard age > maximumAge else { return }
        throw IdentityError(
            .invalidToken,
            "\(action) needs a sign-in from the last \(Int(maximumAge / 60)) minutes; this one is \(Int(age / 60)) minutes old. Sign in again, then retry.",
            reason: .insufficientUserAuthentication(maxAge: Int(maximumAge))
        )
    }
}
