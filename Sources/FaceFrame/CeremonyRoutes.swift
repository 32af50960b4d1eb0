public import Hummingbird
public import IdentityCore

/// A face's route groups: every route of the face, under its error renderer, and the
/// sub-groups its ceremony routes are added to, limited by the group they are in.
public struct FaceRoutes<Context: OriginRequestContext> {
    /// Every route of the face.
    public let all: RouterGroup<Context>
    /// Routes that start a ceremony (see ``RouterGroup/ceremonyStarts(_:renderer:)``).
    public let starts: RouterGroup<Context>
    /// Routes that finish one (see ``RouterGroup/ceremonyFinishes(_:renderer:)``).
    public let finishes: RouterGroup<Context>
    /// Routes that finish one with a single ``CeremonyCompletion`` carrying the context's
    /// failed-finish check (see ``RouterGroup/ceremonyCompletions(_:renderer:)``).
    public let completions: RouterGroup<Context>
}

extension RouterMethods where Context: OriginRequestContext {
    /// The route groups of a face under `path`: its errors rendered by `renderer`, its
    /// ceremony steps counted against `limits`.
    public func face<Renderer: FaceErrorRenderer>(_ path: RouterPath = "", renderer: Renderer, limits: RateLimits?) -> FaceRoutes<Context> {
        let all = group(path).add(middleware: ErrorRenderingMiddleware<Context, Renderer>(renderer))
        return FaceRoutes(
            all: all, starts: all.ceremonyStarts(limits, renderer: renderer), finishes: all.ceremonyFinishes(limits, renderer: renderer),
            completions: all.ceremonyCompletions(limits, renderer: renderer)
        )
    }
}

extension RouterGroup where Context: OriginRequestContext {
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

    /// A group for the routes that finish a login or sign-up: limited as
    /// ``ceremonyFinishes(_:renderer:)``, their handlers handing the context's failed-finish
    /// check to the completion they write.
    public func ceremonyCompletions<Renderer: FaceErrorRenderer>(_ limits: RateLimits?, renderer: Renderer) -> RouterGroup<Context> {
        group().add(middleware: RateLimitMiddleware<Context, Renderer>(limits, .completion, renderer: renderer))
    }
}

/// On a group whose `GET` routes create state (a flow, a ceremony, a code, a sign-out), a
/// `HEAD`, which the router would otherwise answer by running the `GET`, is refused with
/// `405` and `Allow: GET` in the face's envelope: a `HEAD` must not change anything
/// (RFC 9110 §9.2.1), and one the limits did not see must not start anything.
public struct StateCreatingRoutesMiddleware<Context: RequestContext>: RouterMiddleware {
    public init() {}

    @concurrent public func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .head else { return try await next(request, context) }
        throw IdentityError(.methodNotAllowed, "HEAD is not answered here: a GET of this path starts something; send GET")
    }
}
