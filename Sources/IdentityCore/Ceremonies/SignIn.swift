public import Foundation

/// How a person signed in to start a session. Every session records it (browser, Kratos and
/// IDaaS sessions, refresh families, authorization codes), so that tokens say it truly
/// (`amr`) and removing a way to sign in ends exactly the sessions it started.
public enum SignInMethod: String, Sendable, Hashable, Codable, CaseIterable {
    /// A passkey assertion (or the passkey a sign-up created).
    case passkey
    /// A password.
    case password

    /// The `amr` values (RFC 8176) of a sign-in this way: `pwd` for a password; `pop`
    /// (proof of possession of a key) for a passkey, with `user` when the authenticator
    /// verified the user.
    public func authenticationMethodReferences(userVerified: Bool) -> [String] {
        switch self {
        case .password: return ["pwd"]
        case .passkey: return userVerified ? ["pop", "user"] : ["pop"]
        }
    }

    /// The method an access token's `amr` claim names; tokens without one (issued before the
    /// claim existed) were passkey sign-ins.
    public init(authenticationMethodReferences amr: [String]) {
        self = amr.contains("pwd") ? .password : .passkey
    }
}

/// Who is signed in, since when, and how: what a sensitive action (adding or removing a way
/// to sign in) is judged by, whichever face the session came through.
public struct SignIn: Sendable, Hashable {
    /// The signed-in account.
    public let userID: UserID
    /// When the person authenticated (`auth_time`).
    public let authenticatedAt: Date
    /// How.
    public let method: SignInMethod
    /// Whether a recovery (a recovery code, an enrollment link) started the session rather
    /// than a sign-in: it may add a passkey and nothing else (``SensitiveActions``).
    public let isRecovery: Bool

    public init(userID: UserID, authenticatedAt: Date, method: SignInMethod, isRecovery: Bool = false) {
        self.userID = userID
        self.authenticatedAt = authenticatedAt
        self.method = method
        self.isRecovery = isRecovery
    }
}

/// Who changes a passkey: its owner, signed in (whose sign-in a sensitive action must find
/// recent), or an administrator acting for them (whose decision the owner cannot undo).
public enum Actor: Sendable, Hashable {
    /// The account's owner.
    case owner(SignIn)
    /// An administration application, by ID.
    case administrator(String)

    /// The administration application's ID, for audit events; `nil` for the owner.
    public var administratorID: String? {
        if case .administrator(let id) = self { return id }
        return nil
    }
}

extension BrowserSession {
    /// The sign-in this session carries.
    public var signIn: SignIn { SignIn(userID: userID, authenticatedAt: authenticatedAt, method: method, isRecovery: isRecovery) }
}

extension AccessGrant {
    /// The sign-in this access token carries.
    public var signIn: SignIn { SignIn(userID: userID, authenticatedAt: authenticatedAt, method: method, isRecovery: isRecovery) }
}
