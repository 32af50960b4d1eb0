import FaceFrame
import Foundation
import HTTPTypes
import Hummingbird
import IdentityCore
import NIOCore
import WebAuthn

extension HostedPages {
    /// CSRF protection for every state-changing call: the request must come from the hosted
    /// pages' own origin (Origin and Fetch Metadata, where the browser sends them) and carry
    /// the page's token in `X-CSRF-Token`, equal to the cookie that came with the page
    /// (a double submit: another site can neither read the cookie nor set the header).
    func checkCSRF(_ request: Request) throws {
        if let origin = request.headers[.origin], origin.lowercased() != publicOrigin {
            throw Self.csrfFailure("this request came from \(origin.prefix(100)), not from \(publicOrigin)")
        }
        if let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!], site != "same-origin" {
            throw Self.csrfFailure("this request came from another site (\(site.prefix(20)))")
        }
        guard let cookie = Cookies.value(csrfCookie, in: request), !cookie.isEmpty,
            let header = request.headers[HTTPField.Name("X-CSRF-Token")!], header == cookie
        else {
            throw Self.csrfFailure("the page's security token is missing or stale; reload the page and try again")
        }
    }

    private static func csrfFailure(_ message: String) -> IdentityError {
        IdentityError(.accessDenied, message, reason: .csrfCheckFailed)
    }

    /// The CSRF token a page embeds, and the cookie to set when the browser has none yet.
    func csrfToken(for request: Request) -> (token: String, setCookie: String?) {
        if let existing = Cookies.value(csrfCookie, in: request), existing.utf8.count == 43, Base64URL.decode(existing) != nil {
            return (existing, nil)
        }
        let token = Base64URL.encode(random.bytes(32))
        return (token, Cookies.setCookie(csrfCookie, token, maxAge: nil, sameSite: "Strict", secure: secureCookies))
    }
}

/// Where to go after signing in: only a path on this server, so that `return_to` cannot
/// send a person to another site.
enum ReturnTo {
    static let fallback = "/account"

    static func validated(_ text: String?) -> String {
        guard let text, !text.isEmpty, text.utf8.count <= 4096, text.hasPrefix("/"), !text.hasPrefix("//"), !text.hasPrefix("/\\"),
            !text.unicodeScalars.contains(where: { $0.value < 0x21 || $0 == "\\" || $0.value == 0x7F })
        else { return fallback }
        return text
    }

    /// The login page that comes back to `path`.
    static func loginURL(returningTo path: String) -> String {
        "/login?return_to=" + (path.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~/"))) ?? "")
    }
}

/// Query strings, read strictly: a repeated parameter is an error (OAuth 2.1 §3.1).
enum QueryString {
    static func parameters(of request: Request, reader: RequestBodyReader) throws -> [String: String] {
        guard let query = request.uri.query, !query.isEmpty else { return [:] }
        return try reader.form(from: ByteBuffer(string: query))
    }
}
