import AppAssociation
import Authenticator
import Crypto
import Foundation
import LatchkeyClient
import Testing
import WebAuthn

/// A real server process configured with an iOS app, an Android app and a related origin:
/// the documents it serves, and the app origins it accepts.
@Suite("Native apps: association files and app origins", .serialized)
struct NativeAppsTests {
    /// Three signing certificates: Play App Signing and upload keys are configured, the
    /// third is a stranger's.
    static let playKey = Array(SHA256.hash(data: Data("play app signing certificate".utf8)))
    static let uploadKey = Array(SHA256.hash(data: Data("upload certificate".utf8)))
    static let strangerKey = Array(SHA256.hash(data: Data("someone else's certificate".utf8)))

    static func hex(_ bytes: [UInt8]) -> String { CertificateFingerprint(sha256: bytes).description }

    static let configuration = """
        server: { public_url: http://localhost:8080 }
        relying_party:
          id: localhost
          name: Latchkey Test
          origins: [http://localhost:8080]
          related_origins: [https://example.co.uk]
        clients:
          - client_id: shiny
            name: Shiny
            ios: { team_id: ABCDE12345, bundle_ids: [com.example.shiny], applinks: ["/open/*"] }
            android:
              package_name: com.example.shiny
              sha256_cert_fingerprints: ["\(hex(playKey))", "\(hex(uploadKey).replacingOccurrences(of: ":", with: "").lowercased())"]
        well_known: { cache_control: "public, max-age=600" }
        """

    static let expectedDocuments: [String: String] = [
        "/.well-known/apple-app-site-association":
            #"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.shiny"],"components":[{"/":"/open/*"}]}]},"webcredentials":{"apps":["ABCDE12345.com.example.shiny"]}}"#,
        "/.well-known/assetlinks.json":
            #"[{"relation":["delegate_permission/common.handle_all_urls","delegate_permission/common.get_login_creds"],"target":{"namespace":"android_app","package_name":"com.example.shiny","sha256_cert_fingerprints":[""#
            + hex(playKey) + #"",""# + hex(uploadKey) + #""]}}]"#,
        "/.well-known/passkey-endpoints": #"{"enroll":"http://localhost:8080/account/passkeys/new","manage":"http://localhost:8080/account/passkeys"}"#,
        "/.well-known/webauthn": #"{"origins":["https://example.co.uk"]}"#,
    ]

    static func start(_ directory: TemporaryDirectory, configuration: String = configuration) async throws -> ServerProcess {
        try configuration.write(toFile: directory.path("latchkey.yaml"), atomically: true, encoding: .utf8)
        return try await ServerProcess.start(
            arguments: ["--config", directory.path("latchkey.yaml"), "--database", "sqlite:" + directory.path("latchkey.sqlite")],
            workingDirectory: directory.url
        )
    }

    @Test func eachDocumentIsServedWithExactBytesAndHeaders() async throws {
        let directory = try TemporaryDirectory()
        let server = try await Self.start(directory)
        defer { server.stop() }
        let http = RawHTTP(server)
        for (path, body) in Self.expectedDocuments {
            let reply = try await http.send("GET", path, contentType: nil)
            #expect(reply.status == 200, "\(path)")
            #expect(reply.header("Content-Type") == "application/json", "\(path)")
            #expect(reply.header("Cache-Control") == "public, max-age=600", "\(path)")
            #expect(reply.header("Location") == nil, "\(path)")
            #expect(reply.text == body, "\(path)")
        }
        #expect(server.output.text.contains("origin android:apk-key-hash:\(Base64URL.encode(Self.playKey)) (Android app com.example.shiny"))
    }

