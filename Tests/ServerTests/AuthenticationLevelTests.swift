import Authenticator
import Foundation
import LatchkeyClient
import Testing
import WebAuthn

/// `acr` and `acr_values` against the real `latchkey` process: a synced passkey reaches `phr`
/// and AAL2, a device-bound passkey whose attestation the FIDO metadata vouches for reaches
/// `phrh` and AAL3; a request for more than the sign-in reached asks for a stronger sign-in
/// on the hosted pages once, then answers `unmet_authentication_requirements`.
@Suite("Authentication levels: acr and acr_values", .serialized, .timeLimit(.minutes(10)))
struct AuthenticationLevelTests {
    /// A metadata service, and a model it certifies whose batch key attests its passkeys.
    let metadata: MetadataEndToEndTests
    var directory: TemporaryDirectory { metadata.directory }
    var certified: String { metadata.certified }

    static let aal2 = "http://idmanagement.gov/ns/assurance/aal/2"
    static let aal3 = "http://idmanagement.gov/ns/assurance/aal/3"

    init() throws {
        metadata = try MetadataEndToEndTests()
        try metadata.write(try metadata.blob(1), to: "blob.jwt")
    }

    /// The certified model's authenticator, attesting with its batch key.
    var attestedAuthenticator: SoftwareAuthenticator {
        SoftwareAuthenticator(aaguid: AAGUID(uuidString: certified)!, attestation: .packed(key: metadata.batchKey, chain: metadata.chain))
    }

    var configuration: String {
        """
        server: { public_url: http://localhost:8080 }
        relying_party: { id: localhost, name: Latchkey Test, origins: [http://localhost:8080] }
        passkeys:
          attestation:
            metadata:
              blob: \(directory.path("blob.jwt"))
              root_certificate: \(directory.path("mds-root.pem"))
        clients:
          - client_id: spa
            name: Single-page app
            redirect_uris: [http://localhost:5173/callback]
            first_party: true
          - client_id: native
            name: Native app
            grant_types: [webauthn]
        """
    }

