import IdentityCore
import NIOCore
package import Foundation
package import HTTPTypes
package import Hummingbird

/// Builds JSON responses. Every response says not to cache it: these bodies carry
/// challenges, tokens and account data.
package enum JSONResponse {
    package static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return encoder
    }()

    package static func make(_ value: some Encodable, status: HTTPResponse.Status = .ok, headers extra: HTTPFields = [:]) -> Response {
        make(bytes: (try? encoder.encode(value)) ?? Data("{}".utf8), status: status, headers: extra)
    }

    /// The same response for a body the login path writes without `JSONEncoder`.
    package static func make(_ value: some JSONWritable, status: HTTPResponse.Status = .ok, headers extra: HTTPFields = [:]) -> Response {
        var writer = JSONWriter(capacity: 1024)
        value.write(to: &writer)
        return make(bytes: writer.bytes, status: status, headers: extra)
    }

    /// The same response for a document built of Foundation values (`[String: Any]`, arrays,
    /// strings, numbers): for the few answers whose shape the receiver decides, such as a
    /// Shared Signals stream.
    package static func make(object: Any, status: HTTPResponse.Status = .ok, headers extra: HTTPFields = [:]) -> Response {
        let bytes = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return make(bytes: bytes, status: status, headers: extra)
    }

    private static func make(bytes: some Sequence<UInt8>, status: HTTPResponse.Status, headers extra: HTTPFields) -> Response {
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"]
        headers[HTTPField.Name("Pragma")!] = "no-cache"
        headers.append(contentsOf: extra)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
