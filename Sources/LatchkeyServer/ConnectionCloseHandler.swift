import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Closes a connection once a response that says `Connection: close` has been written.
///
/// The HTTP server would otherwise read on after the response: it drains the rest of a
/// refused body however large (so a client can stream gigabytes after a `413`), or waits
/// for the client to close first. The faces say `Connection: close` exactly when they
/// did not read the whole body (too large, or a malformed chunked encoding).
final class ConnectionCloseHandler: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private var closesAfterResponse = false

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            if head.headerFields[.connection]?.lowercased() == "close" { closesAfterResponse = true }
            context.write(data, promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            guard closesAfterResponse else { return context.write(data, promise: promise) }
            let written = context.writeAndFlush(data)
            written.cascade(to: promise)
            written.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }
}