    @Test func unconfiguredDocumentsAre404sThatSayWhatToConfigure() async throws {
        let server = try await RouterServer.start()
        defer { server.stop() }
        let http = RawHTTP(server)
        for (path, words) in [
            ("/.well-known/apple-app-site-association", "ios: { team_id, bundle_ids }"),
            ("/.well-known/assetlinks.json", "android: { package_name, sha256_cert_fingerprints }"),
            ("/.well-known/webauthn", "relying_party.related_origins"),
        ] {
            let reply = try await http.send("GET", path, contentType: nil)
            #expect(reply.status == 404)
            #expect(reply.json["error"] as? String == "not_found")
            #expect((reply.json["error_description"] as? String)?.contains(words) == true, "\(reply.text)")
        }
        let endpoints = try await http.send("GET", "/.well-known/passkey-endpoints", contentType: nil)
        #expect(endpoints.status == 200)
        #expect(endpoints.text == #"{"enroll":"http://localhost:8080/account/passkeys/new","manage":"http://localhost:8080/account/passkeys"}"#)
    }

    /// What an Android app does: fetch options from Latchkey, hand them to Credential
    /// Manager, and post the JSON it returns as `authn_response`.
    struct AndroidAppFlow {
        let client: LatchkeyAPIClient
        let http: RawHTTP
        let authenticator = SoftwareAuthenticator(createsSyncedCredentials: true)

        func signUp(email: String, as app: Caller) async throws -> (RawHTTP.Reply, SoftwareCredential) {
            let (options, authSession) = try await client.signupChallenge(profile: SignupProfile(email: email))
            let (registration, credential) = try authenticator.makeCredential(options, caller: app)
            let reply = try await http.send("POST", "/oauth/token", body: CredentialManagerJSON.tokenRequest(
                clientID: client.clientID, authSession: authSession, authnResponse: CredentialManagerJSON.registration(registration)
            ))
            return (reply, credential)
        }

        func signIn(as app: Caller, with credential: inout SoftwareCredential, forwardingTheString: Bool = false) async throws -> RawHTTP.Reply {
            let (options, authSession) = try await client.loginChallenge()
            let assertion = try authenticator.getAssertion(options, caller: app, credential: &credential)
            return try await http.send("POST", "/oauth/token", body: CredentialManagerJSON.tokenRequest(
                clientID: client.clientID, authSession: authSession, authnResponse: CredentialManagerJSON.authentication(assertion), asString: forwardingTheString
            ))
        }
    }

    @Test func anAndroidAppSignsUpAndInWithEveryConfiguredCertificate() async throws {
        let directory = try TemporaryDirectory()
        let server = try await Self.start(directory)
        defer { server.stop() }
        let client = LatchkeyAPIClient(baseURL: server.baseURL, clientID: "shiny", transport: server.transport)
        let flow = AndroidAppFlow(client: client, http: RawHTTP(server))
        func build(_ package: String, signedWith key: [UInt8]) -> Caller { .androidApp(packageName: package, signingCertificateSHA256: key) }

        // Sign up from the app signed with the Play App Signing key.
        var (signup, credential) = try await flow.signUp(email: "droid@example.com", as: build("com.example.shiny", signedWith: Self.playKey))
        #expect(signup.status == 200, "\(signup.text)")
        #expect(signup.json["refresh_token"] is String)

        // Sign in from a build signed with the upload key.
        let login = try await flow.signIn(as: build("com.example.shiny", signedWith: Self.uploadKey), with: &credential)
        #expect(login.status == 200, "\(login.text)")
        #expect(claims(of: login.json["id_token"] as? String ?? "")["email"] as? String == "droid@example.com")

        // An app that forwards Credential Manager's string without parsing it works too.
        let forwarded = try await flow.signIn(as: build("com.example.shiny", signedWith: Self.playKey), with: &credential, forwardingTheString: true)
        #expect(forwarded.status == 200, "\(forwarded.text)")
        let (_, session) = try await client.loginChallenge()
        for garbage in ["not json", "{\"id\": 5}", ""] {
            let reply = try await flow.http.send("POST", "/oauth/token", body: CredentialManagerJSON.tokenRequest(
                clientID: "shiny", authSession: session, authnResponse: garbage, asString: true
            ))
            #expect(reply.status == 400, "\(garbage): \(reply.text)")
            #expect(reply.json["error"] as? String == "invalid_request")
        }

        // A build signed with a certificate nobody configured is refused, and told why.
        let refused = try await flow.signIn(as: build("com.example.shiny", signedWith: Self.strangerKey), with: &credential)
        #expect(refused.status == 403)
        #expect(refused.json["error"] as? String == "invalid_grant")
        #expect(refused.json["reason"] as? String == "origin_not_allowed")
        let description = refused.json["error_description"] as? String ?? ""
        #expect(description.contains("android:apk-key-hash:\(Base64URL.encode(Self.strangerKey))"))
        #expect(description.contains("clients[].android.sha256_cert_fingerprints"))

        // Another app signed with a configured key may not use the origin either.
        let impersonation = try await flow.signIn(as: build("com.evil.app", signedWith: Self.playKey), with: &credential)
        #expect(impersonation.status == 403)
        #expect(impersonation.json["reason"] as? String == "android_package_not_allowed")

        // Registration from the stranger's build is refused too, and creates no account: the
        // identifier is still free.
        signup = try await flow.signUp(email: "stranger@example.com", as: build("com.example.shiny", signedWith: Self.strangerKey)).0
        #expect(signup.status == 403)
        #expect(signup.json["reason"] as? String == "origin_not_allowed")
        _ = try await client.signupChallenge(profile: SignupProfile(email: "stranger@example.com"))
    }

