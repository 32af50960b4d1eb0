import FaceFrame
public import Foundation
public import IdentityCore

/// What the operator console needs: the administration and statistics services it shows and
/// changes things through, the passkey pipeline its operators sign in with, and its own
/// browser sessions. Built once by the composition root, served where the Admin API is.
public struct OperatorConsole: Sendable {
    /// Users, passkeys, sessions, events, webhooks, keys and operators.
    public let admin: AdminService
    /// The daily rollups the overview draws.
    public let stats: StatsService
    /// The one passkey pipeline: operators sign in with their passkeys.
    let passkeys: PasskeyService
    /// The console's sessions, apart from the hosted pages' (their tokens differ in form).
    let sessions: BrowserSessionService
    /// Enrollment links.
    let recovery: AccountRecoveryService
    /// Provider names and icons by AAGUID.
    let names: AuthenticatorNames
    /// The configured webhook endpoints.
    let webhookEndpoints: [WebhookEndpoint]
    /// The FIDO metadata in use and where it comes from, when configured.
    let metadata: (source: String, metadata: AttestationMetadata)?
    /// The public base URL, which enrollment links open.
    let publicURL: String
    /// The name the console's title bar shows.
    let siteName: String
    /// Whether callers on any address are admitted (`admin.public`); otherwise only loopback.
    let isPublic: Bool
    /// How recent an operator's sign-in must be for a destructive action (the step-up rule,
    /// `passkeys.sensitive_action_max_age`).
    let sensitiveActions: SensitiveActions
    let clock: any WallClock
    let random: any RandomSource
    let body: RequestBodyReader
    /// Cookies are `Secure` when the public URL is https.
    let secureCookies: Bool
    /// The public URL's origin, lowercased: a form may come from there, or from the origin
    /// the request was addressed to (an admin listener of its own).
    let publicOrigin: String

    /// The prefix of a console session's token: longer than a hosted page session's token,
    /// so that neither kind is taken for the other.
    public static let tokenPrefix = "lk_console_session_"
    /// How long a console session lasts.
    public static let sessionLifetime: TimeInterval = 8 * 3600
    /// Where the console is served, which its cookies are scoped to.
    static let path = "/console"

    public init(
        admin: AdminService, stats: StatsService, passkeys: PasskeyService, sessions: BrowserSessionService, recovery: AccountRecoveryService,
        names: AuthenticatorNames, webhookEndpoints: [WebhookEndpoint], metadata: (source: String, metadata: AttestationMetadata)?, publicURL: String,
        siteName: String, isPublic: Bool, sensitiveActions: SensitiveActions, maximumBodyBytes: Int, clock: any WallClock, random: any RandomSource
    ) {
        self.admin = admin
        self.stats = stats
        self.passkeys = passkeys
        self.sessions = sessions
        self.recovery = recovery
        self.names = names
        self.webhookEndpoints = webhookEndpoints
        self.metadata = metadata
        self.publicURL = PublicURL.trimmed(publicURL)
        self.siteName = siteName
        self.isPublic = isPublic
        self.sensitiveActions = sensitiveActions
        self.clock = clock
        self.random = random
        self.body = RequestBodyReader(maximumBytes: maximumBodyBytes)
        self.secureCookies = publicURL.lowercased().hasPrefix("https://")
        self.publicOrigin = URLComponents(string: publicURL).map { parts in
            "\(parts.scheme ?? "http")://\(parts.host ?? "")" + (parts.port.map { ":\($0)" } ?? "")
        }?.lowercased() ?? ""
    }

    /// `__Secure-` over https: `__Host-` would need `Path=/`, and the console's cookies stay
    /// under `/console`.
    var sessionCookie: String { secureCookies ? "__Secure-latchkey_console" : "latchkey_console" }
    var csrfCookie: String { secureCookies ? "__Secure-latchkey_console_csrf" : "latchkey_console_csrf" }

    /// A console cookie: `Path=/console`, `HttpOnly`, `SameSite=Strict` (no other site can
    /// make the browser send it, not even by a link).
    func cookie(_ name: String, _ value: String, maxAge: Int?) -> String {
        Cookies.setCookie(name, value, maxAge: maxAge, sameSite: "Strict", secure: secureCookies, path: Self.path)
    }
}
