import Authenticator
import Crypto
import Foundation
import WebAuthn

/// What the Ory guide's iOS and Android samples do, step by step and byte for byte: read
/// flows with `JSONSerialization`, find nodes by name, parse the nested JSON strings, build
/// the credential dictionary (iOS) or forward Credential Manager's JSON (Android), and post
/// the payload.
struct KratosSampleApp {
    enum Platform {
        /// The iOS sample: `JSONSerialization`, base64url by hand, an app origin.
        case iOS
        /// The Android sample: `JSONObject`, Credential Manager's response JSON.
        case android
    }

    static let androidKey = Array(SHA256.hash(data: Data("kratos sample signing certificate".utf8)))

    let http: RawHTTP
    let platform: Platform
    var authenticator = SoftwareAuthenticator()
    var credentials: [SoftwareCredential] = []

    init(server: URL, platform: Platform) {
        http = RawHTTP(baseURL: server)
        self.platform = platform
    }

    /// The app, reaching `server` the way the server is reached.
    init(_ server: some TestServer, platform: Platform) {
        http = RawHTTP(server)
        self.platform = platform
    }

    var caller: Caller {
        switch platform {
        case .iOS: return .appleApp(relyingPartyID: "localhost")
        case .android: return .androidApp(packageName: "com.example.kratos", signingCertificateSHA256: Self.androidKey)
        }
    }

    // MARK: - The samples' helpers

    /// `initializeRegistrationFlow()` / `initializeLoginFlow()`: a GET with `Accept: application/json`.
    func initialize(_ path: String, token: String? = nil) async throws -> RawHTTP.Reply {
        var headers = ["Accept": "application/json"]
        if let token { headers["X-Session-Token"] = token }
        return try await http.send("GET", path, contentType: nil, headers: headers)
    }

    /// The `value` of the node named `name`, as the samples find it.
    static func nodeValue(_ flow: [String: Any], _ name: String) -> String? {
        guard let ui = flow["ui"] as? [String: Any], let nodes = ui["nodes"] as? [[String: Any]] else { return nil }
        for node in nodes {
            guard let attributes = node["attributes"] as? [String: Any], attributes["name"] as? String == name else { continue }
            return attributes["value"] as? String
        }
        return nil
    }

    static func nodes(_ flow: [String: Any], named name: String) -> [[String: Any]] {
        let nodes = (flow["ui"] as? [String: Any])?["nodes"] as? [[String: Any]] ?? []
        return nodes.filter { ($0["attributes"] as? [String: Any])?["name"] as? String == name }
    }

