import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP connection that sends exactly the bytes a test writes and reads what comes back,
/// for what no HTTP client will send: malformed chunks, missing headers, silence.
///
/// Reads block a thread, so they run on a dispatch queue: on the test process's few
/// cooperative threads they would starve the in-process servers (and every other test).
final class RawSocket: @unchecked Sendable {
    private let descriptor: Int32

    /// Connects to `127.0.0.1:port`, from `source` (another loopback address, as another
    /// client would) when given.
    init(port: Int, from source: String? = nil) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestFailure("socket() failed") }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else { close(descriptor); throw TestFailure("bind(\(source)) failed: \(errno)") }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { close(descriptor); throw TestFailure("connect() failed") }
    }

    deinit { close(descriptor) }

    /// Sends text; `false` when the server has closed the connection.
    @discardableResult
    func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// What arrives until the server closes the connection or `seconds` pass without data;
    /// and whether it closed.
    func read(for seconds: Double) async -> (text: String, closed: Bool) {
        await blockingWait { self.readBlocking(for: seconds) }
    }

    private func readBlocking(for seconds: Double) -> (text: String, closed: Bool) {
        var received: [UInt8] = []
        var timeout = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - Double(Int(seconds))) * 1_000_000))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count > 0 { received += buffer[0..<count]; continue }
            if count < 0 && errno == EINTR { continue }
            // 0: closed by the server; -1: the timeout (or a reset, which is closed too).
            let closed = count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
            return (String(decoding: received, as: UTF8.self), closed)
        }
    }

    /// What arrives until `marker` has arrived, the server closes, or `seconds` pass.
    func read(until marker: String, for seconds: Double) async -> String {
        let deadline = Date().addingTimeInterval(seconds)
        var text = ""
        while Date() < deadline, !text.contains(marker) {
            let (more, closed) = await read(for: 0.1)
            text += more
            if closed { break }
        }
        return text
    }

    /// The status code of the first response in `text`.
    static func status(_ text: String) -> Int? {
        guard text.hasPrefix("HTTP/1.1 ") else { return nil }
        return Int(text.dropFirst(9).prefix(3))
    }
}

/// A TCP socket listening on a free loopback port, for a test that plays a server by hand:
/// its descriptor (the caller closes it) and port.
func loopbackListener(backlog: Int32 = 4) -> (descriptor: Int32, port: Int) {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) } }
    listen(descriptor, backlog)
    _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) } }
    return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
}
