import Authenticator
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LatchkeyClient
import Synchronization
import Testing
import WebAuthn

/// The client's DTOs against the wire shapes of `reference/auth0-native-api.md`, the
/// client's requests through a stubbed URL session, and software credentials through JSON.
@Suite("LatchkeyClient wire coding")
struct LatchkeyClientCodingTests {
    // MARK: - Authentication API

    @Test func signupChallengeResponseDecodes() throws {
        // register.mdx's 200 example, with real base64url in place of the placeholders.
        let json = """
            {
              "authn_params_public_key": {
                "challenge": "dGVzdC1jaGFsbGVuZ2U",
                "timeout": 60000,
                "rp":   { "id": "login.example.com", "name": "login.example.com" },
                "user": { "id": "YXV0aDB8NTA3ZjFm",
                          "name": "user@example.com",
                          "displayName": "John Doe" },
                "pubKeyCredParams": [ {"type":"public-key","alg":-8},
                                      {"type":"public-key","alg":-7},
                                      {"type":"public-key","alg":-257} ],
                "authenticatorSelection": { "residentKey": "required", "userVerification": "preferred" }
              },
              "auth_session": "opaque-session-id"
            }
            """
        let challenge = try JSONDecoder().decode(RegistrationChallenge.self, from: Data(json.utf8))
        #expect(challenge.authSession == "opaque-session-id")
        #expect(challenge.options.challenge.bytes == Array("test-challenge".utf8))
        #expect(challenge.options.timeout == 60000)
        #expect(challenge.options.rp.id == "login.example.com")
        #expect(challenge.options.user.id.bytes == Array("auth0|507f1f".utf8))
        #expect(challenge.options.user.name == "user@example.com")
        #expect(challenge.options.user.displayName == "John Doe")
        #expect(challenge.options.pubKeyCredParams.map(\.alg) == [.edDSA, .es256, .rs256])
        #expect(challenge.options.authenticatorSelection?.residentKey == "required")
        #expect(challenge.options.authenticatorSelection?.userVerification == "preferred")
    }

    @Test func loginChallengeResponseDecodesWithAllowCredentials() throws {
        let json = """
            { "authn_params_public_key": { "challenge": "AQID", "timeout": 60000,
                                           "rpId": "login.example.com", "userVerification": "preferred",
                                           "allowCredentials": [ {"type": "public-key", "id": "CQoL", "transports": ["internal"]} ] },
              "auth_session": "s" }
            """
        let challenge = try JSONDecoder().decode(LoginChallenge.self, from: Data(json.utf8))
        #expect(challenge.options.challenge.bytes == [1, 2, 3])
        #expect(challenge.options.rpId == "login.example.com")
        #expect(challenge.options.userVerification == "preferred")
        #expect(challenge.options.allowCredentials?.map(\.id.bytes) == [[9, 10, 11]])
        #expect(challenge.authSession == "s")
    }

    @Test func signupRequestHasTheAuth0Shape() throws {
        let request = SignupChallengeRequest(
            clientID: "demo",
            userProfile: SignupProfile(email: "user@example.com", phoneNumber: "+14155552671", username: "jdoe", name: "John Doe", givenName: "John")
        )
        let object = try Self.jsonObject(request)
        #expect(Set(object.keys) == ["client_id", "user_profile"])
        #expect(object["client_id"] as? String == "demo")
        let profile = try #require(object["user_profile"] as? [String: Any])
        #expect(Set(profile.keys) == ["email", "phone_number", "username", "name", "given_name"])
        #expect(profile["phone_number"] as? String == "+14155552671")
        #expect(profile["given_name"] as? String == "John")

        let login = try Self.jsonObject(LoginChallengeRequest(clientID: "demo", clientSecret: "s3cret", username: "jdoe"))
        #expect(Set(login.keys) == ["client_id", "client_secret", "username"])
    }

