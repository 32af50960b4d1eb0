import Foundation
import HTTPTypes
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

    static let header = HTTPField.Name("X-Latchkey-Client-Address")!
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

    private func clientAddress(peer: String, head: HTTPRequest) -> String {
        guard trustedProxies.contains(where: { $0.contains(peer) }) else { return peer }
        let hops = head.headerFields[values: Self.forwardedFor]
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        for hop in hops.reversed() where !trustedProxies.contains(where: { $0.contains(hop) }) {
            return AddressRange.isAddress(hop) ? hop : peer
        }
        return hops.first.flatMap { AddressRange.isAddress($0) ? $0 : nil } ?? peer
    }
}

/// An IP address or CIDR range (`10.0.0.0/8`, `::1`, `fd00::/8`), for `server.trusted_proxies`.
public struct AddressRange: Sendable, Equatable {
    private let network: [UInt8]
    private let prefixLength: Int

    /// Parses `text`; `nil` when it is neither an address nor a range.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let bytes = Self.bytes(String(parts[0])) else { return nil }
        let bits = bytes.count * 8
        if parts.count == 2 {
            guard let length = Int(parts[1]), (0...bits).contains(length) else { return nil }
            prefixLength = length
        } else {
            prefixLength = bits
        }
        network = bytes
    }

    /// Whether `address` falls in the range.
    public func contains(_ address: String) -> Bool {
        guard let bytes = Self.bytes(address), bytes.count == network.count else { return false }
        var remaining = prefixLength
        for (byte, networkByte) in zip(bytes, network) where remaining > 0 {
            let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
            guard byte & mask == networkByte & mask else { return false }
            remaining -= 8
        }
        return true
    }

    static func isAddress(_ text: String) -> Bool { bytes(text) != nil }

    /// The address's bytes: 4 for IPv4, 16 for IPv6 (inet_pton, so no hand-written parser).
    private static func bytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }
}
