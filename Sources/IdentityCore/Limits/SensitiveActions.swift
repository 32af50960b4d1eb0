public import Foundation

/// Actions that change how an account signs in (adding a passkey, removing or turning one
/// off, removing the password) need a recent sign-in, so that a stolen or forgotten session
/// cannot take the account over: the sign-in's `auth_time` must be within ``maximumAge``.
/// The services that perform those actions apply it, so every face that calls them holds
/// the same line; each face only words the refusal.
public struct SensitiveActions: Sendable {
    /// The oldest a sign-in may be (`passkeys.sensitive_action_max_age`).
    public let maximumAge: TimeInterval
    let clock: any WallClock

    public init(maximumAge: TimeInterval = 15 * 60, clock: any WallClock) {
        self.maximumAge = maximumAge
        self.clock = clock
    }

    /// Refuses a sign-in that is too old for a sensitive action: `invalid_token` with RFC
    /// 9470's `insufficient_user_authentication` and `max_age`, which each face words its own
    /// way (My Account's `401` challenge, Kratos's `session_refresh_required`, IDaaS's
    /// `reauthentication_required`).
    ///
    /// A session a recovery started may add a passkey (`allowingRecovery`) and nothing else, in
    /// every face: it proves a code, not the account's owner at a device.
    public func requireRecent(_ signIn: SignIn, for action: String, allowingRecovery: Bool = false) throws(IdentityError) {
        guard allowingRecovery || !signIn.isRecovery else {
            throw IdentityError(
                .accessDenied, "\(action) is not possible in a session that account recovery started: add a passkey, sign in with it, then retry.",
                reason: .recoverySession
            )
        }
        let age = clock.now().timeIntervalSince(signIn.authenticatedAt)
        guard age > maximumAge else { return }
        throw IdentityError(
            .invalidToken,
            "\(action) needs a sign-in from the last \(Int(maximumAge / 60)) minutes; this one is \(Int(age / 60)) minutes old. Sign in again, then retry.",
            reason: .insufficientUserAuthentication(maxAge: Int(maximumAge))
        )
    }

    /// The same for whoever acts: an administrator's decision needs no sign-in of the owner.
    public func requireRecent(_ actor: Actor, for action: String, allowingRecovery: Bool = false) throws(IdentityError) {
        guard case .owner(let signIn) = actor else { return }
        try requireRecent(signIn, for: action, allowingRecovery: allowingRecovery)
    }
}
