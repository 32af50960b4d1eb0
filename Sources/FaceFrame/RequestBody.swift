import Foundation
import IdentityCore
package import Hummingbird
package import NIOCore

/// Reading request bodies: a size bound, the content type, and JSON decoding with
/// messages that name the member at fault.
package struct RequestBodyReader: Sendable {
    /// The largest body accepted.
    package let maximumBytes: Int

    package init(maximumBytes: Int) { self.maximumBytes = maximumBytes }

    /// The media types a body may have.
    package enum Format {
        case json
        case form
    }

    /// Collects the body, refusing anything over the bound.
    package func bytes(of request: Request) async throws -> ByteBuffer {
        var request = request
        do {
            return try await request.collectBody(upTo: maximumBytes)
        } catch is NIOTooManyBytesError {
            throw IdentityError(.invalidRequest, "the request body exceeds \(maximumBytes) bytes", reason: .bodyTooLarge)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            // The HTTP parser's own failures (a chunk size that is not hex, a chunk longer
            // than it said, a connection closed mid-body) are the client's, not a server fault.
            throw IdentityError(.invalidRequest, "the request body could not be read: its chunked encoding is malformed or it was cut off", reason: .unreadableBody)
        }
    }

    /// The body's format from its `Content-Type`.
    package func format(of request: Request, accepting formats: [Format]) throws -> Format {
        let header = request.headers[.contentType]
        // The form every client on the login path sends, recognised without parsing.
        if header == "application/json", formats.contains(.json) { return .json }
        let type = header?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        if type == "application/json" || type.hasSuffix("+json"), formats.contains(.json) { return .json }
        if type == "application/x-www-form-urlencoded", formats.contains(.form) { return .form }
        let expected = formats.map { $0 == .json ? "application/json" : "application/x-www-form-urlencoded" }.joined(separator: " or ")
        throw IdentityError(.invalidRequest, "Content-Type must be \(expected), not \(type.isEmpty ? "missing" : type)", reason: .unsupportedMediaType)
    }

    /// Decodes a JSON body into `T`.
    package func json<T: Decodable>(_ type: T.Type, from request: Request) async throws -> T {
        _ = try format(of: request, accepting: [.json])
        return try decode(T.self, from: try await bytes(of: request))
    }

    /// Decodes a JSON or `application/x-www-form-urlencoded` body, as its `Content-Type` says.
    package func jsonOrForm<T: Decodable>(_ type: T.Type, from request: Request, form: ([String: String]) throws -> T) async throws -> T {
        switch try format(of: request, accepting: [.json, .form]) {
        case .json: return try decode(T.self, from: try await bytes(of: request))
        case .form: return try form(try self.form(from: try await bytes(of: request)))
        }
    }

    /// One decoder for every body; its options never change.
    private static let decoder = JSONDecoder()

    /// Decodes a JSON body. A type that reads itself (``FastJSONDecodable``) does so in the
    /// plain case; anything else, and every error, comes from `JSONDecoder`.
    package func decode<T: Decodable>(_ type: T.Type, from buffer: ByteBuffer) throws -> T {
        if let fastType = T.self as? any FastJSONDecodable.Type,
            let value = buffer.readableBytesView.withUnsafeBytes({ bytes in JSONReader.read(bytes).flatMap { fastType.init(json: $0) } }) as? T
        {
            return value
        }
        do {
            return try Self.decoder.decode(T.self, from: Data(buffer.readableBytesView))
        } catch let error as DecodingError {
            throw IdentityError(.invalidRequest, Self.describe(error), field: Self.path(error))
        } catch let error as IdentityError {
            throw error
        } catch {
            throw IdentityError(.invalidRequest, "the request body is not valid JSON")
        }
    }

    /// Parses an `application/x-www-form-urlencoded` body.
    package func form(from buffer: ByteBuffer) throws -> [String: String] {
        let text = String(decoding: buffer.readableBytesView, as: UTF8.self)
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ part: Substring) -> String? { part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding }
            guard let key = parts.first.flatMap(decode), let value = decode(parts.count > 1 ? parts[1] : "") else {
                throw IdentityError(.invalidRequest, "the form body is not valid percent-encoding")
            }
            guard fields[key] == nil else {
                throw IdentityError(.invalidRequest, "parameter \(key.prefix(64)) is repeated", field: key)
            }
            fields[key] = value
        }
        return fields
    }

    private static func path(_ error: DecodingError) -> String? {
        let context: DecodingError.Context?
        switch error {
        case .keyNotFound(let key, let inner): return (inner.codingPath + [key]).map(\.stringValue).joined(separator: ".")
        case .typeMismatch(_, let inner), .valueNotFound(_, let inner), .dataCorrupted(let inner): context = inner
        @unknown default: context = nil
        }
        guard let path = context?.codingPath, !path.isEmpty else { return nil }
        return path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let context):
            let path = (context.codingPath + [key]).map(\.stringValue).joined(separator: ".")
            return "\(path) is required"
        case .typeMismatch(let type, let context):
            return "\(context.codingPath.map(\.stringValue).joined(separator: ".")) must be a \(typeName(type))"
        case .valueNotFound(let type, let context):
            return "\(context.codingPath.map(\.stringValue).joined(separator: ".")) must be a \(typeName(type)), not null"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return "the request body is not valid JSON" }
            return "\(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
        @unknown default:
            return "the request body cannot be decoded"
        }
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "string"
        case is Bool.Type: return "boolean"
        case is Int.Type, is Double.Type, is Int64.Type, is UInt32.Type: return "number"
        default: return "JSON \(String(describing: type).contains("Array") ? "array" : "object")"
        }
    }
}
