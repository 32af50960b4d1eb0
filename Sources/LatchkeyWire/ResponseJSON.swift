/// `PublicKeyCredential` as JSON (WebAuthn L3 §5.1, `toJSON()`): the envelope shared by
/// registration and authentication responses, generic over the authenticator's response.
///
/// Decoding is lenient where real clients differ: base64 with or without padding and in
/// either alphabet, `clientDataJson` as well as `clientDataJSON`, a missing `rawId` (taken
/// from `id`), a missing `type` or `clientExtensionResults`, and unknown members.
public struct PublicKeyCredentialJSON<Response: Codable & Sendable & Hashable>: Codable, Sendable, Hashable {
    /// The credential ID, base64url.
    public var id: String
    /// The credential ID bytes.
    public var rawId: Base64URLBytes
    /// Always `public-key`.
    public var type: String
    /// The authenticator's response.
    public var response: Response
    /// `platform` or `cross-platform`, when the client reports it.
    public var authenticatorAttachment: String?
    /// Client extension outputs.
    public var clientExtensionResults: ClientExtensionResults

    public init(
        id: String,
        rawId: Base64URLBytes,
        type: String = "public-key",
        response: Response,
        authenticatorAttachment: String? = nil,
        clientExtensionResults: ClientExtensionResults = ClientExtensionResults()
    ) {
        self.id = id
        self.rawId = rawId
        self.type = type
        self.response = response
        self.authenticatorAttachment = authenticatorAttachment
        self.clientExtensionResults = clientExtensionResults
    }

    enum CodingKeys: String, CodingKey {
        case id, rawId, type, response, authenticatorAttachment, clientExtensionResults
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let id = try container.decodeIfPresent(String.self, forKey: .id)
        let rawId = try container.decodeIfPresent(Base64URLBytes.self, forKey: .rawId)
        // Either member may stand in for a missing other; when both are present the
        // verifier checks that they agree.
        switch (id, rawId) {
        case (let id?, let rawId?):
            (self.id, self.rawId) = (id, rawId)
        case (let id?, nil):
            guard let bytes = Base64URLBytes(base64URL: id) else {
                throw DecodingError.dataCorruptedError(forKey: .id, in: container, debugDescription: "is not base64url")
            }
            (self.id, self.rawId) = (id, bytes)
        case (nil, let rawId?):
            (self.id, self.rawId) = (rawId.base64URL, rawId)
        case (nil, nil):
            throw DecodingError.keyNotFound(CodingKeys.rawId, .init(codingPath: container.codingPath, debugDescription: "id and rawId are both missing"))
        }
        type = try container.decodeIfPresent(String.self, forKey: .type) ?? "public-key"
        response = try container.decode(Response.self, forKey: .response)
        authenticatorAttachment = try container.decodeIfPresent(String.self, forKey: .authenticatorAttachment)
        clientExtensionResults = try container.decodeIfPresent(ClientExtensionResults.self, forKey: .clientExtensionResults) ?? ClientExtensionResults()
    }
}

/// `RegistrationResponseJSON`: what `credential.toJSON()` returns after
/// `navigator.credentials.create()`, and Android Credential Manager's `registrationResponseJson`.
public typealias RegistrationResponseJSON = PublicKeyCredentialJSON<AuthenticatorAttestationResponseJSON>

/// `AuthenticationResponseJSON`: what `credential.toJSON()` returns after
/// `navigator.credentials.get()`, and Android's `authenticationResponseJson`.
public typealias AuthenticationResponseJSON = PublicKeyCredentialJSON<AuthenticatorAssertionResponseJSON>

/// `AuthenticatorAttestationResponseJSON`.
public struct AuthenticatorAttestationResponseJSON: Codable, Sendable, Hashable {
    /// The exact clientDataJSON bytes.
    public var clientDataJSON: Base64URLBytes
    /// The CBOR attestation object.
    public var attestationObject: Base64URLBytes
    /// Transports the authenticator supports.
    public var transports: [String]?
    /// The authenticator data (L3 convenience copy; the attestation object is authoritative).
    public var authenticatorData: Base64URLBytes?
    /// The credential public key as SPKI (L3 convenience copy; not used for verification).
    public var publicKey: Base64URLBytes?
    /// The credential algorithm (L3 convenience copy).
    public var publicKeyAlgorithm: COSEAlgorithmIdentifier?

    public init(
        clientDataJSON: Base64URLBytes,
        attestationObject: Base64URLBytes,
        transports: [String]? = nil,
        authenticatorData: Base64URLBytes? = nil,
        publicKey: Base64URLBytes? = nil,
        publicKeyAlgorithm: COSEAlgorithmIdentifier? = nil
    ) {
        self.clientDataJSON = clientDataJSON
        self.attestationObject = attestationObject
        self.transports = transports
        self.authenticatorData = authenticatorData
        self.publicKey = publicKey
        self.publicKeyAlgorithm = publicKeyAlgorithm
    }

