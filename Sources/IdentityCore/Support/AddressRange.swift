import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An IP address or CIDR range (`10.0.0.0/8`, `::1`, `fd00::/8`), for `server.trusted_proxies`;
/// and what the per-address limits count an address under (``limitKey(_:ipv6PrefixLength:)``).
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
        network = Self.masked(bytes, prefixLength: prefixLength)
    }

    /// Whether `address` falls in the range. An IPv4 range also holds the IPv4-mapped IPv6
    /// form of its addresses (`::ffff:127.0.0.1`), which is how a dual-stack socket reports an
    /// IPv4 peer.
    public func contains(_ address: String) -> Bool {
        guard var bytes = Self.bytes(address) else { return false }
        if bytes.count == 16, network.count == 4, let mapped = Self.mappedIPv4(bytes) { bytes = mapped }
        guard bytes.count == network.count else { return false }
        return Self.masked(bytes, prefixLength: prefixLength) == network
    }

    /// The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, RFC 4291
    /// §2.5.5.2), however it is written (`::ffff:7f00:1` too).
    static func mappedIPv4(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF else { return nil }
        return Array(bytes[12...])
    }

    /// Whether `address` is this machine's: `127.0.0.0/8`, `::1`, or the IPv4-mapped form of
    /// a `127.` address. Anything that is not an address (`unknown`) is not.
    public static func isLoopback(_ address: String) -> Bool {
        loopback.contains { $0.contains(address) }
    }

    private static let loopback = ["127.0.0.0/8", "::1/128"].compactMap(AddressRange.init)

    /// Whether `text` is an IPv4 or IPv6 address.
    public static func isAddress(_ text: String) -> Bool { bytes(text) != nil }

    /// What the per-address limits count `address` under: an IPv4 address as it is; an IPv6
    /// address by its first `ipv6PrefixLength` bits (`2001:db8:1:2::/64`), because one host
    /// commonly holds a whole /64 and could otherwise take a new address for every request.
    /// An IPv4-mapped IPv6 address counts as its IPv4 address; anything else as written.
    public static func limitKey(_ address: String, ipv6PrefixLength: Int) -> String {
        // Most clients are IPv4: no parse for them.
        guard address.utf8.contains(UInt8(ascii: ":")), let bytes = bytes(address), bytes.count == 16 else { return address }
        if let mapped = mappedIPv4(bytes) { return mapped.map(String.init).joined(separator: ".") }
        let length = min(max(ipv6PrefixLength, 0), 128)
        guard length < 128 else { return address }
        return format(masked(bytes, prefixLength: length)) + "/\(length)"
    }

    /// `bytes` with every bit after the first `prefixLength` cleared.
    private static func masked(_ bytes: [UInt8], prefixLength: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let bits = prefixLength - index * 8
            return byte & (bits >= 8 ? 0xFF : bits <= 0 ? 0 : ~(0xFF >> UInt8(bits)))
        }
    }

    /// An IPv6 address in its canonical text (inet_ntop).
    private static func format(_ bytes: [UInt8]) -> String {
        var address = in6_addr()
        withUnsafeMutableBytes(of: &address) { $0.copyBytes(from: bytes) }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &address, &text, socklen_t(text.count)) != nil else { return bytes.map { String($0, radix: 16) }.joined(separator: ":") }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The address's bytes: 4 for IPv4, 16 for IPv6 (inet_pton, so no hand-written parser).
    static func bytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }
}
