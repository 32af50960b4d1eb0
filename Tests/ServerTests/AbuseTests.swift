import Authenticator
import Foundation
import IdentityCore
import LatchkeyClient
import StorageSQLite
import Testing
import WebAuthn

/// Bad input and abuse, against an in-process server with an injected clock and a real
/// SQLite file. Every case gets its documented error: no 500, nothing half-written, no
/// secret in the answer.
@Suite("Bad input and abuse")
struct AbuseTests {
    static let yaml = """
        clients:
          - { client_id: demo, grant_types: [webauthn, refresh_token] }
          - { client_id: other, grant_types: [webauthn, refresh_token] }
        passkeys: { ceremony_lifetime: 5m }
        """

    private func withServer(_ body: (RouterServer, RawHTTP) async throws -> Void) async throws {
        let server = try await RouterServer.start(yaml: Self.yaml)
        do {
            try await body(server, RawHTTP(server))
        } catch {
            server.stop()
            throw error
        }
        server.stop()
    }

    @Test func malformedBodiesGetInvalidRequest() async throws {
        try await withServer { _, http in
            for path in ["/passkey/register", "/passkey/challenge", "/oauth/token"] {
                for body in ["", "{", "[]", "null", "{\"client_id\": 5}", "\u{0}", String(repeating: "[", count: 10_000)] {
                    let reply = try await http.send("POST", path, body: Data(body.utf8))
                    #expect(reply.status == 400, "\(path) \(body.prefix(20)): \(reply.status) \(reply.text)")
                    #expect(reply.json["error"] as? String == "invalid_request", "\(path): \(reply.text)")
                }
            }
            let reply = try await http.json("POST", "/passkey/register", ["client_id": "demo", "user_profile": ["email": "a@example.com", "password": "hunter2"]])
            #expect(reply.status == 400)
            #expect((reply.json["error_description"] as? String)?.contains("user_profile.password") == true)
        }
    }

    @Test func wrongContentTypeAndOversizedBodies() async throws {
        try await withServer { _, http in
            let form = try await http.send("POST", "/passkey/register", body: Data("client_id=demo".utf8), contentType: "application/x-www-form-urlencoded")
            #expect(form.status == 415)
            #expect(form.json["error"] as? String == "invalid_request")
            let missing = try await http.send("POST", "/passkey/challenge", body: Data("{}".utf8), contentType: nil)
            #expect(missing.status == 415)

            let huge = Data(("{\"client_id\":\"demo\",\"pad\":\"" + String(repeating: "a", count: 200_000) + "\"}").utf8)
            let tooLarge = try await http.send("POST", "/passkey/challenge", body: huge)
            #expect(tooLarge.status == 413)
            #expect(tooLarge.json["error"] as? String == "invalid_request")

            // The webauthn grant cannot travel in a form body.
            let formGrant = try await http.send(
                "POST", "/oauth/token", body: Data("grant_type=urn%3Aokta%3Aparams%3Aoauth%3Agrant-type%3Awebauthn&client_id=demo&auth_session=x".utf8),
                contentType: "application/x-www-form-urlencoded"
            )
            #expect(formGrant.status == 400)
            #expect((formGrant.json["error_description"] as? String)?.contains("authn_response") == true)
        }
    }

    @Test func clientAuthenticationAndGrantTypes() async throws {
        try await withServer { _, http in
            #expect(try await http.json("POST", "/passkey/challenge", [:]).status == 401)
            #expect(try await http.json("POST", "/passkey/challenge", ["client_id": "unknown"]).json["error"] as? String == "invalid_client")
            #expect(try await http.json("POST", "/passkey/challenge", ["client_id": "demo", "client_secret": "guess"]).status == 401)
            let unsupported = try await http.json("POST", "/oauth/token", ["grant_type": "client_credentials", "client_id": "demo"])
            #expect(unsupported.status == 400)
            #expect(unsupported.json["error"] as? String == "unsupported_grant_type")
            // A grant Latchkey knows but this client was not configured for.
            let notAllowed = try await http.json("POST", "/oauth/token", ["grant_type": "password", "client_id": "demo", "username": "a@example.com", "password": "x"])
            #expect(notAllowed.status == 403)
            #expect(notAllowed.json["error"] as? String == "unauthorized_client")
            #expect(try await http.json("POST", "/oauth/token", ["client_id": "demo"]).json["error"] as? String == "invalid_request")
        }
    }

