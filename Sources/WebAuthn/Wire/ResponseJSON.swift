public import Foundation

/// `RegistrationResponseJSON` (WebAuthn L3 §5.1): what `credential.toJSON()` returns after
/// `navigator.credentials.create()`, and what Android Credential Manager returns as
/// `registrationResponseJson`.
///
/// Decoding is lenient where real clients differ: base64 with or without padding and in
/// either alphabet, `clientDataJson` as well as `clientDataJSON`, a missing `rawId` (taken
/// from `id`), a missing `type` or `clientExtensionResults`, and unknown members.
public struct RegistrationResponseJSON: Codable, Sendable, Hashable {
    /// The credential ID, base64url.
    public var id: String
    /// The credential ID bytes.
    public var rawId: Base64URLBytes
    /// Always `public-key`.
    public var type: String
    /// The authenticator's response.
    public var response: AuthenticatorAttestationResponseJSON
    /// `platform` or `cross-platform`, when the client reports it.
    public var authenticatorAttachment: String?
    /// Client extension outputs.
    public var clientExtensionResults: ClientExtensionResults

    /// Creates a response.
    public init(
        id: String,
        rawId: Base64URLBytes,
        type: String = "public-key",
        response: AuthenticatorAttestationResponseJSON,
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

    /// Decodes the JSON, mapping any failure to ``WebAuthnError/Code/malformedResponse``
    /// with the member that was wrong.
    public static func decode(from json: Data) throws(WebAuthnError) -> RegistrationResponseJSON {
        try ResponseDecoding.decode(RegistrationResponseJSON.self, from: json)
    }

    enum CodingKeys: String, CodingKey {
        case id, rawId, type, response, authenticatorAttachment, clientExtensionResults
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        (id, rawId) = try ResponseDecoding.credentialID(container, idKey: .id, rawIdKey: .rawId)
        type = try container.decodeIfPresent(String.self, forKey: .type) ?? "public-key"
        response = try container.decode(AuthenticatorAttestationResponseJSON.self, forKey: .response)
        authenticatorAttachment = try container.decodeIfPresent(String.self, forKey: .authenticatorAttachment)
        clientExtensionResults = try container.decodeIfPresent(ClientExtensionResults.self, forKey: .clientExtensionResults) ?? ClientExtensionResults()
    }
}

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

    /// Creates a response.
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

/// `AuthenticationResponseJSON` (WebAuthn L3 §5.1): what `credential.toJSON()` returns after
/// `navigator.credentials.get()`, and Android's `authenticationResponseJson`. Decoding is
/// lenient in the same ways as ``RegistrationResponseJSON``; `userHandle` of `""` or
/// `null` counts as absent (Safari has sent an empty string).
public struct AuthenticationResponseJSON: Codable, Sendable, Hashable {
    /// The credential ID, base64url.
    public var id: String
    /// The credential ID bytes.
    public var rawId: Base64URLBytes
    /// Always `public-key`.
    public var type: String
    /// The authenticator's response.
    public var response: AuthenticatorAssertionResponseJSON
    /// `platform` or `cross-platform`, when the client reports it.
    public var authenticatorAttachment: String?
    /// Client extension outputs.
    public var clientExtensionResults: ClientExtensionResults

    /// Creates a response.
    public init(
        id: String,
        rawId: Base64URLBytes,
        type: String = "public-key",
        response: AuthenticatorAssertionResponseJSON,
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

    /// Decodes the JSON, mapping any failure to ``WebAuthnError/Code/malformedResponse``.
    public static func decode(from json: Data) throws(WebAuthnError) -> AuthenticationResponseJSON {
        try ResponseDecoding.decode(AuthenticationResponseJSON.self, from: json)
    }

    enum CodingKeys: String, CodingKey {
        case id, rawId, type, response, authenticatorAttachment, clientExtensionResults
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        (id, rawId) = try ResponseDecoding.credentialID(container, idKey: .id, rawIdKey: .rawId)
        type = try container.decodeIfPresent(String.self, forKey: .type) ?? "public-key"
        response = try container.decode(AuthenticatorAssertionResponseJSON.self, forKey: .response)
        authenticatorAttachment = try container.decodeIfPresent(String.self, forKey: .authenticatorAttachment)
        clientExtensionResults = try container.decodeIfPresent(ClientExtensionResults.self, forKey: .clientExtensionResults) ?? ClientExtensionResults()
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

    /// Creates a response.
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

/// Client extension outputs that Latchkey reads; other members are ignored.
public struct ClientExtensionResults: Codable, Sendable, Hashable {
    /// Output of the `credProps` extension.
    public var credProps: CredentialProperties?

    /// Creates outputs.
    public init(credProps: CredentialProperties? = nil) {
        self.credProps = credProps
    }

    /// `CredentialPropertiesOutput`.
    public struct CredentialProperties: Codable, Sendable, Hashable {
        /// Whether the credential is discoverable (a passkey), when the client knows.
        public var rk: Bool?

        /// Creates the output.
        public init(rk: Bool?) { self.rk = rk }
    }
}

/// Decoding steps the response types share.
enum ResponseDecoding {
    static func decode<T: Decodable>(_ type: T.Type, from json: Data) throws(WebAuthnError) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: json)
        } catch let error as DecodingError {
            throw WebAuthnError(.malformedResponse, DecodingErrorDescription.describe(error))
        } catch {
            throw WebAuthnError(.malformedResponse, "the response is not valid JSON")
        }
    }

    /// Reads `id` and `rawId`, filling either from the other when one is missing. When both
    /// are present they must name the same bytes.
    static func credentialID<K: CodingKey>(
        _ container: KeyedDecodingContainer<K>,
        idKey: K,
        rawIdKey: K
    ) throws -> (String, Base64URLBytes) {
        let id = try container.decodeIfPresent(String.self, forKey: idKey)
        let rawId = try container.decodeIfPresent(Base64URLBytes.self, forKey: rawIdKey)
        switch (id, rawId) {
        case (let id?, let rawId?):
            return (id, rawId)
        case (let id?, nil):
            guard let bytes = Base64URLBytes(base64URL: id) else {
                throw DecodingError.dataCorruptedError(forKey: idKey, in: container, debugDescription: "is not base64url")
            }
            return (id, bytes)
        case (nil, let rawId?):
            return (rawId.base64URL, rawId)
        case (nil, nil):
            throw DecodingError.keyNotFound(rawIdKey, .init(codingPath: container.codingPath, debugDescription: "id and rawId are both missing"))
        }
    }

    /// Reads clientDataJSON under its specified key or the `clientDataJson` spelling.
    static func clientData<K: CodingKey>(_ container: KeyedDecodingContainer<K>, _ key: K, _ alternate: K) throws -> Base64URLBytes {
        if let value = try container.decodeIfPresent(Base64URLBytes.self, forKey: key) { return value }
        if let value = try container.decodeIfPresent(Base64URLBytes.self, forKey: alternate) { return value }
        throw DecodingError.keyNotFound(key, .init(codingPath: container.codingPath, debugDescription: "clientDataJSON is missing"))
    }
}
