import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A minimal HTTP/1.1 client on one keep-alive connection, with blocking I/O on the calling
/// thread. The benchmark measures the server, so its client must cost far less than the
/// server per request; URLSession costs about as much as the server does for a cheap
/// request. This reads exactly what Latchkey sends: a status line, headers, and a body of
/// `Content-Length` bytes.
final class HTTPConnection {
    struct Response {
        let status: Int
        let headers: [(String, String)]
        let body: [UInt8]

        func header(_ name: String) -> String? {
            headers.first { $0.0.caseInsensitiveCompare(name) == .orderedSame }?.1
        }

        /// The body as a JSON object.
        func json() throws -> [String: Any] {
            guard let object = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
                throw BenchmarkError("the body is not a JSON object: \(String(decoding: body.prefix(200), as: UTF8.self))")
            }
            return object
        }
    }

    private let socket: Int32
    private var buffer: [UInt8] = []
    private let host: String

    /// Connects to `127.0.0.1:port`.
    init(port: Int) throws {
        host = "localhost:\(port)"
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw BenchmarkError("socket() failed: \(errno)") }
        var noDelay: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw BenchmarkError("connect() failed: \(errno)") }
    }

    deinit { close(socket) }

    /// Sends a request and reads its response.
    func send(_ method: String, _ path: String, headers: [(String, String)] = [], json body: [UInt8]? = nil) throws -> Response {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host)\r\nAccept: application/json\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n" }
        head += "\r\n"
        var bytes = Array(head.utf8)
        if let body { bytes += body }
        try writeAll(bytes)
        return try readResponse()
    }

    /// Sends a JSON object.
    func send(_ method: String, _ path: String, headers: [(String, String)] = [], object: [String: Any]) throws -> Response {
        try send(method, path, headers: headers, json: Array(try JSONSerialization.data(withJSONObject: object)))
    }

    private func writeAll(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { write(socket, $0.baseAddress, $0.count) }
            guard count > 0 else { throw BenchmarkError("write() failed: \(errno)") }
            sent += count
        }
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { read(socket, $0.baseAddress, $0.count) }
        guard count > 0 else { throw BenchmarkError("the server closed the connection") }
        buffer += chunk[..<count]
    }

    private func readResponse() throws -> Response {
        let separator: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while headEnd == nil {
            if let found = buffer.firstRange(of: separator) { headEnd = found.lowerBound } else { try fill() }
        }
        let head = String(decoding: buffer[..<headEnd!], as: UTF8.self)
        buffer.removeFirst(headEnd! + 4)
        let lines = head.components(separatedBy: "\r\n")
        guard let statusLine = lines.first, statusLine.hasPrefix("HTTP/1.1 "), let status = Int(statusLine.dropFirst(9).prefix(3)) else {
            throw BenchmarkError("not an HTTP response: \(head.prefix(100))")
        }
        var headers: [(String, String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        let length = headers.first { $0.0.lowercased() == "content-length" }.flatMap { Int($0.1) } ?? 0
        while buffer.count < length { try fill() }
        let body = Array(buffer.prefix(length))
        buffer.removeFirst(length)
        return Response(status: status, headers: headers, body: body)
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
