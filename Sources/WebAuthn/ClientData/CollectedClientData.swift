import Foundation

/// The client data a browser or platform collected for a ceremony (WebAuthn L3 §5.8.1),
/// decoded from clientDataJSON. ``rawBytes`` keeps the exact bytes, which are hashed for
/// the signature; the JSON is never re-serialized.
public struct CollectedClientData: Sendable {
    /// The bytes exactly as received.
    public let rawBytes: [UInt8]
    /// `webauthn.create` or `webauthn.get` (or another type the caller accepts).
    public let type: String
    /// The challenge as it appears in the JSON: base64url without padding.
    public let challenge: String
    /// The origin of the caller, for example `https://example.com` or
    /// `android:apk-key-hash:…`.
    public let origin: String
    /// Whether the ceremony ran in a cross-origin iframe.
    public let crossOrigin: Bool?
    /// The top-level origin when ``crossOrigin`` is true (WebAuthn L3).
    public let topOrigin: String?
    /// The token binding status, when the member is an object (WebAuthn L2).
    public let tokenBindingStatus: String?
    /// The Android package that called Credential Manager, when a browser on Android adds it.
    public let androidPackageName: String?

    /// Decodes clientDataJSON.
    /// - Throws: ``WebAuthnError/Code/malformedClientData`` when it is not a UTF-8 JSON
    ///   object with string `type`, `challenge` and `origin` members.
    public init(bytes: some Collection<UInt8>) throws(WebAuthnError) {
        let raw = Array(bytes)
        let wire: WireClientData
        do {
            wire = try JSONDecoder().decode(WireClientData.self, from: Data(raw))
        } catch let error as DecodingError {
            throw WebAuthnError(.malformedClientData, "clientDataJSON: \(DecodingErrorDescription.describe(error))")
        } catch {
            throw WebAuthnError(.malformedClientData, "clientDataJSON is not valid JSON")
        }
        self.rawBytes = raw
        self.type = wire.type
        self.challenge = wire.challenge
        self.origin = wire.origin
        self.crossOrigin = wire.crossOrigin
        self.topOrigin = wire.topOrigin
        self.tokenBindingStatus = wire.tokenBinding?.status
        self.androidPackageName = wire.androidPackageName
    }
}

/// The members of clientDataJSON this verifier reads; others are ignored, as the
/// specification allows clients to add members.
private struct WireClientData: Decodable {
    var type: String
    var challenge: String
    var origin: String
    var crossOrigin: Bool?
    var topOrigin: String?
    var tokenBinding: TokenBinding?
    var androidPackageName: String?

    /// WebAuthn L2 defined an object with a `status`; some old browsers sent a plain
    /// string instead, which carries no status and is ignored.
    struct TokenBinding: Decodable {
        var status: String?

        init(from decoder: any Decoder) throws {
            if let object = try? decoder.container(keyedBy: CodingKeys.self) {
                status = try object.decodeIfPresent(String.self, forKey: .status)
            } else {
                status = nil
            }
        }

        enum CodingKeys: String, CodingKey { case status }
    }
}

/// Turns Foundation decoding errors into short messages that name the member.
enum DecodingErrorDescription {
    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return keys.isEmpty ? "the top level" : keys.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            let parent = path(context)
            return parent == "the top level" ? "required member \"\(key.stringValue)\" is missing" : "required member \"\(key.stringValue)\" is missing in \(parent)"
        case .typeMismatch(let type, let context):
            return "\(path(context)) has the wrong type (expected \(type))"
        case .valueNotFound(let type, let context):
            return "\(path(context)) is null (expected \(type))"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not valid JSON" : "\(path(context)): \(context.debugDescription)"
        @unknown default:
            return "cannot be decoded"
        }
    }
}