    static func messageIDs(_ flow: [String: Any]) -> [Int] {
        ((flow["ui"] as? [String: Any])?["messages"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int }
    }

    static func flowID(_ flow: [String: Any]) -> String { flow["id"] as? String ?? "" }

    /// `extractRegistrationChallenge` goes to `credentialOptions.publicKey`; the settings
    /// flow's `passkey_create_data` is the bare `{"publicKey": …}`.
    static func creationOptions(_ flow: [String: Any], wrapped: Bool) throws -> PublicKeyCredentialCreationOptionsJSON {
        let value = try nodeValue(flow, "passkey_create_data").unwrap("passkey_create_data")
        let json = try (JSONSerialization.jsonObject(with: Data(value.utf8)) as? [String: Any]).unwrap("create data JSON")
        let container = wrapped ? try (json["credentialOptions"] as? [String: Any]).unwrap("credentialOptions") : json
        let publicKey = try (container["publicKey"] as? [String: Any]).unwrap("publicKey")
        return try JSONDecoder().decode(PublicKeyCredentialCreationOptionsJSON.self, from: JSONSerialization.data(withJSONObject: publicKey))
    }

    static func requestOptions(_ flow: [String: Any]) throws -> PublicKeyCredentialRequestOptionsJSON {
        let value = try nodeValue(flow, "passkey_challenge").unwrap("passkey_challenge")
        let json = try (JSONSerialization.jsonObject(with: Data(value.utf8)) as? [String: Any]).unwrap("challenge JSON")
        let publicKey = try (json["publicKey"] as? [String: Any]).unwrap("publicKey")
        return try JSONDecoder().decode(PublicKeyCredentialRequestOptionsJSON.self, from: JSONSerialization.data(withJSONObject: publicKey))
    }

    // MARK: - Ceremonies

    /// Creates the passkey with the name the client must put in `user.name` (Kratos leaves
    /// it to the client, from `displayNameFieldName`).
    mutating func create(_ options: PublicKeyCredentialCreationOptionsJSON, name: String) throws -> RegistrationResponseJSON {
        var options = options
        options.user = .init(id: options.user.id, name: name, displayName: name)
        let (response, credential) = try authenticator.makeCredential(options, caller: caller)
        credentials.append(credential)
        return response
    }

    mutating func assert(_ options: PublicKeyCredentialRequestOptionsJSON, index: Int = 0) throws -> AuthenticationResponseJSON {
        try authenticator.getAssertion(options, caller: caller, credential: &credentials[index])
    }

    /// The credential as the platform's sample hands it over: the iOS dictionary written
    /// by `JSONSerialization`, or Credential Manager's JSON string.
    func credentialString(_ response: RegistrationResponseJSON) throws -> String {
        switch platform {
        case .iOS:
            let dictionary: [String: Any] = [
                "id": response.rawId.base64URL, "rawId": response.rawId.base64URL, "type": "public-key",
                "response": ["clientDataJSON": response.response.clientDataJSON.base64URL, "attestationObject": response.response.attestationObject.base64URL],
            ]
            return String(data: try JSONSerialization.data(withJSONObject: dictionary), encoding: .utf8)!
        case .android:
            return CredentialManagerJSON.registration(response)
        }
    }

    func credentialString(_ response: AuthenticationResponseJSON) throws -> String {
        switch platform {
        case .iOS:
            let inner = response.response
            let dictionary: [String: Any] = [
                "id": response.rawId.base64URL, "rawId": response.rawId.base64URL, "type": "public-key",
                "response": [
                    "clientDataJSON": inner.clientDataJSON.base64URL, "authenticatorData": inner.authenticatorData.base64URL,
                    "signature": inner.signature.base64URL, "userHandle": inner.userHandle?.base64URL ?? "",
                ],
            ]
            return String(data: try JSONSerialization.data(withJSONObject: dictionary), encoding: .utf8)!
        case .android:
            return CredentialManagerJSON.authentication(response)
        }
    }

    /// The submission body each sample builds: `JSONSerialization` on iOS; on Android
    /// `JSONObject`, whose `toString()` keeps insertion order and escapes `/` as `\/`.
    func payload(_ fields: [(String, Any)]) throws -> Data {
        switch platform {
        case .iOS:
            return try JSONSerialization.data(withJSONObject: Dictionary(uniqueKeysWithValues: fields))
        case .android:
            func encode(_ value: Any) throws -> String {
                if let text = value as? String { return String(decoding: try JSONEncoder().encode(text), as: UTF8.self) }
                if let object = value as? [(String, Any)] { return "{" + (try object.map { try encode($0.0) + ":" + encode($0.1) }).joined(separator: ",") + "}" }
                throw TestFailure("unsupported JSONObject value")
            }
            return Data(try encode(fields).utf8)
        }
    }

    /// Posts a submission to the flow's `ui.action`.
    func submit(_ flow: [String: Any], _ fields: [(String, Any)], headers: [String: String] = [:]) async throws -> RawHTTP.Reply {
        let action = try ((flow["ui"] as? [String: Any])?["action"] as? String).unwrap("ui.action")
        let path = String(action.dropFirst("http://localhost:8080".count))
        return try await http.send("POST", path, body: try payload(fields), headers: headers)
    }

    // MARK: - Whole journeys

    /// Signs up through the registration flow and returns the reply.
    mutating func signUp(email: String) async throws -> RawHTTP.Reply {
        let flow = try await initialize("/self-service/registration/api").json
        let response = try create(try Self.creationOptions(flow, wrapped: true), name: email)
        let traits: Any = platform == .iOS ? ["email": email] as [String: Any] : [("email", email as Any)]
        return try await submit(flow, [("method", "passkey"), ("passkey_register", try credentialString(response)), ("traits", traits)])
    }

    /// Signs in through a login flow with the credential at `index`.
    mutating func signIn(index: Int = 0) async throws -> RawHTTP.Reply {
        let flow = try await initialize("/self-service/login/api").json
        let response = try assert(try Self.requestOptions(flow), index: index)
        return try await submit(flow, [("method", "passkey"), ("passkey_login", try credentialString(response))])
    }
}

extension Optional {
    func unwrap(_ what: String) throws -> Wrapped {
        guard let self else { throw TestFailure("\(what) is missing") }
        return self
    }
}
