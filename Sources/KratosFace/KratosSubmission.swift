import FaceFrame
import Foundation
import Hummingbird
import IdentityCore
import WebAuthn

/// A flow submission's fields. Kratos reads JSON bodies "following form format": nested
/// objects become dotted names, so `{"traits": {"email": …}}` and `{"traits.email": …}`
/// are the same field.
struct KratosSubmission: Decodable, Sendable {
    private(set) var fields: [String: String] = [:]

    init(form: [String: String]) { fields = form }

    subscript(_ name: String) -> String? {
        guard let value = fields[name], !value.isEmpty else { return nil }
        return value
    }

    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        try Self.flatten(decoder.container(keyedBy: Key.self), prefix: "", depth: 0, into: &fields)
    }

    private static func flatten(_ container: KeyedDecodingContainer<Key>, prefix: String, depth: Int, into fields: inout [String: String]) throws {
        for key in container.allKeys {
            let name = prefix + key.stringValue
            // Free-form members the face does not read.
            if name == "transient_payload" { continue }
            if let text = try? container.decode(String.self, forKey: key) {
                fields[name] = text
            } else if let flag = try? container.decode(Bool.self, forKey: key) {
                fields[name] = flag ? "true" : "false"
            } else if let number = try? container.decode(Double.self, forKey: key) {
                fields[name] = String(number)
            } else if depth < 4, let nested = try? container.nestedContainer(keyedBy: Key.self, forKey: key) {
                try flatten(nested, prefix: name + ".", depth: depth + 1, into: &fields)
            } else if try container.decodeNil(forKey: key) {
                continue
            } else {
                throw IdentityError(.invalidRequest, "\(name.prefix(64)) must be a string", field: name)
            }
        }
    }

    /// Reads a nested WebAuthn response: a string holding JSON, with `type` `public-key` and
    /// `id` in base64url without padding, as go-webauthn requires of Kratos clients. The
    /// JSON is parsed once; Kratos's checks read the members as sent, before the lenient
    /// decoding of the response fills in what a client left out.
    static func credential<Response: Decodable>(_ text: String, as type: Response.Type) -> Response? {
        guard text.utf8.count <= 64 * 1024, let read = try? JSONDecoder().decode(StrictCredential<Response>.self, from: Data(text.utf8)),
            read.type == "public-key", let id = read.id, !id.isEmpty, id.utf8.allSatisfy({ Base64URL.alphabet.contains($0) })
        else { return nil }
        return read.response
    }
}

/// A WebAuthn response with the two members Kratos checks as they were sent.
private struct StrictCredential<Response: Decodable>: Decodable {
    let id, type: String?
    let response: Response

    private enum Key: String, CodingKey { case id, type }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        id = try container.decodeIfPresent(String.self, forKey: .id)
        type = try container.decodeIfPresent(String.self, forKey: .type)
        response = try Response(from: decoder)
    }
}

extension Base64URL {
    /// The characters of unpadded base64url.
    static let alphabet = Set(Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8))
}