    @Test func anAppleAppUsesTheRPIDOriginAndARelatedOriginItsOwn() async throws {
        let directory = try TemporaryDirectory()
        let server = try await Self.start(directory)
        defer { server.stop() }
        let client = LatchkeyAPIClient(baseURL: server.baseURL, clientID: "shiny", transport: server.transport)
        let authenticator = SoftwareAuthenticator()

        // iOS reports https://<rp id> for an app with the webcredentials associated domain.
        let iPhone = Caller.appleApp(relyingPartyID: "localhost")
        let (options, authSession) = try await client.signupChallenge(profile: SignupProfile(email: "ios@example.com"))
        let (registration, created) = try authenticator.makeCredential(options, caller: iPhone)
        var credential = created
        #expect(String(decoding: registration.response.clientDataJSON.bytes, as: UTF8.self).contains(#""origin":"https://localhost""#))
        _ = try await client.finishSignup(authSession: authSession, response: registration)
        let (request, loginSession) = try await client.loginChallenge()
        _ = try await client.finishLogin(authSession: loginSession, response: try authenticator.getAssertion(request, caller: iPhone, credential: &credential))

        // A page on a related origin signs in with the same passkey (same RP ID).
        let (request2, session2) = try await client.loginChallenge()
        _ = try await client.finishLogin(
            authSession: session2, response: try authenticator.getAssertion(request2, caller: .webPage(origin: "https://example.co.uk"), credential: &credential)
        )
        // An unrelated origin does not.
        let (request3, session3) = try await client.loginChallenge()
        let refused = await expectAPIError(status: 403) {
            try await client.finishLogin(authSession: session3, response: try authenticator.getAssertion(request3, caller: .webPage(origin: "https://example.de"), credential: &credential))
        }
        #expect(refused?.reason == "origin_not_allowed")
    }

    @Test func withoutAnAppleAppTheRPIDOriginIsRefused() async throws {
        let server = try await RouterServer.start()
        defer { server.stop() }
        let client = LatchkeyAPIClient(baseURL: server.baseURL, clientID: "demo", transport: server.transport)
        let (options, authSession) = try await client.signupChallenge(profile: SignupProfile(email: "ios@example.com"))
        let (registration, _) = try SoftwareAuthenticator().makeCredential(options, caller: .appleApp(relyingPartyID: "localhost"))
        let refused = await expectAPIError(status: 403) { try await client.finishSignup(authSession: authSession, response: registration) }
        #expect(refused?.reason == "origin_not_allowed")
    }
}
