import HTTPTypes
import IdentityCore
import Localization
public import FaceFrame
public import Hummingbird

/// A path nothing serves gets a real answer instead of an empty 404: a page, in the hosted
/// pages' layout, for a browser (`Accept: text/html`) asking for a path no API face claims,
/// and otherwise the envelope of the face whose path it is (IDaaS's `ErrorInfo` under
/// `/api/web/`, Kratos's error under `/self-service/`, …), the Authentication API's for the
/// rest. The same happens to a method a route does not take.
public struct NotFoundMiddleware: RouterMiddleware {
    public typealias Context = FaceRequestContext
    let pages: HostedPages
    let envelopes: FaceEnvelopes

    public init(pages: HostedPages, envelopes: FaceEnvelopes) {
        self.pages = pages
        self.envelopes = envelopes
    }

    @concurrent public func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError where error.status == .notFound || error.status == .methodNotAllowed {
            let path = request.uri.path
            if request.headers[.accept]?.contains("text/html") == true, request.method == .get || request.method == .head, !envelopes.claims(path) {
                let t = pages.strings(for: request)
                let layout = pages.layout(request, t, title: t("not_found.title"), page: "not-found", csrfToken: pages.csrfToken(for: request).token)
                return PageResponses.html(
                    layout.render(Pages.notFound(t, path: path)), status: .notFound, language: t.language,
                    setCookies: pages.languageCookieUpdate(for: request).map { [$0] } ?? []
                )
            }
            let message = "nothing is served at \(request.method.rawValue) \(String(path.prefix(200)))"
            return envelopes.renderer(for: path).response(for: IdentityError(.notFound, message))
        }
    }
}