    @Test func webAuthnGrantForSignupEncodesTheDocumentedBody() throws {
        let registration = RegistrationResponseJSON(
            id: "AQID",
            rawId: Base64URLBytes([1, 2, 3]),
            response: AuthenticatorAttestationResponseJSON(clientDataJSON: Base64URLBytes([4, 5]), attestationObject: Base64URLBytes([6, 7])),
            authenticatorAttachment: "platform"
        )
        let request = TokenRequest.webAuthn(
            clientID: "demo", authSession: "session-1", response: .registration(registration),
            scope: "openid profile email offline_access", audience: "http://localhost:8080/me/"
        )
        let object = try Self.jsonObject(request)
        #expect(Set(object.keys) == ["grant_type", "client_id", "scope", "audience", "auth_session", "authn_response"])
        #expect(object["grant_type"] as? String == "urn:okta:params:oauth:grant-type:webauthn")
        #expect(object["auth_session"] as? String == "session-1")
        #expect(object["audience"] as? String == "http://localhost:8080/me/")
        let credential = try #require(object["authn_response"] as? [String: Any])
        #expect(credential["id"] as? String == "AQID")
        #expect(credential["rawId"] as? String == "AQID")
        #expect(credential["type"] as? String == "public-key")
        #expect(credential["authenticatorAttachment"] as? String == "platform")
        let response = try #require(credential["response"] as? [String: Any])
        #expect(Set(response.keys) == ["clientDataJSON", "attestationObject"])
        #expect(response["clientDataJSON"] as? String == "BAU")
        #expect(response["attestationObject"] as? String == "Bgc")
    }

    @Test func webAuthnGrantForLoginEncodesTheAssertion() throws {
        let assertion = AuthenticationResponseJSON(
            id: "AQID",
            rawId: Base64URLBytes([1, 2, 3]),
            response: AuthenticatorAssertionResponseJSON(
                clientDataJSON: Base64URLBytes([4]), authenticatorData: Base64URLBytes([5]),
                signature: Base64URLBytes([6]), userHandle: Base64URLBytes([7])
            )
        )
        let object = try Self.jsonObject(TokenRequest.webAuthn(clientID: "demo", authSession: "s", response: .authentication(assertion)))
        let response = try #require((object["authn_response"] as? [String: Any])?["response"] as? [String: Any])
        #expect(Set(response.keys) == ["clientDataJSON", "authenticatorData", "signature", "userHandle"])
        #expect(response["userHandle"] as? String == "Bw")
        #expect(object["scope"] == nil)
    }

    @Test func refreshGrantEncodes() throws {
        let object = try Self.jsonObject(TokenRequest.refresh(clientID: "demo", refreshToken: "rt"))
        #expect(Set(object.keys) == ["grant_type", "client_id", "refresh_token"])
        #expect(object["grant_type"] as? String == "refresh_token")
    }

