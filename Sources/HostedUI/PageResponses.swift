import Foundation
import HTTPAPI
import HTTPTypes
import Hummingbird
import IdentityCore
import Logging
import NIOCore

/// How the hosted pages answer: HTML with a strict Content Security Policy, redirects, and
/// an error page in place of a bare 500.
enum PageResponses {
    /// Scripts and styles from this server only; provider icons are data URIs; no framing.
    static let contentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

    static func html(_ body: String, status: HTTPResponse.Status = .ok, setCookies: [String] = []) -> Response {
        var headers: HTTPFields = [
            .contentType: "text/html; charset=utf-8",
            .cacheControl: "no-store",
            .contentSecurityPolicy: contentSecurityPolicy,
            HTTPField.Name("X-Content-Type-Options")!: "nosniff",
            // The authorization request's parameters stay on this server.
            HTTPField.Name("Referrer-Policy")!: "same-origin",
        ]
        for cookie in setCookies { headers.append(HTTPField(name: .setCookie, value: cookie)) }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    static func redirect(_ location: String, setCookies: [String] = []) -> Response {
        var headers: HTTPFields = [.location: location, .cacheControl: "no-store"]
        for cookie in setCookies { headers.append(HTTPField(name: .setCookie, value: cookie)) }
        return Response(status: .found, headers: headers)
    }

    /// The error page, for failures the person must see rather than be redirected with.
    static func errorPage(_ pages: HostedPages, csrfToken: String, title: String, message: String, code: String, status: HTTPResponse.Status) -> Response {
        let layout = PageLayout(title: title, siteName: pages.relyingPartyName, page: "error", csrfToken: csrfToken)
        return html(layout.render(Pages.error(title: title, message: message, code: code)), status: status)
    }

    /// Runs a page handler; anything unexpected becomes a logged, generic error page.
    static func page(_ pages: HostedPages, _ request: Request, _ context: some RequestContext, _ handler: () async throws -> Response) async -> Response {
        do {
            return try await handler()
        } catch let error as StorageUnavailable {
            context.logger.warning("storage unavailable", metadata: ["path": "\(request.uri.path)", "reason": "\(error.reason)"])
            var response = errorPage(
                pages, csrfToken: pages.csrfToken(for: request).token, title: "Busy right now",
                message: "The service is busy. Nothing was changed; try again in a few seconds.", code: "temporarily_unavailable", status: .serviceUnavailable
            )
            response.headers[.retryAfter] = "5"
            return response
        } catch {
            context.logger.error("hosted page failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            let message = (error as? IdentityError)?.message ?? "The server could not show this page. Try again in a moment."
            return errorPage(
                pages, csrfToken: pages.csrfToken(for: request).token, title: "Something went wrong", message: message, code: "server_error",
                status: (error as? IdentityError)?.status ?? .internalServerError
            )
        }
    }
}
