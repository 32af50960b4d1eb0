import Foundation
import Hummingbird
import Logging

/// The request log (`logging.requests: true`): one line per request after its response, with
/// the method, the path without its query (queries can carry codes and tokens), the status and
/// the time taken. Hummingbird's `LogRequestsMiddleware` logs before the response, so it
/// cannot say how a request ended.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    @concurrent func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        do {
            let response = try await next(request, context)
            log(request, context, status: response.status.code, since: started)
            return response
        } catch {
            log(request, context, status: (error as? any HTTPResponseError)?.status.code ?? 500, since: started)
            throw error
        }
    }

    private func log(_ request: Request, _ context: Context, status: Int, since started: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - started
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        context.logger.info(
            "\(request.method.rawValue) \(request.uri.path) \(status)",
            metadata: [
                "method": .string(request.method.rawValue),
                "path": .string(request.uri.path),
                "status": .stringConvertible(status),
                "ms": .string(String(format: "%.2f", milliseconds)),
            ],
            source: "request"
        )
    }
}
