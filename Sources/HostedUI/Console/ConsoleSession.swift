import FaceFrame
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdAuth
import IdentityCore
import NIOCore
import WebAuthn

/// The request context of the console: the operator, when the request carries a live
/// console session, put here by ``ConsoleAuthenticator``.
typealias ConsoleContext = AuthenticatedRequestContext<ConsoleOperator>

/// Who is at the console: a signed-in account, its role (`nil` when the account is not, or no
/// longer, an operator), and, for a change, the form it sent.
struct ConsoleOperator: Sendable {
    let session: BrowserSession
    let role: OperatorRole?
    /// The fields of the change's form, read once by ``ConsoleChangeMiddleware``.
    var form: [String: String] = [:]

    var userID: UserID { session.userID }
    /// The audit trail's actor for what this operator does.
    var actor: String { Operator.actor(session.userID) }
    var canChange: Bool { role?.canChange ?? false }
}

/// Admits the console's requests from loopback addresses only, unless `admin.public` says
/// otherwise: the Admin API's address rule.
struct ConsoleAddressMiddleware: RouterMiddleware {
    typealias Context = ConsoleContext
    let isPublic: Bool

    @concurrent func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        guard isPublic || request.headers[ClientAddressHeader.name].map(AddressRange.isLoopback) == true else {
            throw ConsoleRefusal(
                .forbidden, "Not from this address", "The console answers only on this machine. Open it from here, or set admin.public (behind a proxy that checks who connects)."
            )
        }
        var context = context
        if let origin = context.origin {
            var named = RequestOrigin(ip: origin.ip, userAgent: origin.userAgent, face: "console")
            named.language = origin.language
            context.origin = named
        }
        return try await next(request, context)
    }
}

/// Finds the console session of the console's cookie, and the account's role.
struct ConsoleAuthenticator: AuthenticatorMiddleware {
    typealias Context = ConsoleContext
    let console: OperatorConsole

    @concurrent func authenticate(request: Request, context: Context) async throws -> ConsoleOperator? {
        guard let session = try await console.sessions.session(token: Cookies.value(console.sessionCookie, in: request)) else { return nil }
        return ConsoleOperator(session: session, role: try await console.admin.operatorRole(userID: session.userID))
    }
}

/// The console's pages need an operator: without a session the browser goes to sign in and
/// comes back; an account that is not an operator is refused (`403`).
struct ConsoleOperatorRequired: RouterMiddleware {
    typealias Context = ConsoleContext

    @concurrent func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        guard let identity = context.identity else {
            guard request.method == .get || request.method == .head else { throw ConsoleRefusal.signedOut }
            return PageResponses.redirect(ConsoleRoutes.signInURL(returningTo: request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")))
        }
        guard identity.role != nil else { throw ConsoleRefusal.notAnOperator }
        return try await next(request, context)
    }
}

/// Every change: the page's CSRF token in the form, an admin (a viewer sees, and changes
/// nothing), and an audit event with actor `operator:<user ID>` and the status it got.
struct ConsoleChangeMiddleware: RouterMiddleware {
    typealias Context = ConsoleContext
    let console: OperatorConsole

    @concurrent func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        guard let identity = context.identity else { throw ConsoleRefusal.signedOut }
        // Refusals are recorded too: a viewer's try, or a form from elsewhere, is worth knowing.
        let response: Response
        do {
            response = try await change(request, context, identity, next)
        } catch {
            try? await record(request, context, identity, status: ConsoleErrorMiddleware.status(of: error))
            throw error
        }
        try? await record(request, context, identity, status: response.status.code)
        return response
    }

    private func change(
        _ request: Request, _ context: Context, _ identity: ConsoleOperator, _ next: @concurrent (Request, Context) async throws -> Response
    ) async throws -> Response {
        let fields = try console.body.form(from: try await console.body.bytes(of: request))
        try console.checkCSRF(request, token: fields["csrf"])
        guard identity.canChange else { throw ConsoleRefusal.viewerOnly }
        var context = context
        context.identity?.form = fields
        return try await next(request, context)
    }

    private func record(_ request: Request, _ context: Context, _ identity: ConsoleOperator, status: Int) async throws {
        try await console.admin.recordRequest(method: "POST", path: request.uri.path, status: status, by: identity.actor, origin: context.origin)
    }
}

extension OperatorConsole {
    /// CSRF protection for every state-changing call: the request comes from the console's
    /// own origin (Origin and Fetch Metadata, where the browser sends them) and carries the
    /// token of the cookie that came with the page (a double submit: another site can
    /// neither read the cookie nor make the browser send it, `SameSite=Strict`).
    func checkCSRF(_ request: Request, token: String?) throws {
        if let origin = request.headers[.origin]?.lowercased(), origin != publicOrigin {
            let originHost = origin.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init)
            guard let host = request.head.authority, originHost == host.lowercased() else { throw ConsoleRefusal.csrf }
        }
        if let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!], site != "same-origin" { throw ConsoleRefusal.csrf }
        guard let cookie = Cookies.value(csrfCookie, in: request), !cookie.isEmpty, let token, token == cookie else { throw ConsoleRefusal.csrf }
    }

    /// The CSRF token a page embeds, and the cookie to set when the browser has none yet.
    func csrfToken(for request: Request) -> (token: String, setCookie: String?) {
        if let existing = Cookies.value(csrfCookie, in: request), existing.utf8.count == 43, Base64URL.decode(existing) != nil { return (existing, nil) }
        let token = Base64URL.encode(random.bytes(32))
        return (token, cookie(csrfCookie, token, maxAge: nil))
    }

    /// The step-up rule for a destructive action: a passkey sign-in within
    /// `passkeys.sensitive_action_max_age`, or a fresh one first.
    func requireRecentSignIn(_ identity: ConsoleOperator) throws {
        let age = clock.now().timeIntervalSince(identity.session.authenticatedAt)
        guard age <= sensitiveActions.maximumAge else { throw ConsoleRefusal.stepUp }
    }
}
