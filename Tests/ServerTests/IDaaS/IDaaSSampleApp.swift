import Authenticator
import Crypto
import Foundation
import WebAuthn

/// What the IDaaS mobile guide's samples and the backend they call do, byte for byte: the
/// backend authenticates as an Administration API application, looks the user up, starts
/// and completes FIDO token registration; the iOS app sends standard base64
/// (`base64EncodedString()`), the Android app forwards Credential Manager's base64url and
/// leaves `credentialId` out of its sign-in.
struct IDaaSSampleApp {
    enum Platform: String, CustomStringConvertible {
        case iOS, android
        var description: String { rawValue }
    }

    static let androidKey = Array(SHA256.hash(data: Data("idaas sample signing certificate".utf8)))
    static let applicationID = "idaas-apps"
    static let adminID = "7c1e5a2b-backend"
    static let adminSecret = "a shared secret of the backend"
    /// The `faces:` section that serves the IDaaS face to the samples' backend, for a
    /// configuration's top level.
    static let facesYAML = """
        faces:
          idaas:
            admin_applications:
              - application_id: \(adminID)
                name: Backend
                shared_secret: \(adminSecret)
        """

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
        case .android: return .androidApp(packageName: "com.example.idaas", signingCertificateSHA256: Self.androidKey)
        }
    }

    /// How the samples write bytes.
    func encode(_ bytes: [UInt8]) -> String {
        platform == .iOS ? Data(bytes).base64EncodedString() : Base64URL.encode(bytes)
    }

    // MARK: - The backend

    /// `POST /api/web/v1/adminapi/authenticate`.
    func adminToken(secret: String = adminSecret) async throws -> RawHTTP.Reply {
        try await http.json("POST", "/api/web/v1/adminapi/authenticate", ["applicationId": Self.adminID, "sharedSecret": secret, "enableWebSession": false])
    }

    /// `POST /api/web/v3/users/userid`.
    func lookUp(_ userID: String, admin: String) async throws -> RawHTTP.Reply {
        try await http.json("POST", "/api/web/v3/users/userid", ["userId": userID], headers: ["Authorization": admin])
    }

    /// `GET /api/web/v1/fidotokens/challenge/:id`.
    func startRegistration(_ userUUID: String, admin: String) async throws -> RawHTTP.Reply {
        try await http.send("GET", "/api/web/v1/fidotokens/challenge/\(userUUID)", contentType: nil, headers: ["Authorization": admin])
    }

    // MARK: - The apps

    /// The app creates the passkey from `FIDORegisterChallenge` as its sample does, and
    /// returns the body its backend posts to `complete`.
    mutating func createPasskey(_ challenge: [String: Any], name: String, username: String) throws -> [String: Any] {
        let options: PublicKeyCredentialCreationOptionsJSON
        switch platform {
        case .iOS:
            // `createCredentialRegistrationRequest(challenge:name:userID:)`: the app decodes
            // the challenge and user ID with `base64UrlToBase64`, names the RP itself, and
            // asks for ES256.
            let challengeBytes = try Self.base64URLToBase64Decoded(challenge["challenge"] as? String)
            let userID = try Self.base64URLToBase64Decoded(challenge["userId"] as? String)
            let displayName = challenge["userDisplayName"] as? String ?? ""
            options = PublicKeyCredentialCreationOptionsJSON(
                rp: .init(id: "localhost", name: "localhost"), user: .init(id: Base64URLBytes(userID), name: displayName, displayName: displayName),
                challenge: Base64URLBytes(challengeBytes), pubKeyCredParams: [.init(alg: .es256)]
            )
        case .android:
            // `prepareCreatePasskeyJsonRequest`, string templating included, parsed as
            // Credential Manager parses it.
            let json = """
                {
                "challenge": "\(challenge["challenge"] as? String ?? "")",
                "rp": { "name": "Relying Party Id Name", "id": "localhost" },
                "user": { "id": "\(challenge["userId"] as? String ?? "")", "name": "\(username)", "displayName": "\(challenge["userDisplayName"] as? String ?? "")" },
                "pubKeyCredParams": [ { "type": "public-key", "alg": -7 }, { "type": "public-key", "alg": -257 } ],
                "timeout": "\(challenge["timeoutMillis"] as? Int ?? 0)",
                "attestation": "none",
                "excludeCredentials": [ { "id": "ghi789", "type": "public-key" }, { "id": "jkl012", "type": "public-key" } ],
                "authenticatorSelection": {
                "authenticatorAttachment": "\((challenge["registrationAuthenticatorAttachment"] as? String ?? "").lowercased())",
                "residentKey": "\((challenge["registrationRequireResidentKey"] as? String ?? "").lowercased())",
                "userVerification": "\((challenge["registrationUserVerification"] as? String ?? "").lowercased())"
                }
                }
                """
            options = try Self.credentialManagerCreationOptions(json)
        }
        let (response, credential) = try authenticator.makeCredential(options, caller: caller)
        credentials.append(credential)
        switch platform {
        case .iOS:
            // `FidoAttestationRequest(attestationObject:clientDataJSON:name:)`.
            return [
                "attestationObject": Data(response.response.attestationObject.bytes).base64EncodedString(),
                "clientDataJSON": Data(response.response.clientDataJSON.bytes).base64EncodedString(),
                "name": name,
            ]
        case .android:
            // `prepareCompleteRegisterRequest`: two members of `registrationResponseJson`.
            let registration = try (JSONSerialization.jsonObject(with: Data(CredentialManagerJSON.registration(response).utf8)) as? [String: Any]).unwrap("registration JSON")
            let inner = try (registration["response"] as? [String: Any]).unwrap("response")
            return ["name": name, "clientDataJSON": inner["clientDataJSON"] ?? "", "attestationObject": inner["attestationObject"] ?? ""]
        }
    }

    /// `POST /api/web/v2/authentication/users/authenticate/{authenticator}`.
    func requestChallenge(userID: String? = nil, authenticator: String = "PASSKEY", applicationID: String = applicationID, rpId: String = "localhost") async throws -> RawHTTP.Reply {
        var body: [String: Any] = ["applicationId": applicationID, "rpId": rpId]
        if let userID { body["userId"] = userID }
        return try await http.json("POST", "/api/web/v2/authentication/users/authenticate/\(authenticator)", body)
    }

    /// The app signs the challenge as its sample does, and returns `fidoResponse`.
    mutating func assert(_ reply: RawHTTP.Reply, index: Int = 0) throws -> [String: Any] {
        let fidoChallenge = try (reply.json["fidoChallenge"] as? [String: Any]).unwrap("fidoChallenge")
        let options: PublicKeyCredentialRequestOptionsJSON
        switch platform {
        case .iOS:
            // `createCredentialAssertionRequest(challenge:)`: no allowed credentials.
            options = PublicKeyCredentialRequestOptionsJSON(challenge: Base64URLBytes(try Self.base64URLToBase64Decoded(fidoChallenge["challenge"] as? String)), rpId: "localhost")
        case .android:
            // `getPasskeyRequestJson`.
            let json = """
                {
                "challenge": "\(fidoChallenge["challenge"] as? String ?? "")",
                "timeout": "\(fidoChallenge["timeoutMillis"] as? Int ?? 0)",
                "userVerification": "required",
                "rpId": "localhost"
                }
                """
            let object = try (JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]).unwrap("request JSON")
            options = PublicKeyCredentialRequestOptionsJSON(
                challenge: try Base64URLBytes(base64URL: object["challenge"] as? String ?? "").unwrap("challenge"), rpId: object["rpId"] as? String,
                userVerification: object["userVerification"] as? String
            )
        }
        let assertion = try authenticator.getAssertion(options, caller: caller, credential: &credentials[index])
        switch platform {
        case .iOS:
            // `FidoResponse(authenticatorData:clientDataJSON:credentialId:signature:userHandle:)`.
            let inner = assertion.response
            return [
                "authenticatorData": encode(inner.authenticatorData.bytes), "clientDataJSON": encode(inner.clientDataJSON.bytes),
                "credentialId": encode(assertion.rawId.bytes), "signature": encode(inner.signature.bytes), "userHandle": encode(inner.userHandle?.bytes ?? []),
            ]
        case .android:
            // `buildFidoResponse`: four members of `authenticationResponseJson`; no credential ID.
            let json = try (JSONSerialization.jsonObject(with: Data(CredentialManagerJSON.authentication(assertion).utf8)) as? [String: Any]).unwrap("assertion JSON")
            let inner = try (json["response"] as? [String: Any]).unwrap("response")
            return [
                "userHandle": inner["userHandle"] ?? "", "clientDataJSON": inner["clientDataJSON"] ?? "",
                "authenticatorData": inner["authenticatorData"] ?? "", "signature": inner["signature"] ?? "",
            ]
        }
    }

    /// `POST /api/web/v1/authentication/users/authenticate/PASSKEY/complete` with the
    /// transaction token as the raw `Authorization` value.
    func complete(token: String, fidoResponse: [String: Any], applicationID: String = applicationID) async throws -> RawHTTP.Reply {
        try await http.json(
            "POST", "/api/web/v1/authentication/users/authenticate/PASSKEY/complete", ["applicationId": applicationID, "fidoResponse": fidoResponse],
            headers: ["Authorization": token]
        )
    }

    /// A whole sign-in; returns the completion's reply.
    mutating func signIn(userID: String? = nil, index: Int = 0) async throws -> RawHTTP.Reply {
        let challenge = try await requestChallenge(userID: userID)
        let token = try (challenge.json["token"] as? String).unwrap("token")
        return try await complete(token: token, fidoResponse: try assert(challenge, index: index))
    }

    // MARK: - Decoding as the samples do

    /// `Data(base64Encoded: text.base64UrlToBase64)!`.
    static func base64URLToBase64Decoded(_ text: String?) throws -> [UInt8] {
        var base64 = (text ?? "").replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Array(try Data(base64Encoded: base64).unwrap("base64"))
    }

    /// Credential Manager reads `challenge` and `user.id` as base64url, `timeout` as a
    /// number or a string, and ignores exclusions it cannot decode.
    static func credentialManagerCreationOptions(_ json: String) throws -> PublicKeyCredentialCreationOptionsJSON {
        let object = try (JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]).unwrap("creation JSON")
        let rp = try (object["rp"] as? [String: Any]).unwrap("rp")
        let user = try (object["user"] as? [String: Any]).unwrap("user")
        let selection = object["authenticatorSelection"] as? [String: Any] ?? [:]
        let algorithms = (object["pubKeyCredParams"] as? [[String: Any]] ?? []).compactMap { $0["alg"] as? Int }.map { COSEAlgorithmIdentifier(rawValue: Int64($0)) }
        return PublicKeyCredentialCreationOptionsJSON(
            rp: .init(id: rp["id"] as? String, name: rp["name"] as? String ?? ""),
            user: .init(
                id: try Base64URLBytes(base64URL: user["id"] as? String ?? "").unwrap("user.id"),
                name: user["name"] as? String ?? "", displayName: user["displayName"] as? String ?? ""
            ),
            challenge: try Base64URLBytes(base64URL: object["challenge"] as? String ?? "").unwrap("challenge"),
            pubKeyCredParams: algorithms.map { .init(alg: $0) },
            authenticatorSelection: .init(residentKey: selection["residentKey"] as? String, userVerification: selection["userVerification"] as? String)
        )
    }
}
