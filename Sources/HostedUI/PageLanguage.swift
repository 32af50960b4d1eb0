import FaceFrame
import Foundation
import HTTPTypes
import Hummingbird
import IdentityCore
import Localization

/// The language of each request to the hosted pages: `?lang=`, then the picker's cookie,
/// then `Accept-Language`, then `branding.default_language`.
extension HostedPages {
    /// The cookie the language picker sets (an explicit `?lang=` on any page).
    var languageCookie: String { secureCookies ? "__Host-latchkey_lang" : "latchkey_lang" }

    /// How long a chosen language is remembered: a year.
    static let languageCookieLifetime = 365 * 24 * 3600

    /// The language `request` asks for.
    func language(of request: Request) -> Language {
        LanguageChoice(available: languages, fallback: branding.defaultLanguage).choose(
            query: request.uri.queryParameters["lang"].map(String.init), cookie: Cookies.value(languageCookie, in: request),
            acceptLanguage: request.headers[.acceptLanguage]
        )
    }

    /// The words for `request`: in the language ``RequestLanguageMiddleware`` chose for it
    /// (the pages and their calls run inside it), else chosen now.
    func strings(for request: Request) -> Strings { catalog.strings(RequestLanguage.current ?? language(of: request)) }

    /// The cookie that remembers a language picked with `?lang=`, when the request picked one
    /// there is strings for.
    func languageCookieUpdate(for request: Request) -> String? {
        guard let asked = request.uri.queryParameters["lang"], let language = Language.matching(String(asked), among: languages) else {
            return nil
        }
        guard Cookies.value(languageCookie, in: request) != language.tag else { return nil }
        return Cookies.setCookie(languageCookie, language.tag, maxAge: Self.languageCookieLifetime, sameSite: "Lax", secure: secureCookies)
    }

    /// The shared frame of a page for `request`, in its language, with the picker set to
    /// come back to the same page.
    func layout(_ request: Request, _ t: Strings, title: String, page: String, csrfToken: String, data: [String: String] = [:], signedIn: Bool = false) -> PageLayout {
        // Hummingbird decodes `%XX` but leaves a `+` as it is: a form's `+` is a space, and
        // sent back as written it would arrive as a plus sign.
        func decoded(_ text: Substring) -> String { String(text).replacingOccurrences(of: "+", with: " ") }
        let query = request.uri.queryParameters.filter { $0.key != "lang" }.map { (name: decoded($0.key), value: decoded($0.value)) }
        let picker = LanguagePicker(languages: languageNames, path: request.uri.path, query: query)
        return PageLayout(
            title: title, branding: branding, siteName: siteName, page: page, csrfToken: csrfToken, t: t, picker: picker,
            dataAttributes: data, signedIn: signedIn
        )
    }
}

/// Sets ``RequestLanguage/current`` for the rest of the request, so that an email a
/// hosted page's call causes (a recovery code) is written in the page's language; and puts
/// the language on the request's origin, so that a mail that follows an audit event (the
/// sign-up's verification code, sent after the commit) is written in it too.
struct RequestLanguageMiddleware<Context: OriginRequestContext>: RouterMiddleware {
    let pages: HostedPages

    @concurrent func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        let language = pages.language(of: request)
        var context = context
        context.origin?.language = language.tag
        return try await RequestLanguage.$current.withValue(language) {
            try await next(request, context)
        }
    }
}
