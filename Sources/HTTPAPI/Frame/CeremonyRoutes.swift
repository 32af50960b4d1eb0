public import Hummingbird
public import IdentityCore

extension RouterGroup {
    /// A group for a face's routes that start ceremonies: counted against the start limit,
    /// and, because such a `GET` creates something (a flow, a challenge), its `HEAD` is
    /// refused rather than run unseen.
    public func ceremonyStarts<Renderer: FaceErrorRenderer>(_ limits: RateLimits?, renderer: Renderer) -> RouterGroup<Context> {
        group()
            .add(middleware: StateCreatingRoutesMiddleware<Context>())
            .add(middleware: RateLimitMiddleware<Context, Renderer>(limits, .start, renderer: renderer))
    }

    /// A group for a face's routes that finish ceremonies: counted against the finish limit,
    /// and each failure against the failure limit.
    public func ceremonyFinishes<Renderer: FaceErrorRenderer>(_ limits: RateLimits?, renderer: Renderer) -> RouterGroup<Context> {
        group().add(middleware: RateLimitMiddleware<Context, Renderer>(limits, .finish, renderer: renderer))
    }
}

/// On a group whose `GET` routes create state (a flow, a ceremony, a code, a sign-out), a
/// `HEAD`, which the router would otherwise answer by running the `GET`, is refused with
/// `405` and `Allow: GET` in the face's envelope: a `HEAD` must not change anything
/// (RFC 9110 §9.2.1), and one the limits did not see must not start anything.
public struct StateCreatingRoutesMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Creates the middleware.
    public init() {}

    @concurrent public func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .head else { return try await next(request, context) }
        throw IdentityError(.methodNotAllowed, "HEAD is not answered here: a GET of this path starts something; send GET")
    }
}
