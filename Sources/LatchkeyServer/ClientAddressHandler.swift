import FaceFrame
import Foundation
import HTTPAPI
import HTTPTypes
import IdentityCore
import NIOCore
import NIOHTTPTypes

/// Writes the client's address into each request as `X-Latchkey-Client-Address`, for the
/// rate limits: the socket's peer, or, when the peer is one of `server.trusted_proxies`, the
/// nearest address in `X-Forwarded-For` that is not a trusted proxy (RFC 7239 §7.4: only the
/// hops one trusts can be believed). A client-sent header of that name is removed first, so
/// it cannot be forged.
final class ClientAddressHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    static let header = ClientAddressHeader.name
    private static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    private let trustedProxies: [AddressRange]

    init(trustedProxies: [AddressRange]) {
        self.trustedProxies = trustedProxies
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        head.headerFields[Self.header] = nil
        head.headerFields[Self.header] = clientAddress(peer: peer(context), head: head)
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    /// The connection's peer, formatted once: a keep-alive connection's requests all come
    /// from it, and formatting an address is a system call's worth of work per request.
    private var connectionPeer: String?

    private func peer(_ context: ChannelHandlerContext) -> String {
        if let connectionPeer { return connectionPeer }
        let peer = context.channel.remoteAddress?.ipAddress ?? "unknown"
        connectionPeer = peer
        return peer
    }

    /// What a request whose forwarded address cannot be read is counted as: not the proxy
    /// (whose bucket its other clients share, and which the Admin API admits when it is on
    /// loopback), but a client of its own that no address rule admits.
    static let unknownClient = "unknown"

    private func clientAddress(peer: String, head: HTTPRequest) -> String {
        guard trustedProxies.contains(where: { $0.contains(peer) }) else { return peer }
        let hops = head.headerFields[values: Self.forwardedFor]
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        guard !hops.isEmpty else { return peer }
        // Right to left: the first hop that is not a trusted proxy is the client. A hop that is
        // not an address on the way there means the chain cannot be believed past it.
        for written in hops.reversed() {
            let hop = Self.address(written)
            guard AddressRange.isAddress(hop) else { return Self.unknownClient }
            if !trustedProxies.contains(where: { $0.contains(hop) }) { return hop }
        }
        return Self.address(hops[0])
    }

    /// A hop as some proxies write it, with a port (`203.0.113.9:5678`, `[2001:db8::1]:443`)
    /// or in brackets, reduced to its address.
    static func address(_ hop: String) -> String {
        if hop.hasPrefix("["), let close = hop.firstIndex(of: "]") { return String(hop[hop.index(after: hop.startIndex)..<close]) }
        let colons = hop.filter { $0 == ":" }.count
        if colons == 1, let colon = hop.firstIndex(of: ":") { return String(hop[..<colon]) }
        return hop
    }
}
