import FaceFrame
import Foundation
import HTTPTypes
import Hummingbird
import IdentityCore
import Logging

/// A refusal of the console's own: its status, a title and a sentence for the operator.
struct ConsoleRefusal: Error {
    let status: HTTPResponse.Status
    let title: String
    let message: String

    init(_ status: HTTPResponse.Status, _ title: String, _ message: String) {
        self.status = status
        self.title = title
        self.message = message
    }

    static let signedOut = ConsoleRefusal(.unauthorized, "Signed out", "Your console session has ended. Sign in again.")
    static let notAnOperator = ConsoleRefusal(
        .forbidden, "Not an operator", "This account is not an operator of this server. An admin adds operators with latchkey admin operators add."
    )
    static let viewerOnly = ConsoleRefusal(.forbidden, "Viewers cannot change anything", "Your role is viewer: you can see everything here, and change nothing.")
    static let csrf = ConsoleRefusal(.forbidden, "Refused", "This form did not come from this console page, or the page is stale. Reload it and try again.")
    /// A destructive action after a sign-in older than the step-up rule allows: answered by
    /// sending the operator to sign in again.
    static let stepUp = ConsoleRefusal(.seeOther, "Sign in again", "This action needs a recent passkey sign-in.")
}

/// Renders what a console handler throws: a step-up as a redirect to sign in again, the
/// sign-in calls' refusals as JSON for the page's script, anything else as the console's
/// error page (a busy database as `503`, an unexpected error as a logged, generic `500`).
struct ConsoleErrorMiddleware: RouterMiddleware {
    typealias Context = ConsoleContext
    let siteName: String

    @concurrent func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let refusal as ConsoleRefusal where refusal.status == .seeOther {
            return PageResponses.redirect(ConsoleRoutes.signInURL(returningTo: Self.returnPath(request), stepUp: true), status: .seeOther)
        } catch {
            let (status, title, message, code) = Self.describe(error)
            if status == .internalServerError { context.logger.error("console failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"]) }
            if request.uri.path.hasPrefix(ConsoleRoutes.signInCalls) {
                return JSONResponse.make(["error": code, "error_description": message], status: status)
            }
            let page = ConsoleLayout(siteName: siteName, title: title, section: nil, identity: context.identity, csrfToken: "")
            return PageResponses.html(page.render(ConsolePages.error(title: title, message: message, code: code)), status: status)
        }
    }

    /// The status a change's audit event records for what it threw.
    static func status(of error: any Error) -> Int { describe(error).status.code }

    private static func describe(_ error: any Error) -> (status: HTTPResponse.Status, title: String, message: String, code: String) {
        switch error {
        case let refusal as ConsoleRefusal: (refusal.status, refusal.title, refusal.message, "access_denied")
        case let error as IdentityError: (error.status, "Not done", error.message, error.reason?.rawValue ?? error.code.rawValue)
        case is StorageUnavailable: (.serviceUnavailable, "Busy", "The database is unavailable; nothing was changed. Try again in a moment.", "temporarily_unavailable")
        default: (.internalServerError, "Something went wrong", "The server could not do this; nothing was changed. The server's log says why.", "server_error")
        }
    }

    /// Where to come back to after signing in again: the page the form was on, when it is a
    /// console page of this server.
    private static func returnPath(_ request: Request) -> String {
        guard let referer = request.headers[.referer], var url = URLComponents(string: referer), url.path.hasPrefix(OperatorConsole.path) else {
            return OperatorConsole.path
        }
        // What the page said it had done is not worth saying again.
        url.queryItems = url.queryItems?.filter { $0.name != "done" }
        return url.path + (url.percentEncodedQuery.flatMap { $0.isEmpty ? nil : "?" + $0 } ?? "")
    }
}
