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
        var reader = ClientDataJSONReader(raw)
        let members = try reader.read()
        guard let type = members.type, let challenge = members.challenge, let origin = members.origin else {
            let missing = [("type", members.type), ("challenge", members.challenge), ("origin", members.origin)].filter { $0.1 == nil }.map(\.0)
            throw WebAuthnError(.malformedClientData, "clientDataJSON: required member(s) \(missing.joined(separator: ", ")) missing")
        }
        self.rawBytes = raw
        self.type = type
        self.challenge = challenge
        self.origin = origin
        self.crossOrigin = members.crossOrigin
        self.topOrigin = members.topOrigin
        self.tokenBindingStatus = members.tokenBindingStatus
        self.androidPackageName = members.androidPackageName
    }
}
