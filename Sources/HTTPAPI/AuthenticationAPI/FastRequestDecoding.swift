import FaceFrame
import IdentityCore
import LatchkeyWire
import WebAuthn

// The Authentication API's hot request bodies read from a JSONNode. Each mirrors its
// `Decodable` init member for member, and gives up (`nil`) wherever that init would throw
// or where the two could disagree, so that JSONDecoder then decides.

extension TokenRequest: FastJSONDecodable {
    init?(json node: JSONNode) {
        guard case .object = node else { return nil }
        // A member that is present but not a string is the full decoder's to refuse.
        struct NotAString: Error {}
        do {
            try self.init { key in
                guard let value = node.optionalString(key.rawValue) else { throw NotAString() }
                return value
            }
        } catch {
            return nil
        }
        switch node["authn_response"] {
        case nil, .null?: authnResponse = nil
        case let value?:
            guard let decoded = PublicKeyCredentialResponse(json: value) else { return nil }
            authnResponse = decoded
        }
        switch node["user_profile"] {
        case nil, .null?: userProfile = nil
        case let value?:
            guard let decoded = SignupProfile(json: value) else { return nil }
            userProfile = decoded
        }
    }
}

extension LoginChallengeRequest: FastJSONDecodable {
    init?(json node: JSONNode) {
        guard case .object = node,
            let clientID = node.optionalString("client_id"), let clientSecret = node.optionalString("client_secret"),
            let realm = node.optionalString("realm"), let organization = node.optionalString("organization"),
            let username = node.optionalString("username"),
            // Hints and extensions are rare; the full decoder reads them.
            node["hints"] == nil, node["extensions"] == nil
        else { return nil }
        self.init(clientID: clientID, clientSecret: clientSecret, realm: realm, organization: organization, username: username)
    }
}

extension SignupChallengeRequest: FastJSONDecodable {
    init?(json node: JSONNode) {
        guard case .object = node,
            let clientID = node.optionalString("client_id"), let clientSecret = node.optionalString("client_secret"),
            let realm = node.optionalString("realm"), let organization = node.optionalString("organization"), node["hints"] == nil,
            node["extensions"] == nil
        else { return nil }
        var profile: SignupProfile?
        switch node["user_profile"] {
        case nil, .null?: profile = nil
        case let value?:
            guard let decoded = SignupProfile(json: value) else { return nil }
            profile = decoded
        }
        // Metadata is accepted and not stored; its shape is left to the full decoder.
        guard node["user_metadata"] == nil else { return nil }
        self.init(clientID: clientID, clientSecret: clientSecret, realm: realm, organization: organization, userProfile: profile)
    }
}

extension SignupProfile {
    /// Only known members, each a string or null; anything else is the full decoder's to refuse.
    init?(json node: JSONNode) {
        guard case .object(let members) = node, members.allSatisfy({ Self.knownMembers.contains($0.key) }) else { return nil }
        var values: [String: String] = [:]
        for (key, value) in members {
            switch value {
            case .string(let text): values[key] = text
            case .null: break
            default: return nil
            }
        }
        self.init(
            email: values["email"], phoneNumber: values["phone_number"], username: values["username"], name: values["name"],
            givenName: values["given_name"], familyName: values["family_name"], nickname: values["nickname"], picture: values["picture"]
        )
    }
}

extension PublicKeyCredentialResponse {
    init?(json node: JSONNode) {
        guard let response = node["response"], case .object = response else { return nil }
        if response["attestationObject"] != nil {
            guard let registration = RegistrationResponseJSON(json: node, response: AuthenticatorAttestationResponseJSON.init(json:)) else { return nil }
            self = .registration(registration)
        } else {
            guard let authentication = AuthenticationResponseJSON(json: node, response: AuthenticatorAssertionResponseJSON.init(json:)) else { return nil }
            self = .authentication(authentication)
        }
    }
}

