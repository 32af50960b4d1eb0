public import Hummingbird
public import IdentityCore
public import Logging

/// How one API face writes its errors: each face has its own envelope (Auth0's
/// `{error, error_description}`, RFC 9457 problem details, Kratos's `{"error": {…}}`,
/// IDaaS's `ErrorInfo`), and handlers only throw.
public protocol FaceErrorRenderer: Sendable {
    /// The response for a typed failure.
    func response(for error: IdentityError) -> Response
    /// The response for a failure the face did not expect: logged, never detailed to the
    /// client, and never a bare 500 without a body in the face's format.
    func unexpected(_ error: any Error, logger: Logger) -> Response
    /// The response for one of the face's own error types, or `nil` when `error` is not one.
    func faceResponse(for error: any Error) -> Response?
}

extension FaceErrorRenderer {
    public func faceResponse(for error: any Error) -> Response? { nil }
}

/// Renders whatever a face's handlers throw in that face's envelope. Installed once per
/// face's route group, so no handler formats an error response by hand.
public struct ErrorRenderingMiddleware<Context: RequestContext, Renderer: FaceErrorRenderer>: RouterMiddleware {
    let renderer: Renderer

    /// Creates the middleware.
    public init(_ renderer: Renderer) { self.renderer = renderer }

    @concurrent public func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as IdentityError {
            var response = renderer.response(for: error)
            // The rest of a body that was too large or unreadable is never read: the
            // connection closes once the answer is written (ConnectionCloseHandler).
            if error.reason == .bodyTooLarge || error.reason == .unreadableBody { response.headers[.connection] = "close" }
            if case .rateLimited(let retryAfter) = error.reason { response.headers[.retryAfter] = String(retryAfter) }
            return response
        } catch let error as StorageUnavailable {
            // Busy, locked, full or unreachable: nothing was written, and a retry may work.
            context.logger.warning("storage unavailable", metadata: ["reason": "\(error.reason)"])
            var response = renderer.response(for: IdentityError(.temporarilyUnavailable, "the service is busy; nothing was changed; try again in a few seconds"))
            response.headers[.retryAfter] = "5"
            return response
        } catch let error as any HTTPResponseError where error.status == .notFound || error.status == .methodNotAllowed {
            // The router's own refusals (an unmatched sub-route) keep the face's envelope.
            return renderer.response(for: IdentityError(.notFound, "no such endpoint"))
        } catch {
            return renderer.faceResponse(for: error) ?? renderer.unexpected(error, logger: context.logger)
        }
    }
}

/// Renders, in a face's envelope, the router's own refusal of a path under the face's
/// prefix that no route matches (or a method its route does not take): such requests
/// never reach the face's route groups, so their error middleware cannot. Added to the
/// router as a whole, it lets every other path pass untouched.
public struct UnroutedPathMiddleware<Context: RequestContext, Renderer: FaceErrorRenderer>: RouterMiddleware {
    let prefix: String
    let renderer: Renderer

    /// Creates the middleware for paths starting with `prefix`.
    public init(prefix: String, renderer: Renderer) {
        self.prefix = prefix
        self.renderer = renderer
    }

    @concurrent public func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        guard request.uri.path.hasPrefix(prefix) else { return try await next(request, context) }
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError where error.status == .notFound || error.status == .methodNotAllowed {
            return renderer.response(for: IdentityError(.notFound, "no endpoint has this path and method"))
        }
    }
}
