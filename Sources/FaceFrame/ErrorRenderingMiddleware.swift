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

    /// The face's answer to anything a handler (or a middleware inside the face) threw: a
    /// typed failure in the face's envelope with the headers its reason calls for, an
    /// unavailable database as a `503` with `Retry-After`, the router's own refusals as the
    /// face's `404`, the face's own error types, and anything else as a logged `500`.
    public func render(_ error: any Error, logger: Logger) -> Response {
        switch error {
        case let error as IdentityError:
            var response = response(for: error)
            // The rest of a body that was too large or unreadable is never read: the
            // connection closes once the answer is written (ConnectionCloseHandler).
            if error.reason == .bodyTooLarge || error.reason == .unreadableBody { response.headers[.connection] = "close" }
            if let retryAfter = error.retryAfter { response.headers[.retryAfter] = String(retryAfter) }
            if error.code == .methodNotAllowed { response.headers[.allow] = "GET" }
            return response
        case let error as StorageUnavailable:
            // Busy, locked, full or unreachable: nothing was written, and a retry may work.
            logger.warning("storage unavailable", metadata: ["reason": "\(error.reason)"])
            var response = response(for: IdentityError(.temporarilyUnavailable, "the service is busy; nothing was changed; try again in a few seconds"))
            response.headers[.retryAfter] = "5"
            return response
        case let error as any HTTPResponseError where error.status == .notFound || error.status == .methodNotAllowed:
            // The router's own refusals (an unmatched sub-route) keep the face's envelope.
            return response(for: IdentityError(.notFound, "no such endpoint"))
        default:
            return faceResponse(for: error) ?? unexpected(error, logger: logger)
        }
    }
}

/// Renders whatever a face's handlers throw in that face's envelope. Installed once per
/// face's route group, so no handler formats an error response by hand.
public struct ErrorRenderingMiddleware<Context: RequestContext, Renderer: FaceErrorRenderer>: RouterMiddleware {
    let renderer: Renderer

    public init(_ renderer: Renderer) { self.renderer = renderer }

    @concurrent public func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            return renderer.render(error, logger: context.logger)
        }
    }
}