extension PublicKeyCredentialJSON {
    init?(json node: JSONNode, response decodeResponse: (JSONNode) -> Response?) {
        guard case .object = node, let id = node.optionalString("id"), let rawIdText = node.optionalString("rawId"),
            let type = node.optionalString("type"), let attachment = node.optionalString("authenticatorAttachment"),
            let responseNode = node["response"], let response = decodeResponse(responseNode)
        else { return nil }
        var rawId: Base64URLBytes?
        if let rawIdText {
            guard let bytes = Base64URLBytes(base64URL: rawIdText) else { return nil }
            rawId = bytes
        }
        let identity: (String, Base64URLBytes)
        switch (id, rawId) {
        case (let id?, let rawId?): identity = (id, rawId)
        case (let id?, nil):
            guard let bytes = Base64URLBytes(base64URL: id) else { return nil }
            identity = (id, bytes)
        case (nil, let rawId?): identity = (rawId.base64URL, rawId)
        case (nil, nil): return nil
        }
        var extensions = ClientExtensionResults()
        switch node["clientExtensionResults"] {
        case nil, .null?: break
        case .object?:
            switch node["clientExtensionResults"]?["credProps"] {
            case nil, .null?: break
            case let credProps?:
                guard case .object = credProps else { return nil }
                switch credProps["rk"] {
                case nil, .null?: extensions.credProps = .init(rk: nil)
                case .bool(let rk)?: extensions.credProps = .init(rk: rk)
                default: return nil
                }
            }
        default: return nil
        }
        self.init(
            id: identity.0, rawId: identity.1, type: type ?? "public-key", response: response,
            authenticatorAttachment: attachment, clientExtensionResults: extensions
        )
    }
}

extension JSONNode {
    /// A required base64url member.
    fileprivate func bytes(_ key: String) -> Base64URLBytes? {
        guard case .string(let text)? = self[key] else { return nil }
        return Base64URLBytes(base64URL: text)
    }

    /// An optional base64url member: `.some(nil)` when absent or null.
    fileprivate func optionalBytes(_ key: String) -> Base64URLBytes?? {
        switch self[key] {
        case nil, .null?: return .some(nil)
        case .string(let text)?: return Base64URLBytes(base64URL: text).map { .some($0) }
        default: return nil
        }
    }

    /// `clientDataJSON`, or its `clientDataJson` spelling.
    fileprivate var clientData: Base64URLBytes? {
        switch optionalBytes("clientDataJSON") {
        case .some(let value?): return value
        case .some(nil): return optionalBytes("clientDataJson") ?? nil
        case nil: return nil
        }
    }
}

extension AuthenticatorAssertionResponseJSON {
    init?(json node: JSONNode) {
        guard case .object = node, let clientData = node.clientData, let authenticatorData = node.bytes("authenticatorData"),
            let signature = node.bytes("signature"), let handle = node.optionalBytes("userHandle")
        else { return nil }
        self.init(
            clientDataJSON: clientData, authenticatorData: authenticatorData, signature: signature,
            userHandle: handle?.bytes.isEmpty == false ? handle : nil
        )
    }
}

extension AuthenticatorAttestationResponseJSON {
    init?(json node: JSONNode) {
        guard case .object = node, let clientData = node.clientData, let attestationObject = node.bytes("attestationObject"),
            let authenticatorData = node.optionalBytes("authenticatorData"), let publicKey = node.optionalBytes("publicKey")
        else { return nil }
        var transports: [String]?
        switch node["transports"] {
        case nil, .null?: transports = nil
        case .array(let elements)?:
            var names: [String] = []
            for element in elements {
                guard case .string(let name) = element else { return nil }
                names.append(name)
            }
            transports = names
        default: return nil
        }
        var algorithm: COSEAlgorithmIdentifier?
        switch node["publicKeyAlgorithm"] {
        case nil, .null?: algorithm = nil
        case .number(let text)?:
            guard let value = Int64(text) else { return nil }
            algorithm = COSEAlgorithmIdentifier(rawValue: value)
        default: return nil
        }
        self.init(
            clientDataJSON: clientData, attestationObject: attestationObject, transports: transports,
            authenticatorData: authenticatorData, publicKey: publicKey, publicKeyAlgorithm: algorithm
        )
    }
}