    @Test func authSessionsAreSingleUseBoundToOneClientAndExpire() async throws {
        try await withServer { server, _ in
            var ada = PasskeyUser(server)
            try await ada.signUp(SignupProfile(email: "ada@example.com"))

            // Replay: the same auth_session and response twice.
            let (options, authSession) = try await ada.client.loginChallenge()
            let assertion = try ada.authenticator.getAssertion(options, origin: ada.origin, credential: &ada.credentials[0])
            _ = try await ada.client.finishLogin(authSession: authSession, response: assertion)
            let replay = await expectAPIError(status: 403) { try await ada.client.finishLogin(authSession: authSession, response: assertion) }
            #expect(replay?.code == .invalidGrant)
            #expect(replay?.reason == "invalid_auth_session")

            // Another client cannot use it, and its attempt does not burn it.
            let (options2, session2) = try await ada.client.loginChallenge()
            let assertion2 = try ada.authenticator.getAssertion(options2, origin: ada.origin, credential: &ada.credentials[0])
            let thief = PasskeyUser(server, clientID: "other")
            await expectAPIError(status: 403) { try await thief.client.finishLogin(authSession: session2, response: assertion2) }
            _ = try await ada.client.finishLogin(authSession: session2, response: assertion2)

            // Expiry, by the injected clock.
            let (options3, session3) = try await ada.client.loginChallenge()
            let assertion3 = try ada.authenticator.getAssertion(options3, origin: ada.origin, credential: &ada.credentials[0])
            server.clock.advance(by: 301)
            let expired = await expectAPIError(status: 403) { try await ada.client.finishLogin(authSession: session3, response: assertion3) }
            #expect(expired?.reason == "invalid_auth_session")

            // Unknown and absurd sessions.
            await expectAPIError(status: 403) { try await ada.client.finishLogin(authSession: "no-such-session", response: assertion3) }
            await expectAPIError(status: 403) { try await ada.client.finishLogin(authSession: String(repeating: "x", count: 5000), response: assertion3) }
        }
    }

    @Test func ceremonyMistakesAreRejectedAndNothingIsHalfWritten() async throws {
        try await withServer { server, _ in
            // Wrong origin.
            var mallory = PasskeyUser(server)
            mallory.origin = "https://evil.example"
            let wrongOrigin = await expectAPIError(status: 403) { try await mallory.signUp(SignupProfile(email: "victim@example.com")) }
            #expect(wrongOrigin?.reason == "origin_not_allowed")

            // Wrong RP ID and wrong challenge, signed by an authenticator told other options.
            var user = PasskeyUser(server)
            var (options, authSession) = try await user.client.signupChallenge(profile: SignupProfile(email: "victim@example.com"))
            options.rp.id = "evil.example"
            var (response, _) = try user.authenticator.makeCredential(options, origin: user.origin)
            #expect(await expectAPIError(status: 403) { try await user.client.finishSignup(authSession: authSession, response: response) }?.reason == "rp_id_hash_mismatch")

            (options, authSession) = try await user.client.signupChallenge(profile: SignupProfile(email: "victim@example.com"))
            options.challenge = Base64URLBytes([UInt8](repeating: 1, count: 32))
            (response, _) = try user.authenticator.makeCredential(options, origin: user.origin)
            #expect(await expectAPIError(status: 403) { try await user.client.finishSignup(authSession: authSession, response: response) }?.reason == "challenge_mismatch")

            // None of the failures created the account: the identifier is still free.
            try await user.signUp(SignupProfile(email: "victim@example.com"))
        }
    }

    @Test func unknownCredentialsAndTamperedSignatures() async throws {
        try await withServer { server, _ in
            var ada = PasskeyUser(server)
            try await ada.signUp(SignupProfile(email: "ada@example.com"))

            // A passkey this server never registered (for example one deleted here but still on the device).
            var stranger = PasskeyUser(server)
            let creation = PublicKeyCredentialCreationOptionsJSON(
                rp: .init(id: "localhost", name: "x"), user: .init(id: Base64URLBytes([1]), name: "x", displayName: "x"),
                challenge: Base64URLBytes([1]), pubKeyCredParams: [.init(alg: .es256)]
            )
            let (_, orphan) = try stranger.authenticator.makeCredential(creation, origin: stranger.origin)
            stranger.credentials = [orphan]
            let unknown = await expectAPIError(status: 403) { try await stranger.signIn() }
            #expect(unknown?.reason == "unknown_credential")
            #expect(unknown?.credentialID == Base64URL.encode(orphan.credentialID))

            // A tampered signature.
            let (options, authSession) = try await ada.client.loginChallenge()
            var assertion = try ada.authenticator.getAssertion(options, origin: ada.origin, credential: &ada.credentials[0])
            assertion.response.signature.bytes[8] ^= 0x01
            #expect(await expectAPIError(status: 403) { try await ada.client.finishLogin(authSession: authSession, response: assertion) }?.reason == "bad_signature")
        }
    }

    @Test func counterRegressionIsRejectedAuditedAndFlagged() async throws {
        try await withServer { server, _ in
            var ada = PasskeyUser(server)
            let tokens = try await ada.signUp(SignupProfile(email: "ada@example.com"))
            try await ada.signIn()
            try await ada.signIn()
            // A clone of the authenticator from before those logins.
            var clone = ada
            clone.credentials[0].signCount = 1
            let regressed = await expectAPIError(status: 403) { try await clone.signIn() }
            #expect(regressed?.reason == "sign_count_regressed")

            let storage = try SQLiteStorage(path: server.directory.path("latchkey.sqlite"))
            let events = try await storage.events(userID: nil, limit: 20)
            #expect(events.contains { $0.kind == .signCountRegressed })
            let credential = try #require(try await storage.credential(id: ada.credentials[0].credentialID))
            #expect(credential.hasSignCountRegressed)
            #expect(credential.signCount == 2)
            _ = tokens
        }
    }

