import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// A small HTTP server that gives fixed answers by path, standing in for a deployment
/// whose files are broken in a chosen way. Unknown paths get 404.
final class FixedResponseServer: @unchecked Sendable {
    struct Answer: Sendable {
        var status: HTTPResponse.Status = .ok
        var contentType: String? = "application/json"
        var location: String?
        var body: String
    }

    let port: Int
    private let task: Task<Void, any Error>

    /// The URL the doctor is pointed at; `localhost` so that it matches the RP ID.
    var url: URL { URL(string: "http://localhost:\(port)")! }

    static func start(_ answers: [String: Answer], port requestedPort: Int = 0) async throws -> FixedResponseServer {
        let router = Router()
        for (path, answer) in answers {
            router.get(RouterPath(path)) { _, _ in
                var headers: HTTPFields = [:]
                if let contentType = answer.contentType { headers[.contentType] = contentType }
                if let location = answer.location { headers[.location] = location }
                return Response(status: answer.status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: answer.body)))
            }
        }
        var logger = Logger(label: "fixed-response-server")
        logger.logLevel = .critical
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let application = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: requestedPort)),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            },
            logger: logger
        )
        // The stream ends with the server too, so that a port taken by someone else fails
        // here instead of waiting forever for a listening socket.
        let task = Task {
            defer { continuation.finish() }
            try await application.runService(gracefulShutdownSignals: [])
        }
        var port = 0
        for await bound in ports { port = bound }
        guard port != 0 else {
            let reason = await task.result.failure.map(String.init(describing:)) ?? "it stopped"
            // NIO's reason says "Address already in use" when another process took the port.
            throw TestFailure("the app server could not listen on 127.0.0.1:\(requestedPort): \(reason)")
        }
        return FixedResponseServer(port: port, task: task)
    }

    private init(port: Int, task: Task<Void, any Error>) {
        self.port = port
        self.task = task
    }

    func stop() async {
        task.cancel()
        _ = try? await task.value
    }
}

extension Result {
    /// The error, if this is a failure.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
