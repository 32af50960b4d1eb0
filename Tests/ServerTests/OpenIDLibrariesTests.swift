import Foundation
import LatchkeyClient
import Testing

/// The OpenID Connect face as libraries nobody here wrote see it (`scripts/oidc-libraries.py`,
/// authlib and auth0-python from PyPI, versions pinned): discovery validates as OpenID Provider
/// metadata, each client's ID tokens verify with the algorithm it chose (auth0-python's
/// `TokenVerifier` reads `/.well-known/jwks.json` as RSA keys only), and auth0-python's
/// `GetToken.refresh_token`, which sends `scope=""`, keeps the grant and its ID token.
@Suite("OpenID Connect libraries against a real server", .serialized, .timeLimit(.minutes(10)))
struct OpenIDLibrariesTests {
    private static let python = PythonTools.setUp("oidc-libraries.sh", unless: "LATCHKEY_OIDC_PYTHON")

    static let configuration = """
        server: { public_url: http://localhost:8080 }
        relying_party: { id: localhost, name: Latchkey Test, origins: [http://localhost:8080] }
        clients:
          - { client_id: demo, name: Demo app, grant_types: [webauthn, refresh_token] }
          - { client_id: pss, name: PSS app, grant_types: [webauthn, refresh_token], id_token_signed_response_alg: PS256 }
          - { client_id: ec, name: EC app, grant_types: [webauthn, refresh_token], id_token_signed_response_alg: ES256 }
        """

    @Test(arguments: [("demo", "RS256"), ("pss", "PS256"), ("ec", "ES256")])
    func idTokensVerifyWithTheLibraries(client: String, algorithm: String) async throws {
        let python = try Self.python.get()
        let directory = try TemporaryDirectory()
        let server = try await ServerProcess.start(configuration: Self.configuration, in: directory)
        defer { server.stop() }
        var ada = PasskeyUser(server, clientID: client)
        let tokens = try await ada.signUp(SignupProfile(email: "ada.\(client)@example.com"))
        let idToken = try #require(tokens.idToken)
        #expect(header(of: idToken)["alg"] as? String == algorithm)
        let run = try await ExternalCommand.run(python, [
            SMTPSink.repository.appendingPathComponent("scripts/oidc-libraries.py").path, "--base", server.baseURL.absoluteString,
            "--issuer", "http://localhost:8080/", "--client-id", client, "--id-token", idToken, "--algorithm", algorithm,
            "--refresh-token", try #require(tokens.refreshToken),
        ])
        #expect(run.status == 0 && !run.output.contains("FAIL"), "\(run.output)")
        #expect(run.output.contains("ok authlib validates discovery") && run.output.contains("ok authlib verifies"), "\(run.output)")
        if algorithm != "ES256" { #expect(run.output.contains("ok auth0-python's TokenVerifier verifies"), "\(run.output)") }
        #expect(run.output.contains("ok auth0-python's GetToken.refresh_token"), "\(run.output)")
    }
}
