import IdentityCore
import NIOCore
import Synchronization

/// Counts open connections, overall and per client address, so that a flood of idle or
/// slow connections cannot exhaust the process's files (at the common 1,024 limit, 1,200
/// connections used to block every sign-in and leave the accept loop spinning).
///
/// One address over its own limit is refused at accept. When the server as a whole is
/// full, the oldest connection makes room for the new one: a flood from many addresses
/// then only pushes its own connections out (the oldest are the flood's, held open on
/// purpose), while a person's new connection, which finishes its request in milliseconds,
/// gets in. Refusing newcomers instead would let held connections lock everyone out.
final class ConnectionLimiter: Sendable {
    private struct Entry {
        let channel: any Channel
        let address: String
    }

    private struct State {
        var byAddress: [String: Int] = [:]
        /// Admitted connections by admission order (a lower number is older).
        var open: [UInt64: Entry] = [:]
        var next: UInt64 = 0
    }

    private let state = Mutex(State())
    private let maximum: Int
    private let maximumPerAddress: Int
    /// How many leading bits of an IPv6 address are one address here.
    let ipv6PrefixLength: Int

    init(maximum: Int, maximumPerAddress: Int, ipv6PrefixLength: Int = 64) {
        self.maximum = maximum
        self.maximumPerAddress = maximumPerAddress
        self.ipv6PrefixLength = ipv6PrefixLength
    }

    /// Counts a new connection from `address`: `nil` when its address is at its limit,
    /// else its ticket, after closing the oldest connection when the server is full.
    func admit(_ channel: any Channel, from address: String) -> UInt64? {
        let (ticket, evicted) = state.withLock { state -> (UInt64?, (any Channel)?) in
            guard state.byAddress[address, default: 0] < maximumPerAddress else { return (nil, nil) }
            var evicted: (any Channel)?
            if state.open.count >= maximum, let oldest = state.open.keys.min(), let entry = state.open.removeValue(forKey: oldest) {
                Self.forget(entry.address, in: &state)
                evicted = entry.channel
            }
            guard state.open.count < maximum else { return (nil, evicted) }
            let ticket = state.next
            state.next += 1
            state.open[ticket] = Entry(channel: channel, address: address)
            state.byAddress[address, default: 0] += 1
            return (ticket, evicted)
        }
        evicted?.close(mode: .all, promise: nil)
        return ticket
    }

    /// Forgets a connection that `admit` counted (nothing when it was evicted already).
    func release(_ ticket: UInt64) {
        state.withLock { state in
            guard let entry = state.open.removeValue(forKey: ticket) else { return }
            Self.forget(entry.address, in: &state)
        }
    }

    private static func forget(_ address: String, in state: inout State) {
        let remaining = state.byAddress[address, default: 1] - 1
        state.byAddress[address] = remaining > 0 ? remaining : nil
    }

    /// The handler that admits one connection: it closes the connection at once when its
    /// address is at its limit, and releases its place when the connection goes away.
    func handler() -> ConnectionLimitHandler { ConnectionLimitHandler(limiter: self) }
}

/// One connection's place in the ``ConnectionLimiter``.
final class ConnectionLimitHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let limiter: ConnectionLimiter
    private var ticket: UInt64?

    fileprivate init(limiter: ConnectionLimiter) { self.limiter = limiter }

    func handlerAdded(context: ChannelHandlerContext) {
        // Unix-socket or unknown peers share one count; an IPv6 host counts by its prefix.
        let address = AddressRange.limitKey(context.channel.remoteAddress?.ipAddress ?? "unknown", ipv6PrefixLength: limiter.ipv6PrefixLength)
        if let ticket = limiter.admit(context.channel, from: address) {
            self.ticket = ticket
        } else {
            context.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if let ticket { limiter.release(ticket) }
        ticket = nil
    }
}
