import HTTPTypes
import Hummingbird
import HummingbirdAuth
import Logging
public import FaceFrame
public import IdentityCore
import Localization

/// The request context of the hosted pages and their JSON calls: the browser session, when
/// the request carries a live one, put here by ``BrowserSessionAuthenticator``.
public typealias HostedPageContext = AuthenticatedRequestContext<BrowserSession>

/// Finds the browser session of the hosted pages' cookie. A request without one goes on
/// without it (the sign-in pages show themselves); the groups that need one add
/// ``SignInRequiredMiddleware``.
struct BrowserSessionAuthenticator: AuthenticatorMiddleware {
    typealias Context = HostedPageContext
    let pages: HostedPages

    @concurrent func authenticate(request: Request, context: Context) async throws -> BrowserSession? {
        let session = try await pages.sessions.session(token: Cookies.value(pages.sessionCookie, in: request))
        // A recovery's session may add a passkey and sign out, nothing else: elsewhere (the
        // account page, `/authorize` for another client) the browser is not signed in.
        guard let session, session.isRecovery else { return session }
        return Self.recoveryPaths.contains(request.uri.path) ? session : nil
    }

    /// What a recovery's session may reach.
    static let recoveryPaths: Set<String> = ["/account/passkeys/new", "/ui/passkeys/options", "/ui/passkeys", "/ui/logout"]
}

/// Routes that need a signed-in browser: a page sends the person to sign in and come back;
/// a JSON call is refused with `invalid_token`, which the page's script answers the same way.
struct SignInRequiredMiddleware: RouterMiddleware {
    typealias Context = HostedPageContext
    /// Whether the routes are pages (else JSON calls).
    let isPage: Bool

    @concurrent func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        guard context.identity == nil else { return try await next(request, context) }
        guard isPage else { throw IdentityError(.invalidToken, "you are not signed in, or your session has ended; sign in again") }
        return PageResponses.redirect(ReturnTo.loginURL(returningTo: request.uri.path))
    }
}

/// Renders what a page handler throws as the error page, in the pages' layout: a busy
/// database as a `503` that says nothing changed, a typed failure with its own words and
/// status, anything else as a logged, generic `500`. No page handler catches for itself.
struct PageErrorMiddleware: RouterMiddleware {
    typealias Context = HostedPageContext
    let pages: HostedPages

    @concurrent func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as StorageUnavailable {
            context.logger.warning("storage unavailable", metadata: ["path": "\(request.uri.path)", "reason": "\(error.reason)"])
            let t = pages.strings(for: request)
            var response = PageResponses.errorPage(
                pages, request, title: t("error.title.busy"), message: t("error.busy"), code: "temporarily_unavailable", status: .serviceUnavailable
            )
            response.headers[.retryAfter] = "5"
            return response
        } catch let error as IdentityError {
            context.logger.notice("hosted page refused", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            let t = pages.strings(for: request)
            let words = FailureWords.of(code: error.code.rawValue, reason: error.reason, message: error.message, t)
            var response = PageResponses.errorPage(
                pages, request, title: t("error.title"), message: words.message, code: error.code.rawValue, details: words.details, status: error.status
            )
            if error.code == .methodNotAllowed { response.headers[.allow] = "GET" }
            if let retryAfter = error.retryAfter { response.headers[.retryAfter] = String(retryAfter) }
            return response
        } catch {
            context.logger.error("hosted page failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            let t = pages.strings(for: request)
            return PageResponses.errorPage(pages, request, title: t("error.title"), message: t("error.server"), code: "server_error", status: .internalServerError)
        }
    }
}
