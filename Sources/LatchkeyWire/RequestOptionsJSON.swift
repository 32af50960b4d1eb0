/// `PublicKeyCredentialRequestOptionsJSON` (WebAuthn L3 §5.5.1): authentication options in
/// the shape that `PublicKeyCredential.parseRequestOptionsFromJSON()` and Android Credential
/// Manager's `GetPublicKeyCredentialOption` accept. `nil` members are left out.
public struct PublicKeyCredentialRequestOptionsJSON: Codable, Sendable, Hashable {
    /// The challenge, base64url.
    public var challenge: Base64URLBytes
    /// The ceremony timeout in milliseconds.
    public var timeout: UInt32?
    /// The RP ID; browsers default it to the caller's effective domain when absent.
    public var rpId: String?
    /// The credentials that may answer; empty or absent for a discoverable login.
    public var allowCredentials: [CredentialDescriptor]?
    /// `required`, `preferred` or `discouraged`.
    public var userVerification: String?
    /// Hints such as `security-key`, `client-device` or `hybrid`.
    public var hints: [String]?
    /// Client extension inputs.
    public var extensions: ExtensionInputs?

    public init(
        challenge: Base64URLBytes,
        timeout: UInt32? = nil,
        rpId: String? = nil,
        allowCredentials: [CredentialDescriptor]? = nil,
        userVerification: String? = nil,
        hints: [String]? = nil,
        extensions: ExtensionInputs? = nil
    ) {
        self.challenge = challenge
        self.timeout = timeout
        self.rpId = rpId
        self.allowCredentials = allowCredentials
        self.userVerification = userVerification
        self.hints = hints
        self.extensions = extensions
    }
}
