import Foundation

/// Which sessions a revocation ends. Every backend revokes login sessions (refresh token
/// families) and browser sessions in one function that takes this, so the rules (keep the
/// first revocation time; a browser session's end ends the login sessions its codes
/// started) are written once per backend.
package enum SessionSelection: Sendable {
    /// One login session; with a user, only if it is that user's.
    case family(String, of: UserID?)
    /// Every login session and live browser session of a user.
    case user(UserID)
    /// A user's login sessions at one client (a withdrawn consent).
    case client(String, of: UserID)
    /// Every session a passkey of a user started.
    case startedBy(credentialID: [UInt8], of: UserID)
    /// Every session of a user that a sign-in by one method started.
    case signedInWith(SignInMethod, of: UserID)
    /// A browser session, and the login sessions its codes started. With a user, only if it
    /// is that user's live session (and only then its login sessions).
    case browserSession(hash: [UInt8], of: UserID?)
}
