import HTTPAPI
import HTTPTypes
public import Hummingbird
import IdentityCore

/// A path nothing serves gets a real answer instead of an empty 404: a page, in the hosted
/// pages' layout, for a browser (`Accept: text/html`), and the Authentication API's JSON
/// envelope for everything else. Faces that answer their own unrouted paths (IDaaS's
/// `ErrorInfo`) do so inside their route groups, before this sees anything.
public struct NotFoundMiddleware: RouterMiddleware {
    public typealias Context = BasicRequestContext
    let pages: HostedPages

    /// Creates the middleware.
    public init(pages: HostedPages) {
        self.pages = pages
    }

    @concurrent public func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            if request.headers[.accept]?.contains("text/html") == true, request.method == .get || request.method == .head {
                let layout = PageLayout(
                    title: "Page not found", siteName: pages.relyingPartyName, page: "not-found", csrfToken: pages.csrfToken(for: request).token
                )
                return PageResponses.html(layout.render(Pages.notFound(path: request.uri.path)), status: .notFound)
            }
            return AuthenticationAPIErrors().response(
                for: IdentityError(.notFound, "nothing is served at \(request.method.rawValue) \(String(request.uri.path.prefix(200)))")
            )
        }
    }
}