    @Test func identifiersThatAreUnicodeLongOrLookLikeSQL() async throws {
        try await withServer { server, http in
            var user = PasskeyUser(server)
            // Unicode, stored in NFC and found from NFD input.
            try await user.signUp(SignupProfile(username: "Zoë_åsa", name: "Zoë Åsa 🦊"))
            let decomposed = "Zoe\u{0308}_a\u{030A}sa"
            try await user.signIn(username: decomposed)

            // SQL-looking identifiers are data.
            var bobby = PasskeyUser(server)
            let sql = "robert');drop_table--users@example.com"
            try await bobby.signUp(SignupProfile(email: sql, name: "Robert'); DROP TABLE users;--"))
            try await bobby.signIn(username: sql)
            try await user.signIn(username: decomposed)

            // Too long.
            for profile: [String: Any] in [
                ["email": String(repeating: "a", count: 300) + "@example.com"],
                ["username": String(repeating: "u", count: 129)],
                ["email": "x@example.com", "name": String(repeating: "n", count: 10_000)],
                ["phone_number": "+1234567890123456789"],
                ["email": "not-an-email"],
                ["email": "two@@example.com"],
                ["name": "no identifier"],
            ] {
                let reply = try await http.json("POST", "/passkey/register", ["client_id": "demo", "user_profile": profile])
                #expect(reply.status == 400, "\(profile): \(reply.text)")
                #expect(reply.json["error"] as? String == "invalid_request")
            }
        }
    }

    @Test func exactlyOneOfTwoConcurrentSignupsWins() async throws {
        try await withServer { server, _ in
            let users = (0..<2).map { _ in PasskeyUser(server) }
            // Both start before either finishes, so both get an auth_session.
            var pending: [(PasskeyUser, RegistrationResponseJSON, String)] = []
            for var user in users {
                let (options, authSession) = try await user.client.signupChallenge(profile: SignupProfile(email: "race@example.com"))
                let (response, credential) = try user.authenticator.makeCredential(options, origin: user.origin)
                user.credentials = [credential]
                pending.append((user, response, authSession))
            }
            let results = await withTaskGroup(of: Bool.self) { group in
                for (user, response, authSession) in pending {
                    group.addTask { (try? await user.client.finishSignup(authSession: authSession, response: response)) != nil }
                }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(results.filter { $0 }.count == 1)
        }
    }

    @Test func myAccountNeedsTheRightTokenAudienceAndScope() async throws {
        try await withServer { server, http in
            var ada = PasskeyUser(server)
            let narrow = try await ada.signUp(SignupProfile(email: "ada@example.com"), scope: "openid email")
            let none = try await http.send("GET", "/me/v1/authentication-methods", contentType: nil)
            #expect(none.status == 401)
            #expect(none.header("WWW-Authenticate")?.contains("invalid_token") == true)
            let forged = try await http.send("GET", "/me/v1/authentication-methods", contentType: nil, headers: ["Authorization": "Bearer " + narrow.accessToken.dropLast(3) + "AAA"])
            #expect(forged.status == 401)
            let scoped = try await http.send("GET", "/me/v1/authentication-methods", contentType: nil, headers: ["Authorization": "Bearer " + narrow.accessToken])
            #expect(scoped.status == 403)
            #expect(scoped.json["type"] as? String == "urn:latchkey:error:insufficient_scope")

            let wide = try await ada.signIn()
            let wrongType = try await http.json("POST", "/me/v1/authentication-methods", ["type": "password"], headers: ["Authorization": "Bearer " + wide.accessToken])
            #expect(wrongType.status == 400)
            #expect((wrongType.json["validation_errors"] as? [[String: Any]])?.first?["field"] as? String == "type")
            let missing = try await http.send("GET", "/me/v1/authentication-methods/passkey%7CAAAA", contentType: nil, headers: ["Authorization": "Bearer " + wide.accessToken])
            #expect(missing.status == 404)

            // Tokens expire by the clock.
            server.clock.advance(by: 3601)
            let expired = try await http.send("GET", "/userinfo", contentType: nil, headers: ["Authorization": "Bearer " + wide.accessToken])
            #expect(expired.status == 401)
        }
    }

    @Test func errorsNeverLeakSecrets() async throws {
        try await withServer { server, http in
            var ada = PasskeyUser(server)
            let tokens = try await ada.signUp(SignupProfile(email: "ada@example.com"))
            let refresh = try #require(tokens.refreshToken)
            let other = try await http.json("POST", "/oauth/token", ["grant_type": "refresh_token", "client_id": "other", "refresh_token": refresh])
            #expect(other.status == 403)
            #expect(!other.text.contains(refresh))
            // The other client's attempt did not consume the token.
            _ = try await ada.client.refresh(refreshToken: refresh)
        }
    }
}