    @Test func tokenResponseDecodes() throws {
        let json = """
            { "access_token": "eyJz93a", "refresh_token": "GEzNaYM", "id_token": "eyJ0exA",
              "token_type": "Bearer", "expires_in": 86400, "scope": "openid profile email offline_access" }
            """
        let tokens = try JSONDecoder().decode(TokenResponse.self, from: Data(json.utf8))
        #expect(tokens == TokenResponse(
            accessToken: "eyJz93a", idToken: "eyJ0exA", refreshToken: "GEzNaYM", tokenType: "Bearer",
            expiresIn: 86400, scope: "openid profile email offline_access"
        ))
        let minimal = try JSONDecoder().decode(TokenResponse.self, from: Data(#"{"access_token":"a","token_type":"Bearer","expires_in":60}"#.utf8))
        #expect(minimal.idToken == nil && minimal.refreshToken == nil && minimal.scope == nil)
    }

    // MARK: - My Account

    @Test func enrolledMethodDecodes() throws {
        // The 201 example of §4.2, plus Latchkey's name and provider_name.
        let json = """
            { "id": "passkey|dGVzdC1jcmVkZW50aWFsLWlk", "type": "passkey", "name": "iCloud Keychain",
              "provider_name": "iCloud Keychain",
              "credential_device_type": "multi_device", "credential_backed_up": true,
              "identity_user_id": "auth0|507f1f77bcf86cd799439011",
              "key_id": "dGVzdC1jcmVkZW50aWFsLWlk", "public_key": "pQECAyYgASFYI",
              "transports": ["internal"], "user_agent": "Chrome 131.0.0 / Mac OS X 10.15.7",
              "user_handle": "YXV0aDB8NTA3ZjFm", "aaguid": "08987058-cadc-4b81-b6e1-30de50dcbe96",
              "relying_party_id": "example.auth0.com", "usage": ["primary"],
              "created_at": "2025-01-15T10:30:00.000Z", "last_auth_at": "2025-01-16T10:30:00.000Z" }
            """
        let method = try JSONDecoder().decode(AuthenticationMethod.self, from: Data(json.utf8))
        #expect(method.id == "passkey|dGVzdC1jcmVkZW50aWFsLWlk")
        #expect(method.type == "passkey")
        #expect(method.providerName == "iCloud Keychain")
        #expect(method.isSynced)
        #expect(method.credentialBackedUp == true)
        #expect(method.keyID == "dGVzdC1jcmVkZW50aWFsLWlk")
        #expect(method.transports == ["internal"])
        #expect(method.aaguid == "08987058-cadc-4b81-b6e1-30de50dcbe96")
        #expect(method.relyingPartyID == "example.auth0.com")
        #expect(method.createdAt == "2025-01-15T10:30:00.000Z")
        #expect(method.lastAuthAt == "2025-01-16T10:30:00.000Z")

        let list = try JSONDecoder().decode(
            AuthenticationMethodList.self,
            from: Data(#"{"authentication_methods":[{"id":"passkey|AQ","type":"passkey","credential_device_type":"single_device"},{"id":"email|1","type":"email"}]}"#.utf8)
        )
        #expect(list.authenticationMethods.map(\.id) == ["passkey|AQ", "email|1"])
        #expect(!list.authenticationMethods[0].isSynced)
    }

    @Test func enrollmentRequestsHaveTheMyAccountShape() throws {
        #expect(String(decoding: try JSONEncoder().encode(CreateAuthenticationMethodRequest()), as: UTF8.self) == #"{"type":"passkey"}"#)
        let registration = RegistrationResponseJSON(
            id: "AQ", rawId: Base64URLBytes([1]),
            response: AuthenticatorAttestationResponseJSON(clientDataJSON: Base64URLBytes([2]), attestationObject: Base64URLBytes([3]), transports: ["internal"]),
            authenticatorAttachment: "platform"
        )
        let object = try Self.jsonObject(VerifyAuthenticationMethodRequest(authSession: "Fe26.2**05c4", authnResponse: registration))
        #expect(Set(object.keys) == ["auth_session", "authn_response"])
        let response = try #require((object["authn_response"] as? [String: Any])?["response"] as? [String: Any])
        #expect(response["transports"] as? [String] == ["internal"])
        #expect(String(decoding: try JSONEncoder().encode(UpdateAuthenticationMethodRequest(name: "My iPhone")), as: UTF8.self) == #"{"name":"My iPhone"}"#)
    }

    // MARK: - Errors

    @Test func oauthErrorBodyDecodes() throws {
        let json = #"{"error":"invalid_grant","error_description":"the challenge does not match","reason":"challenge_mismatch","credential_id":"AQID"}"#
        let error = try JSONDecoder().decode(LatchkeyAPIError.self, from: Data(json.utf8))
        #expect(error.code == .invalidGrant)
        #expect(error.detail == "the challenge does not match")
        #expect(error.reason == "challenge_mismatch")
        #expect(error.credentialID == "AQID")
        #expect(error.status == nil)
        #expect(error.validationErrors.isEmpty)
    }

    @Test func myAccountErrorBodyDecodes() throws {
        let json = """
            { "type": "invalid_request", "status": 400, "title": "Bad Request", "detail": "name is too long",
              "validation_errors": [ {"detail": "at most 100 characters", "field": "name", "pointer": "/name", "source": "body"} ] }
            """
        let error = try JSONDecoder().decode(LatchkeyAPIError.self, from: Data(json.utf8))
        #expect(error.code == .invalidRequest)
        #expect(error.status == 400)
        #expect(error.title == "Bad Request")
        #expect(error.detail == "name is too long")
        #expect(error.validationErrors == [.init(detail: "at most 100 characters", field: "name", pointer: "/name", source: "body")])
        #expect(error.description == "HTTP 400 invalid_request: name is too long")
    }

    @Test func auth0FallbackErrorBodyDecodes() throws {
        let error = try JSONDecoder().decode(LatchkeyAPIError.self, from: Data(#"{"code":"too_many_attempts","description":"slow down"}"#.utf8))
        #expect(error.code == "too_many_attempts")
        #expect(error.detail == "slow down")
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(LatchkeyAPIError.self, from: Data(#"{"message":"nope"}"#.utf8)) }
    }

    // MARK: - Requests through a stubbed session

    @Test func finishSignupPostsTheTokenRequest() async throws {
        let stub = StubServer(status: 200, body: #"{"access_token":"at","refresh_token":"rt","token_type":"Bearer","expires_in":3600,"scope":"openid"}"#)
        let registration = RegistrationResponseJSON(
            id: "AQID", rawId: Base64URLBytes([1, 2, 3]),
            response: AuthenticatorAttestationResponseJSON(
                clientDataJSON: Base64URLBytes([4]), attestationObject: Base64URLBytes([5]), transports: ["internal"],
                authenticatorData: Base64URLBytes([6]), publicKey: Base64URLBytes([7]), publicKeyAlgorithm: .es256
            ),
            authenticatorAttachment: "platform"
        )
        let tokens = try await stub.client.finishSignup(authSession: "s", response: registration, scope: "openid", audience: stub.client.myAccountAudience)
        #expect(tokens.accessToken == "at")
        #expect(tokens.refreshToken == "rt")

        let request = try #require(stub.requests.first)
        #expect(request.method == "POST")
        #expect(request.path == "/oauth/token")
        #expect(request.headers["content-type"] == "application/json")
        let body = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
        #expect(body["grant_type"] as? String == TokenRequest.webAuthnGrantType)
        #expect(body["audience"] as? String == "http://\(stub.host)/me/")
        let response = try #require((body["authn_response"] as? [String: Any])?["response"] as? [String: Any])
        // The L3 convenience copies stay home; the attestation object carries the same facts.
        #expect(Set(response.keys) == ["clientDataJSON", "attestationObject", "transports"])
    }

    @Test func myAccountRequestsCarryTheBearerTokenAndEncodedIDs() async throws {
        let stub = StubServer(status: 201, body: #"{"id":"passkey|AQ","type":"passkey","name":"Passkey"}"#)
        let registration = RegistrationResponseJSON(
            id: "AQ", rawId: Base64URLBytes([1]),
            response: AuthenticatorAttestationResponseJSON(clientDataJSON: Base64URLBytes([2]), attestationObject: Base64URLBytes([3]))
        )
        let method = try await stub.client.finishEnrollment(accessToken: "token-1", authSession: "s", response: registration)
        #expect(method.id == "passkey|AQ")
        _ = try await stub.client.authenticationMethod(id: "passkey|AQ", accessToken: "token-1")

        let requests = stub.requests
        #expect(requests.map(\.rawPath) == ["/me/v1/authentication-methods/passkey%7Cnew/verify", "/me/v1/authentication-methods/passkey%7CAQ"])
        #expect(requests.allSatisfy { $0.headers["authorization"] == "Bearer token-1" })
        #expect(requests.last?.method == "GET")
        #expect(requests.last?.body.isEmpty == true)
    }

    @Test func enrollmentStartReturnsTheLocation() async throws {
        let stub = StubServer(
            status: 202,
            body: #"{"auth_session":"Fe26","authn_params_public_key":{"challenge":"AQ","rp":{"id":"localhost","name":"Latchkey"},"user":{"id":"Ag","name":"a@example.com","displayName":"A"},"pubKeyCredParams":[{"type":"public-key","alg":-7}]}}"#,
            headers: ["Location": "/me/v1/authentication-methods/passkey%7Cnew"]
        )
        let (options, authSession, location) = try await stub.client.startEnrollment(accessToken: "t")
        #expect(authSession == "Fe26")
        #expect(options.user.name == "a@example.com")
        #expect(location?.absoluteString == "http://\(stub.host)/me/v1/authentication-methods/passkey%7Cnew")
        let body = try #require(stub.requests.first?.body)
        #expect(String(decoding: body, as: UTF8.self) == #"{"type":"passkey"}"#)
    }

    @Test func errorStatusesBecomeLatchkeyAPIErrors() async throws {
        let stub = StubServer(
            status: 403,
            body: #"{"error":"invalid_grant","error_description":"unknown credential","reason":"unknown_credential","credential_id":"AQ"}"#
        )
        let error = await #expect(throws: LatchkeyAPIError.self) { try await stub.client.refresh(refreshToken: "rt") }
        #expect(error?.status == 403)
        #expect(error?.code == .invalidGrant)
        #expect(error?.reason == "unknown_credential")
        #expect(error?.credentialID == "AQ")

        let html = StubServer(status: 502, body: "<html>Bad Gateway</html>")
        let gateway = await #expect(throws: LatchkeyAPIError.self) { try await html.client.loginChallenge() }
        #expect(gateway?.status == 502)
        #expect(gateway?.code == .invalidResponse)
        #expect(gateway?.detail?.contains("Bad Gateway") == true)

        let garbled = StubServer(status: 200, body: #"{"auth_session":"s"}"#)
        let decoding = await #expect(throws: LatchkeyAPIError.self) { try await garbled.client.loginChallenge() }
        #expect(decoding?.code == .invalidResponse)
        #expect(decoding?.detail?.contains("authn_params_public_key") == true)
    }

    @Test func unreachableServerIsATransportFailure() async throws {
        // Port 9 (discard) on the loopback address: nothing listens there.
        let client = LatchkeyAPIClient(baseURL: try #require(URL(string: "http://127.0.0.1:9")), clientID: "demo")
        let error = await #expect(throws: LatchkeyAPIError.self) { try await client.loginChallenge() }
        #expect(error?.status == nil)
        #expect(error?.code == .transportFailed)
    }

    // MARK: - Software credentials

    @Test(arguments: [COSEAlgorithmIdentifier.es256, .es384, .es512, .edDSA, .ed25519, .rs256, .ps256, .mldsa65, .mldsa87])
    func softwareCredentialRoundTripsAndStillSigns(algorithm: COSEAlgorithmIdentifier) throws {
        let policy = RelyingPartyPolicy(relyingPartyIDs: ["example.com"], origins: OriginPolicy(["https://example.com"]))
        let verifier = WebAuthnVerifier(policy: policy)
        let authenticator = SoftwareAuthenticator()
        let creation = PublicKeyCredentialCreationOptionsJSON(
            rp: .init(id: "example.com", name: "Example"),
            user: .init(id: Base64URLBytes([1, 2, 3, 4]), name: "ada@example.com", displayName: "Ada"),
            challenge: Base64URLBytes(Self.randomBytes(32)),
            pubKeyCredParams: [.init(alg: algorithm)]
        )
        let (registration, original) = try authenticator.makeCredential(creation, origin: "https://example.com", algorithm: algorithm)
        let verified = try verifier.verifyRegistration(registration, for: RegistrationCeremony(challenge: creation.challenge.bytes), at: Date())

        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let encoded = try encoder.encode(original)
        var restored = try JSONDecoder().decode(SoftwareCredential.self, from: encoded)
        #expect(restored.credentialID == original.credentialID)
        #expect(restored.relyingPartyID == "example.com")
        #expect(restored.userHandle == [1, 2, 3, 4])
        #expect(restored.userName == "ada@example.com")
        #expect(restored.signCount == 0)
        #expect(!restored.isSynced)
        #expect(restored.privateKey.algorithm == algorithm)
        #expect(restored.privateKey.coseKeyBytes == original.privateKey.coseKeyBytes)
        #expect(try encoder.encode(restored) == encoded)

        let request = PublicKeyCredentialRequestOptionsJSON(challenge: Base64URLBytes(Self.randomBytes(32)), rpId: "example.com")
        let assertion = try authenticator.getAssertion(request, origin: "https://example.com", credential: &restored)
        let record = CredentialRecord(credentialID: verified.credentialID, publicKey: verified.publicKey, signCount: verified.signCount, userHandle: [1, 2, 3, 4])
        let result = try verifier.verifyAuthentication(assertion, for: AuthenticationCeremony(challenge: request.challenge.bytes), credential: record)
        #expect(result.signCount == 1)
        #expect(restored.signCount == 1)
    }

    @Test func syncedCredentialKeepsItsFlags() throws {
        let creation = PublicKeyCredentialCreationOptionsJSON(
            rp: .init(id: "example.com", name: "Example"),
            user: .init(id: Base64URLBytes([9]), name: "b", displayName: ""),
            challenge: Base64URLBytes([1]),
            pubKeyCredParams: [.init(alg: .es256)]
        )
        let (_, credential) = try SoftwareAuthenticator(createsSyncedCredentials: true).makeCredential(creation, origin: "https://example.com")
        let restored = try JSONDecoder().decode(SoftwareCredential.self, from: try JSONEncoder().encode(credential))
        #expect(restored.isSynced)
    }

    @Test func privateKeyJSONHasAlgorithmFormatAndKey() throws {
        let object = try Self.jsonObject(try CredentialPrivateKey.generate(.es256))
        #expect(Set(object.keys) == ["algorithm", "format", "key"])
        #expect(object["algorithm"] as? Int == -7)
        #expect(object["format"] as? String == "raw")
        #expect((object["key"] as? String).flatMap(Base64URL.decode)?.count == 32)

        #expect(try Self.jsonObject(try CredentialPrivateKey.generate(.rs256))["format"] as? String == "der")
        #expect(try Self.jsonObject(try CredentialPrivateKey.generate(.mldsa65))["format"] as? String == "seed")
    }

    @Test func corruptPrivateKeysAreRejected() {
        let decoder = JSONDecoder()
        for json in [
            #"{"algorithm":-7,"format":"raw","key":"AQID"}"#,  // too short for P-256
            #"{"algorithm":-7,"format":"der","key":"AQID"}"#,  // wrong format for the algorithm
            #"{"algorithm":-47,"key":"AQID"}"#,  // an algorithm the authenticator has no keys for
            #"{"algorithm":-257,"format":"der","key":"AQID"}"#,  // not DER
        ] {
            #expect(throws: DecodingError.self, "\(json)") { try decoder.decode(CredentialPrivateKey.self, from: Data(json.utf8)) }
        }
    }

    // MARK: - Against a running server (opt-in)

    /// Runs every client call against the server at `LATCHKEY_TEST_SERVER` (client `demo`).
    @Test(.enabled(
        if: ProcessInfo.processInfo.environment["LATCHKEY_TEST_SERVER"] != nil,
        "opt-in: set LATCHKEY_TEST_SERVER=http://HOST:PORT to run the Swift client against a running server"
    ))
    func fullFlowAgainstARunningServer() async throws {
        let base = try #require(ProcessInfo.processInfo.environment["LATCHKEY_TEST_SERVER"].flatMap { URL(string: $0) })
        let client = LatchkeyAPIClient(baseURL: base, clientID: "demo")
        let origin = try #require(base.scheme).appending("://").appending(try #require(base.host)).appending(base.port.map { ":\($0)" } ?? "")
        let scope = (["openid", "profile", "email", "offline_access"] + LatchkeyAPIClient.myAccountScopes).joined(separator: " ")
        let email = "client-test-\(UUID().uuidString.prefix(8).lowercased())@example.com"

        let (creation, signupSession) = try await client.signupChallenge(profile: SignupProfile(email: email, name: "Client Test"))
        let (registration, first) = try SoftwareAuthenticator().makeCredential(creation, origin: origin)
        let signup = try await client.finishSignup(authSession: signupSession, response: registration, scope: scope, audience: client.myAccountAudience)
        let info = try await client.userInfo(accessToken: signup.accessToken)
        #expect(info.email == email)

        var credential = first
        let (request, loginSession) = try await client.loginChallenge(username: email)
        #expect(request.allowCredentials?.map(\.id.bytes) == [first.credentialID])
        let assertion = try SoftwareAuthenticator().getAssertion(request, origin: origin, credential: &credential)
        let login = try await client.finishLogin(authSession: loginSession, response: assertion, scope: scope, audience: client.myAccountAudience)

        let (options, enrollSession, location) = try await client.startEnrollment(accessToken: login.accessToken)
        #expect(location?.absoluteString.hasSuffix("passkey%7Cnew") == true)
        let (enrollment, second) = try SoftwareAuthenticator(createsSyncedCredentials: true).makeCredential(options, origin: origin)
        let method = try await client.finishEnrollment(accessToken: login.accessToken, authSession: enrollSession, response: enrollment)
        #expect(method.id == "passkey|" + Base64URL.encode(second.credentialID))
        #expect(method.isSynced)

        #expect(try await client.authenticationMethods(accessToken: login.accessToken).count == 2)
        let renamed = try await client.renameAuthenticationMethod(id: method.id, name: "Renamed", accessToken: login.accessToken)
        #expect(renamed.name == "Renamed")
        #expect(try await client.authenticationMethod(id: method.id, accessToken: login.accessToken).name == "Renamed")
        try await client.deleteAuthenticationMethod(id: method.id, accessToken: login.accessToken)
        let last = await #expect(throws: LatchkeyAPIError.self) {
            try await client.deleteAuthenticationMethod(id: "passkey|" + Base64URL.encode(first.credentialID), accessToken: login.accessToken)
        }
        #expect(last?.status == 409)

        let refreshed = try await client.refresh(refreshToken: try #require(login.refreshToken))
        try await client.revoke(token: try #require(refreshed.refreshToken))
        let revoked = await #expect(throws: LatchkeyAPIError.self) { try await client.refresh(refreshToken: try #require(refreshed.refreshToken)) }
        #expect(revoked?.code == .invalidGrant)
    }

    // MARK: - Helpers

    private static func jsonObject(_ value: some Encodable) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(value)) as? [String: Any])
    }

    private static func randomBytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: .min ... .max) }
    }
}

/// A canned HTTP answer behind a `URLSession`, recording what the client sent. Each stub
/// owns a unique host, so parallel tests never see each other's requests.
private final class StubServer: Sendable {
    /// A request as the stub received it.
    struct Request: Sendable {
        var method: String
        /// The decoded path.
        var path: String
        /// The path exactly as sent, percent-encoding included.
        var rawPath: String
        /// Header names lowercased.
        var headers: [String: String]
        var body: Data
    }

    struct Answer: Sendable {
        var status: Int
        var body: Data
        var headers: [String: String]
    }

    static let registry = Mutex<[String: StubServer]>([:])

    let host = "stub-\(UUID().uuidString.lowercased()).test"
    let answer: Answer
    private let received = Mutex<[Request]>([])

    init(status: Int, body: String, headers: [String: String] = [:]) {
        answer = Answer(status: status, body: Data(body.utf8), headers: headers.merging(["Content-Type": "application/json"]) { current, _ in current })
        Self.registry.withLock { $0[host] = self }
    }

    /// A client for this stub only.
    var client: LatchkeyAPIClient {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [StubURLProtocol.self]
        return LatchkeyAPIClient(baseURL: URL(string: "http://\(host)")!, clientID: "demo", session: URLSession(configuration: configuration))
    }

    var requests: [Request] { received.withLock { $0 } }

    func record(_ request: Request) { received.withLock { $0.append(request) } }
}

/// Routes requests for stub hosts to their ``StubServer``.
private final class StubURLProtocol: URLProtocol {
    override class func canInit(with request: URLRequest) -> Bool {
        request.url?.host?.hasSuffix(".test") == true
    }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        guard let url = request.url, let host = url.host, let stub = StubServer.registry.withLock({ $0[host] }) else {
            client?.urlProtocol(self, didFailWithError: URLError(.cannotFindHost))
            return
        }
        var headers: [String: String] = [:]
        for (name, value) in request.allHTTPHeaderFields ?? [:] { headers[name.lowercased()] = value }
        let rawPath = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? url.path
        stub.record(.init(method: request.httpMethod ?? "GET", path: url.path, rawPath: rawPath, headers: headers, body: Self.body(of: request)))

        let answer = stub.answer
        let response = HTTPURLResponse(url: url, statusCode: answer.status, httpVersion: "HTTP/1.1", headerFields: answer.headers)!
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocol(self, didLoad: answer.body)
        client?.urlProtocolDidFinishLoading(self)
    }

    override func stopLoading() {}

    /// The body, which URLSession may have turned into a stream.
    private static func body(of request: URLRequest) -> Data {
        if let body = request.httpBody { return body }
        guard let stream = request.httpBodyStream else { return Data() }
        stream.open()
        defer { stream.close() }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while stream.hasBytesAvailable {
            let count = stream.read(&buffer, maxLength: buffer.count)
            guard count > 0 else { break }
            data.append(buffer, count: count)
        }
        return data
    }
}