    /// The `acr` of the ID and access tokens a code flow with `acrValues` ends with, or the
    /// error it returns to the client; `nil` acr when the tokens carry none.
    func codeFlow(_ browser: BrowserAgent, acrValues: String?, extra: String = "") async throws -> (idToken: String?, accessToken: String?, error: String?) {
        let values = acrValues.map { "&acr_values=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0) } ?? ""
        let authorized = try await browser.get(HostedPagesTests.authorizePath(extra: values + extra))
        let location = try #require(authorized.header("Location"), "\(authorized.status) \(authorized.text.prefix(300))")
        let parameters = HostedPagesTests.query(location)
        if let error = parameters["error"] { return (nil, nil, error) }
        let code = try #require(parameters["code"], "\(location)")
        let tokens = try await HostedPagesTests().exchange(browser.http, code: code)
        #expect(tokens.status == 200, "\(tokens.text)")
        let idToken = try #require(tokens.json["id_token"] as? String)
        let accessToken = try #require(tokens.json["access_token"] as? String)
        return (claims(of: idToken)["acr"] as? String, claims(of: accessToken)["acr"] as? String, nil)
    }

    @Test func aal2AndAal3AgainstSyncedAndDeviceBoundPasskeys() async throws {
        let server = try await ServerProcess.start(configuration: configuration, in: directory)
        defer { server.stop() }

        // Discovery says what can be asked for.
        let discovery = try await RawHTTP(server).send("GET", "/.well-known/openid-configuration", contentType: nil)
        #expect(discovery.json["acr_values_supported"] as? [String] == ["phrh", "phr", Self.aal3, Self.aal2])
        #expect((discovery.json["claims_supported"] as? [String])?.contains("acr") == true)

        // A synced passkey: phishing-resistant, AAL2; not hardware-protected.
        let ada = BrowserAgent(server)
        ada.authenticator = SoftwareAuthenticator(createsSyncedCredentials: true)
        #expect(try await ada.signUp(email: "ada@example.com").status == 200)
        let plain = try await codeFlow(ada, acrValues: nil)
        #expect(plain.idToken == "phr" && plain.accessToken == "phr", "without acr_values, the strongest OpenID value reached")
        let aal2 = try await codeFlow(ada, acrValues: Self.aal2)
        #expect(aal2.idToken == Self.aal2 && aal2.accessToken == Self.aal2)
        let preferred = try await codeFlow(ada, acrValues: "\(Self.aal3) unknown-value phr")
        #expect(preferred.idToken == "phr", "the first value reached, in the client's order; unknown values dropped")

        // AAL3 from a synced passkey: never silently, and not with prompt=none.
        #expect(try await codeFlow(ada, acrValues: Self.aal3, extra: "&prompt=none").error == "unmet_authentication_requirements")
        let stepUp = try await ada.get(HostedPagesTests.authorizePath(extra: "&acr_values=phrh"))
        let login = try #require(stepUp.header("Location"))
        #expect(stepUp.status == 302 && login.hasPrefix("/login?") && login.contains("step_up=3") && login.contains("reauthenticate=1"), "\(login)")
        let page = try await ada.get(login)
        #expect(page.text.contains("asks for a stronger sign-in"))
        // Signing in again with the same synced passkey does not reach it: the client hears so.
        let returnTo = try #require(HostedPagesTests.query("http://x" + login)["return_to"])
        let again = try await ada.signIn(returnTo: returnTo)
        let back = try #require(again.json["redirect_to"] as? String)
        #expect(back.contains("latchkey_step_up=1"))
        let unmet = try await ada.get(back)
        let refused = HostedPagesTests.query(unmet.header("Location"))
        #expect(refused["error"] == "unmet_authentication_requirements", "\(String(describing: unmet.header("Location")))")
        #expect(refused["state"] == "xyz")
        #expect(refused["error_description"]?.contains("bound to one device") == true)

        // A device-bound passkey of a certified model, attested: hardware-protected, AAL3.
        let bo = BrowserAgent(server)
        bo.authenticator = attestedAuthenticator
        #expect(try await bo.signUp(email: "bo@example.com").status == 200)
        let hardware = try await codeFlow(bo, acrValues: nil)
        #expect(hardware.idToken == "phrh" && hardware.accessToken == "phrh")
        let aal3 = try await codeFlow(bo, acrValues: Self.aal3)
        #expect(aal3.idToken == Self.aal3 && aal3.accessToken == Self.aal3)
        #expect(try await codeFlow(bo, acrValues: Self.aal2).idToken == Self.aal2, "AAL3 satisfies a request for AAL2")

        // The same device-bound model without attestation proves nothing about its key.
        let cy = BrowserAgent(server)
        cy.authenticator = SoftwareAuthenticator(aaguid: AAGUID(uuidString: certified)!, attestation: SoftwareAuthenticator.Attestation.none)
        #expect(try await cy.signUp(email: "cy@example.com").status == 200)
        #expect(try await codeFlow(cy, acrValues: nil).idToken == "phr")
        #expect(try await codeFlow(cy, acrValues: Self.aal3, extra: "&prompt=none").error == "unmet_authentication_requirements")

        // A passkey that did not verify the user reaches no level: no acr at all.
        let di = BrowserAgent(server)
        di.authenticator = SoftwareAuthenticator(verifiesUser: false)
        #expect(try await di.signUp(email: "di@example.com").status == 200)
        let basic = try await codeFlow(di, acrValues: nil)
        #expect(basic.idToken == nil && basic.accessToken == nil && basic.error == nil)

        // The native grant says the level too.
        var native = PasskeyUser(server, clientID: "native")
        native.authenticator = attestedAuthenticator
        let tokens = try await native.signUp(SignupProfile(email: "ed@example.com"), scope: "openid")
        #expect(claims(of: try #require(tokens.idToken))["acr"] as? String == "phrh")
        #expect(claims(of: tokens.accessToken)["acr"] as? String == "phrh")
    }
}
