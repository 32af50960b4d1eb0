import FaceFrame
import Foundation
import HTTPTypes
import Hummingbird
import IdentityCore
import Localization
import Logging
import NIOCore

/// How the hosted pages answer: HTML with a strict Content Security Policy, redirects, and
/// the error page (which `PageErrorMiddleware` shows in place of a bare 500).
enum PageResponses {
    /// Scripts and styles from this server only; provider icons are data URIs; no framing.
    static let contentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

    static func html(_ body: String, status: HTTPResponse.Status = .ok, language: Language? = nil, setCookies: [String] = []) -> Response {
        var headers: HTTPFields = [
            .contentType: "text/html; charset=utf-8",
            .cacheControl: "no-store",
            .contentSecurityPolicy: contentSecurityPolicy,
            HTTPField.Name("X-Content-Type-Options")!: "nosniff",
            // The authorization request's parameters stay on this server.
            HTTPField.Name("Referrer-Policy")!: "same-origin",
        ]
        if let language { headers[.contentLanguage] = language.tag }
        for cookie in setCookies { headers.append(HTTPField(name: .setCookie, value: cookie)) }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    static func redirect(_ location: String, status: HTTPResponse.Status = .found, setCookies: [String] = []) -> Response {
        var headers: HTTPFields = [.location: location, .cacheControl: "no-store"]
        for cookie in setCookies { headers.append(HTTPField(name: .setCookie, value: cookie)) }
        return Response(status: status, headers: headers)
    }

    /// The error page, for failures the person must see rather than be redirected with, in
    /// the request's language (`details`: the server's own words, for developers).
    static func errorPage(
        _ pages: HostedPages, _ request: Request, title: String, message: String, code: String, details: String? = nil, status: HTTPResponse.Status
    ) -> Response {
        let t = pages.strings(for: request)
        let layout = pages.layout(request, t, title: title, page: "error", csrfToken: pages.csrfToken(for: request).token)
        return html(
            layout.render(Pages.error(t, title: title, message: message, code: code, details: details)), status: status, language: t.language,
            setCookies: pages.languageCookieUpdate(for: request).map { [$0] } ?? []
        )
    }
}
