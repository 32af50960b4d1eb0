import Foundation
public import Hummingbird
import HTTPTypes
public import IdentityCore

/// What the Kratos face calls.
public struct KratosServices: Sendable {
    /// Registration, login and settings flows over the passkey pipeline.
    public let flows: InteractiveFlowService
    /// Session tokens (`ory_st_…`).
    public let sessions: BrowserSessionService
    /// Accounts and their passkeys, for identities, sessions and settings.
    public let accounts: AccountService
    /// The public base URL, without a trailing slash.
    public let publicURL: String
    /// The web origins whose pages may run browser flows (and be sent back to).
    public let browserOrigins: Set<String>
    /// Randomness for CSRF tokens.
    let random: any RandomSource
    /// Request bodies.
    package let body: RequestBodyReader
    let renderer: KratosFlowRenderer

    /// Creates the set.
    public init(
        flows: InteractiveFlowService, sessions: BrowserSessionService, accounts: AccountService, authenticatorNames: AuthenticatorNames,
        publicURL: String, browserOrigins: Set<String>, random: any RandomSource, maximumBodyBytes: Int
    ) {
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

/// The request context of Kratos routes that need a session: the session middleware fills
/// ``session`` from `X-Session-Token` or `Authorization: Bearer`.
public struct KratosRequestContext: ChildRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The caller's live session.
    public var session: BrowserSession?

    public init(context: BasicRequestContext) throws {
        self.coreContext = context.coreContext
    }

    /// The session, which the middleware guarantees on the routes it guards.
    func requireSession() throws -> BrowserSession {
        guard let session else { throw KratosError.sessionInactive }
        return session
    }
}

/// Refuses a request without a live Kratos session token with `401 session_inactive`.
public struct KratosSessionMiddleware: RouterMiddleware {
    public typealias Context = KratosRequestContext
    let sessions: BrowserSessionService

    @concurrent public func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        // Apps send the token; browsers of browser flows send the cookie.
        let token = request.headers[HTTPField.Name("X-Session-Token")!] ?? BearerToken.from(request) ?? Cookies.value(KratosServices.sessionCookie, in: request)
        guard let session = try await sessions.session(token: token) else { throw KratosError.sessionInactive }
        var context = context
        context.session = session
        return try await next(request, context)
    }
}
