import Foundation
import HTTPTypes
public import FaceFrame
public import Hummingbird
public import HummingbirdAuth
public import IdentityCore

/// What the Kratos face calls.
public struct KratosServices: Sendable {
    /// Registration, login and settings flows over the passkey pipeline.
    public let flows: InteractiveFlowService
    /// Session tokens (`ory_st_…`).
    public let sessions: BrowserSessionService
    /// Accounts and their passkeys, for identities, sessions and settings.
    public let accounts: AccountService
    /// Verification and recovery codes, for the recovery and verification flows.
    public let recovery: AccountRecoveryService
    /// The public base URL, without a trailing slash.
    public let publicURL: String
    /// The web origins whose pages may run browser flows (and be sent back to).
    public let browserOrigins: Set<String>
    /// Randomness for CSRF tokens.
    let random: any RandomSource
    package let body: RequestBodyReader
    let renderer: KratosFlowRenderer

    /// Drops a trailing slash from `publicURL` and caps request bodies at `maximumBodyBytes`.
    public init(
        flows: InteractiveFlowService, sessions: BrowserSessionService, accounts: AccountService, recovery: AccountRecoveryService,
        authenticatorNames: AuthenticatorNames, publicURL: String, browserOrigins: Set<String>, random: any RandomSource, maximumBodyBytes: Int
    ) {
        self.recovery = recovery
        self.flows = flows
        self.sessions = sessions
        self.accounts = accounts
        self.publicURL = PublicURL.trimmed(publicURL)
        self.browserOrigins = browserOrigins
        self.random = random
        self.body = RequestBodyReader(maximumBytes: maximumBodyBytes)
        self.renderer = KratosFlowRenderer(publicURL: PublicURL.trimmed(publicURL), names: authenticatorNames)
    }

    /// The browser session cookie, as Kratos names it.
    static let sessionCookie = "ory_kratos_session"
    /// The CSRF cookie of browser flows.
    static let csrfCookie = "csrf_token_latchkey"

    /// The URL a request was made to, as the public URL names it: a flow's `request_url`,
    /// and where `return_to` is read from.
    func requestURL(_ request: Request) -> String {
        publicURL + request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")
    }

    /// Cookies are `Secure` when the public URL is https (browsers drop them over http).
    var secureCookies: Bool { publicURL.lowercased().hasPrefix("https://") }
}

/// The request context of Kratos routes that need a session: the authenticator puts it
/// here.
public typealias KratosRequestContext = AuthenticatedRequestContext<BrowserSession>

/// Finds the session of `X-Session-Token`, `Authorization: Bearer` (apps) or the session
/// cookie (browsers of browser flows); refuses a request without a live one with
/// `401 session_inactive`.
public struct KratosSessionAuthenticator: AuthenticatorMiddleware {
    public typealias Context = KratosRequestContext
    let sessions: BrowserSessionService

    @concurrent public func authenticate(request: Request, context: Context) async throws -> BrowserSession? {
        let token = request.headers[HTTPField.Name("X-Session-Token")!] ?? BearerToken.from(request) ?? Cookies.value(KratosServices.sessionCookie, in: request)
        guard let session = try await sessions.session(token: token) else { throw KratosError.sessionInactive }
        return session
    }
}
