import NIOCore
import Synchronization

/// Counts open connections, overall and per client address, so that a flood of idle or
/// slow connections is refused at accept instead of exhausting the process's files (at
/// the common 1,024 limit, 1,200 connections from one client used to block every sign-in
/// and leave the accept loop spinning).
final class ConnectionLimiter: Sendable {
    private struct Counts {
        var total = 0
        var byAddress: [String: Int] = [:]
    }

    private let counts = Mutex(Counts())
    private let maximum: Int
    private let maximumPerAddress: Int

    init(maximum: Int, maximumPerAddress: Int) {
        self.maximum = maximum
        self.maximumPerAddress = maximumPerAddress
    }

    /// Counts a new connection from `address`, or refuses it when either limit is reached.
    func admit(_ address: String) -> Bool {
        counts.withLock { counts in
            guard counts.total < maximum, counts.byAddress[address, default: 0] < maximumPerAddress else { return false }
            counts.total += 1
            counts.byAddress[address, default: 0] += 1
            return true
        }
    }

    /// Forgets a connection that `admit` counted.
    func release(_ address: String) {
        counts.withLock { counts in
            counts.total -= 1
            let remaining = counts.byAddress[address, default: 1] - 1
            counts.byAddress[address] = remaining > 0 ? remaining : nil
        }
    }

    /// The handler that admits one connection: it closes the connection at once when a
    /// limit is reached, and releases its count when the connection goes away.
    func handler() -> ConnectionLimitHandler { ConnectionLimitHandler(limiter: self) }
}

/// One connection's place in the ``ConnectionLimiter``.
final class ConnectionLimitHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let limiter: ConnectionLimiter
    private var admittedAddress: String?

    fileprivate init(limiter: ConnectionLimiter) { self.limiter = limiter }

    func handlerAdded(context: ChannelHandlerContext) {
        // Unix-socket or unknown peers share one count.
        let address = context.channel.remoteAddress?.ipAddress ?? "unknown"
        if limiter.admit(address) {
            admittedAddress = address
        } else {
            context.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if let admittedAddress { limiter.release(admittedAddress) }
        admittedAddress = nil
    }
}