    enum CodingKeys: String, CodingKey {
        case clientDataJSON, clientDataJson, attestationObject, transports, authenticatorData, publicKey, publicKeyAlgorithm
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        clientDataJSON = try ResponseDecoding.clientData(container, .clientDataJSON, .clientDataJson)
        attestationObject = try container.decode(Base64URLBytes.self, forKey: .attestationObject)
        transports = try container.decodeIfPresent([String].self, forKey: .transports)
        authenticatorData = try container.decodeIfPresent(Base64URLBytes.self, forKey: .authenticatorData)
        publicKey = try container.decodeIfPresent(Base64URLBytes.self, forKey: .publicKey)
        publicKeyAlgorithm = try container.decodeIfPresent(COSEAlgorithmIdentifier.self, forKey: .publicKeyAlgorithm)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(clientDataJSON, forKey: .clientDataJSON)
        try container.encode(attestationObject, forKey: .attestationObject)
        try container.encodeIfPresent(transports, forKey: .transports)
        try container.encodeIfPresent(authenticatorData, forKey: .authenticatorData)
        try container.encodeIfPresent(publicKey, forKey: .publicKey)
        try container.encodeIfPresent(publicKeyAlgorithm, forKey: .publicKeyAlgorithm)
    }
}

/// `AuthenticatorAssertionResponseJSON`.
public struct AuthenticatorAssertionResponseJSON: Codable, Sendable, Hashable {
    /// The exact clientDataJSON bytes.
    public var clientDataJSON: Base64URLBytes
    /// The exact authenticator data bytes.
    public var authenticatorData: Base64URLBytes
    /// The assertion signature.
    public var signature: Base64URLBytes
    /// The user handle of a discoverable credential; `nil` when absent or empty.
    public var userHandle: Base64URLBytes?

    public init(clientDataJSON: Base64URLBytes, authenticatorData: Base64URLBytes, signature: Base64URLBytes, userHandle: Base64URLBytes? = nil) {
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
    }

    enum CodingKeys: String, CodingKey {
        case clientDataJSON, clientDataJson, authenticatorData, signature, userHandle
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        clientDataJSON = try ResponseDecoding.clientData(container, .clientDataJSON, .clientDataJson)
        authenticatorData = try container.decode(Base64URLBytes.self, forKey: .authenticatorData)
        signature = try container.decode(Base64URLBytes.self, forKey: .signature)
        let handle = try container.decodeIfPresent(Base64URLBytes.self, forKey: .userHandle)
        userHandle = handle?.bytes.isEmpty == false ? handle : nil
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(clientDataJSON, forKey: .clientDataJSON)
        try container.encode(authenticatorData, forKey: .authenticatorData)
        try container.encode(signature, forKey: .signature)
        try container.encodeIfPresent(userHandle, forKey: .userHandle)
    }
}

/// Client extension outputs: `credProps`, which Latchkey reads, and `prf`, which an app
/// reads on its side and the server ignores (it neither stores nor logs them); other
/// members are ignored.
public struct ClientExtensionResults: Codable, Sendable, Hashable {
    /// Output of the `credProps` extension.
    public var credProps: CredentialProperties?
    /// Output of the `prf` extension, for the app.
    public var prf: PRFOutputs?

    public init(credProps: CredentialProperties? = nil, prf: PRFOutputs? = nil) {
        self.credProps = credProps
        self.prf = prf
    }

    /// `CredentialPropertiesOutput`.
    public struct CredentialProperties: Codable, Sendable, Hashable {
        /// Whether the credential is discoverable (a passkey), when the client knows.
        public var rk: Bool?

        public init(rk: Bool?) { self.rk = rk }
    }
}

/// Decoding steps the response types share.
enum ResponseDecoding {
    /// Reads clientDataJSON under its specified key or the `clientDataJson` spelling.
    static func clientData<K: CodingKey>(_ container: KeyedDecodingContainer<K>, _ key: K, _ alternate: K) throws -> Base64URLBytes {
        if let value = try container.decodeIfPresent(Base64URLBytes.self, forKey: key) { return value }
        if let value = try container.decodeIfPresent(Base64URLBytes.self, forKey: alternate) { return value }
        throw DecodingError.keyNotFound(key, .init(codingPath: container.codingPath, debugDescription: "clientDataJSON is missing"))
    }
}

/// Either kind of response, told apart by its members: an `attestationObject` makes a
/// registration, anything else an authentication. Token endpoints receive both in the
/// same `authn_response` field.
public enum PublicKeyCredentialResponse: Codable, Sendable, Hashable {
    /// A registration (`navigator.credentials.create()`).
    case registration(RegistrationResponseJSON)
    /// An authentication (`navigator.credentials.get()`).
    case authentication(AuthenticationResponseJSON)

    private enum Keys: String, CodingKey { case response }
    private enum ResponseKeys: String, CodingKey { case attestationObject }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        let response = try container.nestedContainer(keyedBy: ResponseKeys.self, forKey: .response)
        if response.contains(.attestationObject) {
            self = .registration(try RegistrationResponseJSON(from: decoder))
        } else {
            self = .authentication(try AuthenticationResponseJSON(from: decoder))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .registration(let response): try response.encode(to: encoder)
        case .authentication(let response): try response.encode(to: encoder)
        }
    }

    /// The credential ID the response names.
    public var credentialID: [UInt8] {
        switch self {
        case .registration(let response): return response.rawId.bytes
        case .authentication(let response): return response.rawId.bytes
        }
    }
}
