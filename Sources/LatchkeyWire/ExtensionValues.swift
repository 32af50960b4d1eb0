/// The PRF extension's salts or outputs (WebAuthn Level 3 §10.1.4, `AuthenticationExtensionsPRFValues`):
/// one or two values, base64url in JSON.
public struct PRFValues: Codable, Sendable, Hashable {
    public var first: Base64URLBytes
    public var second: Base64URLBytes?

    public init(first: Base64URLBytes, second: Base64URLBytes? = nil) {
        self.first = first
        self.second = second
    }
}

/// `AuthenticationExtensionsPRFInputs`: salts to evaluate, for every credential or per
/// credential ID (base64url); `evalByCredential` only when getting an assertion.
public struct PRFInputs: Codable, Sendable, Hashable {
    public var eval: PRFValues?
    public var evalByCredential: [String: PRFValues]?

    public init(eval: PRFValues? = nil, evalByCredential: [String: PRFValues]? = nil) {
        self.eval = eval
        self.evalByCredential = evalByCredential
    }
}

/// `AuthenticationExtensionsPRFOutputs`: whether the credential supports PRF (at
/// creation), and the outputs. The server passes them on to nobody and keeps none.
public struct PRFOutputs: Codable, Sendable, Hashable {
    public var enabled: Bool?
    public var results: PRFValues?

    public init(enabled: Bool? = nil, results: PRFValues? = nil) {
        self.enabled = enabled
        self.results = results
    }
}

/// `AuthenticationExtensionsLargeBlobInputs` (WebAuthn Level 3 §10.1.5): `support` at
/// creation (`required` or `preferred`), `read` or `write` when getting an assertion.
public struct LargeBlobInputs: Codable, Sendable, Hashable {
    public var support: String?
    public var read: Bool?
    public var write: Base64URLBytes?

    public init(support: String? = nil, read: Bool? = nil, write: Base64URLBytes? = nil) {
        self.support = support
        self.read = read
        self.write = write
    }
}
