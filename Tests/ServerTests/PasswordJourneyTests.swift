import Foundation
import LatchkeyClient
import Testing
import WebAuthn

/// From passwords to passkeys against the real `latchkey` process and SQLite file: password
/// sign-up and sign-in in Auth0's shapes, the automatic passkey upgrade (a conditional
/// create right after a password sign-in), and removing the password.
@Suite("Passkey journey: passwords, automatic upgrades, going passwordless", .serialized)
struct PasswordJourneyTests {
    static let configuration = """
        server: { public_url: http://localhost:8080 }
        relying_party: { id: localhost, name: Latchkey Test, origins: [http://localhost:8080] }
        clients:
          - client_id: demo
            name: Demo app
            grant_types: [webauthn, refresh_token, password]
          - client_id: passkeys-only
            name: Passkeys only
            grant_types: [webauthn, refresh_token]
        """

    private func startServer(_ directory: TemporaryDirectory) async throws -> RouterServer {
        try await RouterServer.start(yaml: Self.configuration, in: directory)
    }

    /// Signs up with a password and signs in with it, for the My Account API.
    private func passwordSession(_ client: LatchkeyAPIClient, _ email: String) async throws -> (userID: String, tokens: TokenResponse) {
        let password = "\(email)'s long password"
        let userID = try await client.passwordSignup(email: email, password: password)
        return (userID, try await client.signIn(username: email, password: password, scope: PasskeyUser.allScopes, audience: "http://localhost:8080/me/"))
    }

