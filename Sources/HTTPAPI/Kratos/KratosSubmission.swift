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

    /// Reads a nested WebAuthn response: a string holding JSON, with `id` in base64url
    /// without padding, as go-webauthn requires of Kratos clients.
    static func credential<Response: Decodable>(_ text: String, as type: Response.Type) -> Response? {
        guard text.utf8.count <= 64 * 1024 else { return nil }
        let data = Data(text.utf8)
        guard let envelope = try? JSONDecoder().decode(CredentialEnvelope.self, from: data), envelope.type == "public-key",
            !envelope.id.isEmpty, envelope.id.utf8.allSatisfy({ Base64URL.alphabet.contains($0) })
        else { return nil }
        return try? JSONDecoder().decode(Response.self, from: data)
    }
}

/// The members of a WebAuthn response that Kratos checks before parsing the rest.
private struct CredentialEnvelope: Decodable {
    let id: String
    let type: String
}

extension Base64URL {
    /// The characters of unpadded base64url.
    static let alphabet = Set(Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8))
}
