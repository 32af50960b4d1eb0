import HTTPTypes
public import Hummingbird
public import IdentityCore

/// The rate limit of one kind of ceremony step, on the route group of a face's endpoints that
/// take that step: every route in the group counts, whatever its path or method, so a route
/// added to the group is limited without naming it anywhere else. The client is the address
/// the server's connection handler wrote into `X-Latchkey-Client-Address`.
///
/// A refusal is answered in the face's own envelope (`429`, `Retry-After`). For finishes, the
/// answer the face renders decides whether the attempt failed (a 4xx other than 429), so a
/// face's own error types count exactly as the core's do.
public struct RateLimitMiddleware<Context: OriginRequestContext, Renderer: FaceErrorRenderer>: RouterMiddleware {
    /// The step a group's routes take.
    public enum Step: Sendable {
        /// Starting a ceremony: a challenge, a flow, an enrollment, a sign-up.
        case start
        /// Finishing one: a token request, a flow submission, a completion.
        case finish
        /// Finishing one whose handler hands the request's failed-finish check to its
        /// ``CeremonyCompletion`` (``OriginRequestContext/failureCheck``), so that a store
        /// that can makes it in that write rather than in a round trip before the handler.
        case completion
    }

    let limits: RateLimits?
    let step: Step
    let renderer: Renderer

    /// Creates the middleware; `nil` limits, or limits that leave this step unlimited, cost
    /// nothing.
    public init(_ limits: RateLimits?, _ step: Step, renderer: Renderer) {
        self.step = step
        self.renderer = renderer
        switch step {
        case .start: self.limits = limits.flatMap { $0.startsPerWindow > 0 ? $0 : nil }
        case .finish, .completion: self.limits = limits.flatMap { $0.finishesPerWindow > 0 || $0.failuresPerWindow > 0 ? $0 : nil }
        }
    }

    @concurrent public func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        guard let limits else { return try await next(request, context) }
        let client = request.headers.firstValue(ClientAddressHeader.name) ?? "unknown"
        switch step {
        case .start:
            try await limits.admit(.start, from: client)
            return try await next(request, context)
        case .finish, .completion:
            do {
                try await limits.admit(.finish, from: client)
            } catch {
                return renderer.render(error, logger: context.logger)
            }
            guard limits.failuresPerWindow > 0 else { return try await next(request, context) }
            let response: Response
            if step == .completion, let check = limits.deferredFailureCheck(from: client) {
                // Refused while the address's failures are over their limit: checked by the
                // store within the completion's write, or here if the handler wrote nothing.
                var context = context
                context.failureCheck = check
                let answered = await respond(request, context, next)
                do {
                    try await check.makeUnlessMade()
                } catch {
                    return renderer.render(error, logger: context.logger)
                }
                response = answered
            } else {
                do {
                    try await limits.admitAfterFailures(from: client)
                } catch {
                    return renderer.render(error, logger: context.logger)
                }
                response = await respond(request, context, next)
            }
            if (400..<500).contains(response.status.code), response.status != .tooManyRequests {
                try await limits.noteFailure(from: client)
            }
            return response
        }
    }

    /// The handler's answer, its error rendered in the face's format.
    private func respond(_ request: Request, _ context: Context, _ next: @concurrent (Request, Context) async throws -> Response) async -> Response {
        do {
            return try await next(request, context)
        } catch {
            return renderer.render(error, logger: context.logger)
        }
    }
}
