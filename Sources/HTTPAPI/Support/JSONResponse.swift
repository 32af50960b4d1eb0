package import Foundation
package import HTTPTypes
package import Hummingbird
import NIOCore

/// Builds JSON responses. Every response says not to cache it: these bodies carry
/// challenges, tokens and account data.
package enum JSONResponse {
    package static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return encoder
    }()

    package static func make(_ value: some Encodable, status: HTTPResponse.Status = .ok, headers extra: HTTPFields = [:]) -> Response {
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"]
        headers[HTTPField.Name("Pragma")!] = "no-cache"
        headers.append(contentsOf: extra)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