    @Test func passwordSignUpAndSignInInAuth0sShapes() async throws {
        let directory = try TemporaryDirectory()
        let server = try await startServer(directory)
        defer { server.stop() }
        let http = RawHTTP(server)
        let client = LatchkeyAPIClient(baseURL: server.baseURL, clientID: "demo", transport: server.transport)

        let created = try await http.json("POST", "/dbconnections/signup", [
            "client_id": "demo", "connection": "Username-Password-Authentication", "email": "Pat@Example.com", "password": "correct horse battery", "name": "Pat",
        ])
        #expect(created.status == 200)
        let userID = try #require(created.json["_id"] as? String)
        #expect(created.json["email"] as? String == "pat@example.com")

        // The policy: NIST SP 800-63B, refused as Auth0 refuses, naming the rule.
        for (password, rule) in [("short1", "at least 8"), ("password", "most common"), ("12345678", "most common"), (String(repeating: "x", count: 1025), "at most 1024")] {
            let refused = try await http.json("POST", "/dbconnections/signup", ["client_id": "demo", "email": "new@example.com", "password": password])
            #expect(refused.status == 400)
            #expect(refused.json["error"] as? String == "invalid_password")
            #expect((refused.json["error_description"] as? String)?.contains(rule) == true, "\(refused.text)")
        }
        // No composition rules: a long passphrase of lowercase letters is fine.
        _ = try await client.passwordSignup(email: "phrase@example.com", password: "lowercase words only please")

        let taken = try await http.json("POST", "/dbconnections/signup", ["client_id": "demo", "email": "pat@example.com", "password": "another good one"])
        #expect(taken.status == 400)
        #expect(taken.json["reason"] as? String == "user_exists")
        for body: [String: Any] in [
            ["client_id": "demo", "password": "correct horse battery"],
            ["client_id": "demo", "email": "x@example.com"],
            ["client_id": "demo", "email": "not an email", "password": "correct horse battery"],
            ["client_id": "demo", "email": "y@example.com", "password": "correct horse battery", "connection": "google-oauth2"],
        ] {
            let bad = try await http.json("POST", "/dbconnections/signup", body)
            #expect(bad.status == 400, "\(body): \(bad.text)")
            #expect(bad.json["error"] as? String == "invalid_request")
        }
        let notAllowed = try await http.json("POST", "/dbconnections/signup", ["client_id": "passkeys-only", "email": "z@example.com", "password": "correct horse battery"])
        #expect(notAllowed.status == 403)
        #expect(notAllowed.json["error"] as? String == "unauthorized_client")

        // Sign-in: tokens that say a password was used, in the ID and the access token.
        let tokens = try await client.signIn(username: "PAT@example.com", password: "correct horse battery", scope: PasskeyUser.allScopes, audience: "http://localhost:8080/me/")
        #expect(claims(of: try #require(tokens.idToken))["amr"] as? [String] == ["pwd"])
        #expect(claims(of: tokens.accessToken)["amr"] as? [String] == ["pwd"])
        #expect(claims(of: tokens.accessToken)["sub"] as? String == userID)
        // A refresh keeps saying so.
        let refreshed = try await client.refresh(refreshToken: try #require(tokens.refreshToken))
        #expect(claims(of: refreshed.accessToken)["amr"] as? [String] == ["pwd"])

        // Auth0's password-realm grant, with the default connection's name.
        let realm = try await http.json("POST", "/oauth/token", [
            "grant_type": "http://auth0.com/oauth/grant-type/password-realm", "client_id": "demo", "realm": "Username-Password-Authentication",
            "username": "pat@example.com", "password": "correct horse battery", "scope": "openid",
        ])
        #expect(realm.status == 200, "\(realm.text)")
        for body: [String: Any] in [
            ["grant_type": "http://auth0.com/oauth/grant-type/password-realm", "client_id": "demo", "username": "pat@example.com", "password": "correct horse battery"],
            ["grant_type": "password", "client_id": "demo", "realm": "other", "username": "pat@example.com", "password": "correct horse battery"],
            ["grant_type": "password", "client_id": "demo", "password": "correct horse battery"],
        ] {
            let bad = try await http.json("POST", "/oauth/token", body)
            #expect(bad.status == 400, "\(body): \(bad.text)")
        }
        // The form encoding works as well.
        let form = try await http.send(
            "POST", "/oauth/token", body: Data("grant_type=password&client_id=demo&username=pat%40example.com&password=correct+horse+battery".utf8),
            contentType: "application/x-www-form-urlencoded"
        )
        #expect(form.status == 200, "\(form.text)")

        // Wrong password, unknown email, and an account that has only a passkey: one answer.
        var passkeyOnly = PasskeyUser(server)
        try await passkeyOnly.signUp(SignupProfile(email: "keys@example.com"))
        for (username, password) in [("pat@example.com", "wrong horse battery"), ("nobody@example.com", "correct horse battery"), ("keys@example.com", "correct horse battery")] {
            let refused = try await http.json("POST", "/oauth/token", ["grant_type": "password", "client_id": "demo", "username": username, "password": password])
            #expect(refused.status == 403)
            #expect(refused.json["error"] as? String == "invalid_grant")
            #expect(refused.json["error_description"] as? String == "Wrong email or password.")
            #expect(refused.json["reason"] == nil)
        }
        let noGrant = try await http.json("POST", "/oauth/token", ["grant_type": "password", "client_id": "passkeys-only", "username": "pat@example.com", "password": "correct horse battery"])
        #expect(noGrant.status == 403)
        #expect(noGrant.json["error"] as? String == "unauthorized_client")
    }

    /// The automatic passkey upgrade: right after a password sign-in the app (or page) asks
    /// for a conditional create, which the platform finishes without a prompt (UP=0).
    @Test func automaticPasskeyUpgradeAfterAPasswordSignIn() async throws {
        let directory = try TemporaryDirectory()
        let server = try await startServer(directory)
        defer { server.stop() }
        let client = LatchkeyAPIClient(baseURL: server.baseURL, clientID: "demo", transport: server.transport)
        let session = try await passwordSession(client, "sam@example.com").tokens

        var sam = PasskeyUser(server)
        sam.authenticator.confirmsPresence = false
        sam.authenticator.verifiesUser = false

        // An ordinary enrollment still needs the user present.
        let ordinary = try await client.startEnrollment(accessToken: session.accessToken)
        let (absent, _) = try sam.authenticator.makeCredential(ordinary.options, origin: sam.origin)
        let refused = await expectAPIError(status: 403) {
            try await client.finishEnrollment(accessToken: session.accessToken, authSession: ordinary.authSession, response: absent)
        }
        #expect(refused?.reason == "user_presence_required")

        // The conditional one accepts UP=0 and UV=0.
        let conditional = try await client.startEnrollment(accessToken: session.accessToken, conditional: true)
        #expect(conditional.options.authenticatorSelection?.userVerification == "preferred")
        let (upgrade, credential) = try sam.authenticator.makeCredential(conditional.options, origin: sam.origin)
        sam.credentials.append(credential)
        let method = try await client.finishEnrollment(accessToken: session.accessToken, authSession: conditional.authSession, response: upgrade)
        #expect(method.type == "passkey")
        let methods = try await client.authenticationMethods(accessToken: session.accessToken)
        #expect(methods.map(\.type).sorted() == ["passkey", "password"])

        // Sign-ins still need UP: the new passkey signs in only with the user present.
        sam.authenticator.confirmsPresence = true
        let login = try await sam.signIn()
        #expect(claims(of: login.accessToken)["amr"] as? [String] == ["pop"])

        // A passkey session cannot ask for a conditional create.
        let notPassword = await expectAPIError(status: 403) { try await client.startEnrollment(accessToken: login.accessToken, conditional: true) }
        #expect(notPassword?.detail?.contains("password") == true)
        let badMediation = try await RawHTTP(server).json(
            "POST", "/me/v1/authentication-methods", ["type": "passkey", "mediation": "silent"], headers: ["Authorization": "Bearer \(session.accessToken)"]
        )
        #expect(badMediation.status == 400)
    }

    /// The 5-minute window, with the server's clock moved on.
    @Test func theUpgradeWindowClosesFiveMinutesAfterThePasswordSignIn() async throws {
        let clock = TestClock()
        let server = try await RouterServer.start(yaml: Self.configuration, clock: clock)
        defer { server.stop() }
        let client = LatchkeyAPIClient(baseURL: server.baseURL, clientID: "demo", transport: server.transport)
        let session = try await passwordSession(client, "lee@example.com").tokens
        clock.advance(by: 4 * 60)
        _ = try await client.startEnrollment(accessToken: session.accessToken, conditional: true)
        clock.advance(by: 2 * 60)
        let late = await expectAPIError(status: 403) { try await client.startEnrollment(accessToken: session.accessToken, conditional: true) }
        #expect(late?.detail?.contains("5 minutes") == true)
        // An ordinary enrollment is still possible.
        _ = try await client.startEnrollment(accessToken: session.accessToken)
    }

    @Test func goingPasswordless() async throws {
        let directory = try TemporaryDirectory()
        let server = try await startServer(directory)
        defer { server.stop() }
        let client = LatchkeyAPIClient(baseURL: server.baseURL, clientID: "demo", transport: server.transport)
        let (userID, session) = try await passwordSession(client, "kim@example.com")
        let token = session.accessToken
        let http = RawHTTP(server)

        // The password is a method; removing it needs a passkey first.
        let list = try await http.send("GET", "/me/v1/authentication-methods", contentType: nil, headers: ["Authorization": "Bearer \(token)"])
        let entries = try #require(list.json["authentication_methods"] as? [[String: Any]])
        #expect(entries.count == 1)
        #expect(entries.first?["id"] as? String == "password|\(userID)")
        #expect(entries.first?["type"] as? String == "password")
        #expect(entries.first?["created_at"] is String)
        #expect(entries.first?["last_auth_at"] is String)
        let alone = await expectAPIError(status: 409) { try await client.removePassword(userID: userID, accessToken: token) }
        #expect(alone?.reason == "last_authentication_method")
        #expect(try await client.signals(accessToken: token).unusedPassword == nil)

        var kim = PasskeyUser(server)
        try await kim.enroll(accessToken: token)
        let signals = try await client.removePassword(userID: userID, accessToken: token)
        #expect(signals.unusedPassword == AccountSignals.UnusedPassword(domain: "localhost", username: "kim@example.com"))
        #expect(signals.allAcceptedCredentialIDs == [Base64URL.encode(kim.credentials[0].credentialID)])
        // The password's sessions end with it, this one too: its refresh and access tokens.
        await expectAPIError(status: 401) { try await client.signals(accessToken: token) }
        await expectAPIError(status: 403) { try await client.refresh(refreshToken: try #require(session.refreshToken)) }
        // The passkey signs in, to a session that says so.
        let fresh = try await kim.signIn().accessToken
        #expect(try await client.signals(accessToken: fresh) == signals)
        #expect(try await client.authenticationMethods(accessToken: fresh).map(\.type) == ["passkey"])
        // Gone: the password signs in no more, with the one answer; removing it again is a 404.
        let refused = await expectAPIError(status: 403) { try await client.signIn(username: "kim@example.com", password: "kim@example.com's long password") }
        #expect(refused?.detail == "Wrong email or password.")
        await expectAPIError(status: 404) { try await client.removePassword(userID: userID, accessToken: fresh) }
        // The passkey is now the last way in.
        let methods = try await client.authenticationMethods(accessToken: fresh)
        await expectAPIError(status: 409) { try await client.deleteAuthenticationMethod(id: methods[0].id, accessToken: fresh) }
    }

    /// While the account has a password, its only passkey may go.
    @Test func aPasswordLetsTheLastPasskeyGo() async throws {
        let directory = try TemporaryDirectory()
        let server = try await startServer(directory)
        defer { server.stop() }
        let client = LatchkeyAPIClient(baseURL: server.baseURL, clientID: "demo", transport: server.transport)
        let session = try await passwordSession(client, "max@example.com").tokens
        var max = PasskeyUser(server)
        let passkey = try await max.enroll(accessToken: session.accessToken)
        try await client.deleteAuthenticationMethod(id: passkey.id, accessToken: session.accessToken)
        #expect(try await client.signals(accessToken: session.accessToken).allAcceptedCredentialIDs.isEmpty)
    }
}
