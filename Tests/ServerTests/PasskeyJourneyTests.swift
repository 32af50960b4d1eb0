import Foundation
import LatchkeyClient
import Testing
import WebAuthn

/// The passkey journey of Apple's "What's new in passkeys" against the real `latchkey`
/// process and SQLite file: sign-up with the account creation API (the identifier arrives
/// with the finished ceremony) and the signals credential managers need.
@Suite("Passkey journey: account creation API and signals", .serialized)
struct PasskeyJourneyTests {
    private func startServer(_ directory: TemporaryDirectory) async throws -> RouterServer {
        try await RouterServer.start(yaml: EndToEndTests.configuration, in: directory)
    }

    /// `ASAuthorizationAccountCreationProvider`: the challenge and user ID come first, the
    /// chosen email and name with the finished passkey.
    @Test func accountCreationSignUpGetsTheIdentifierAtTheFinish() async throws {
        let directory = try TemporaryDirectory()
        let server = try await startServer(directory)
        defer { server.stop() }
        var grace = PasskeyUser(server)

        let (options, authSession) = try await grace.client.signupChallenge(profile: nil)
        #expect(options.user.name == "")
        #expect(options.user.displayName == "")
        #expect(options.user.id.bytes.count == 32)
        let (response, credential) = try grace.authenticator.makeCredential(options, origin: grace.origin)
        grace.credentials.append(credential)

        // Without an identifier the account cannot be created; nothing is used up.
        let missing = await expectAPIError(status: 400) {
            try await grace.client.finishSignup(authSession: authSession, response: response, scope: PasskeyUser.allScopes, audience: grace.audience)
        }
        #expect(missing?.code == .invalidRequest)
        // The same validation as at the start, before the ceremony is touched.
        let invalid = await expectAPIError(status: 400) {
            try await grace.client.finishSignup(
                authSession: authSession, response: response, scope: PasskeyUser.allScopes, audience: grace.audience,
                profile: SignupProfile(email: "not an email")
            )
        }
        #expect(invalid?.code == .invalidRequest)
        #expect(invalid?.detail?.contains("email") == true)

        let tokens = try await grace.client.finishSignup(
            authSession: authSession, response: response, scope: PasskeyUser.allScopes, audience: grace.audience,
            profile: SignupProfile(email: "Grace@Example.com", name: "Grace Hopper")
        )
        let idClaims = claims(of: try #require(tokens.idToken))
        #expect(idClaims["email"] as? String == "grace@example.com")
        #expect(idClaims["name"] as? String == "Grace Hopper")

        // The user ID of the options is the account's user handle, and the passkey signs in.
        let signals = try await grace.client.signals(accessToken: tokens.accessToken)
        #expect(signals.userID == Base64URL.encode(options.user.id.bytes))
        #expect(signals.name == "grace@example.com")
        #expect(signals.displayName == "Grace Hopper")
        let login = try await grace.signIn(username: "grace@example.com")
        #expect(claims(of: login.accessToken)["sub"] as? String == idClaims["sub"] as? String)

        // The ceremony is used: finishing it again is refused.
        await expectAPIError(status: 403) {
            try await grace.client.finishSignup(
                authSession: authSession, response: response, scope: PasskeyUser.allScopes, audience: grace.audience,
                profile: SignupProfile(email: "other@example.com")
            )
        }
    }

    @Test func anIdentifierTakenMeanwhileIsRefusedWithTheNewPasskeyAndNothingWritten() async throws {
        let directory = try TemporaryDirectory()
        let server = try await startServer(directory)
        defer { server.stop() }
        var owner = PasskeyUser(server)
        try await owner.signUp(SignupProfile(email: "taken@example.com"))

        var newcomer = PasskeyUser(server)
        let (options, authSession) = try await newcomer.client.signupChallenge(profile: nil)
        let (response, credential) = try newcomer.authenticator.makeCredential(options, origin: newcomer.origin)
        newcomer.credentials.append(credential)
        let taken = await expectAPIError(status: 400) {
            try await newcomer.client.finishSignup(
                authSession: authSession, response: response, scope: PasskeyUser.allScopes, profile: SignupProfile(email: "TAKEN@example.com", phoneNumber: "+14155550100")
            )
        }
        #expect(taken?.code == .invalidRequest)
        #expect(taken?.reason == "user_exists")
        #expect(taken?.credentialID == Base64URL.encode(credential.credentialID))

        // Nothing was written: the passkey is unknown, and the phone number is still free.
        let unknown = await expectAPIError(status: 403) { try await newcomer.signIn() }
        #expect(unknown?.reason == "unknown_credential")
        let phoneOnly = try await newcomer.client.signupChallenge(profile: SignupProfile(phoneNumber: "+14155550100"))
        #expect(!phoneOnly.authSession.isEmpty)

        // A sign-up started with a profile refuses a second one at the finish.
        let named = PasskeyUser(server)
        let started = try await named.client.signupChallenge(profile: SignupProfile(email: "named@example.com"))
        let (namedResponse, _) = try named.authenticator.makeCredential(started.options, origin: named.origin)
        let twice = await expectAPIError(status: 400) {
            try await named.client.finishSignup(
                authSession: started.authSession, response: namedResponse, profile: SignupProfile(email: "second@example.com")
            )
        }
        #expect(twice?.code == .invalidRequest)
        #expect(twice?.detail?.contains("user_profile") == true)
    }

    /// Two devices finish the account creation sheet for the same email at once: one account.
    @Test func twoDevicesFinishingForOneEmailMakeOneAccount() async throws {
        let directory = try TemporaryDirectory()
        let server = try await startServer(directory)
        defer { server.stop() }
        let rounds = 6
        for round in 0..<rounds {
            let email = "race\(round)@example.com"
            let phone = PasskeyUser(server)
            let laptop = PasskeyUser(server)
            let first = try await phone.client.signupChallenge(profile: nil)
            let second = try await laptop.client.signupChallenge(profile: nil)
            let (firstResponse, _) = try phone.authenticator.makeCredential(first.options, origin: phone.origin)
            let (secondResponse, _) = try laptop.authenticator.makeCredential(second.options, origin: laptop.origin)
            let (phoneClient, laptopClient) = (phone.client, laptop.client)
            @Sendable func finish(_ client: LatchkeyAPIClient, _ authSession: String, _ response: RegistrationResponseJSON) async -> Result<TokenResponse, LatchkeyAPIError> {
                do { return .success(try await client.finishSignup(authSession: authSession, response: response, profile: SignupProfile(email: email))) }
                catch { return .failure(error) }
            }
            async let a = finish(phoneClient, first.authSession, firstResponse)
            async let b = finish(laptopClient, second.authSession, secondResponse)
            let outcomes = await [a, b]
            let successes = outcomes.filter { if case .success = $0 { true } else { false } }
            #expect(successes.count == 1, "round \(round): \(outcomes)")
            for case .failure(let error) in outcomes {
                #expect(error.reason == "user_exists")
            }
        }
    }

    @Test func signalsFollowPasskeysAndTheName() async throws {
        let directory = try TemporaryDirectory()
        let server = try await startServer(directory)
        defer { server.stop() }
        var ada = PasskeyUser(server)
        let signup = try await ada.signUp(SignupProfile(email: "ada@example.com", name: "Ada"))
        let token = signup.accessToken

        // The raw document: every member named, unused_password null while no password was removed.
        let http = RawHTTP(server)
        let raw = try await http.send("GET", "/me/v1/signals", contentType: nil, headers: ["Authorization": "Bearer \(token)"])
        #expect(raw.status == 200)
        #expect(raw.json["rp_id"] as? String == "localhost")
        #expect(raw.json.keys.contains("unused_password"))
        #expect(raw.json["unused_password"] is NSNull)
        #expect(raw.json["all_accepted_credential_ids"] as? [String] == [Base64URL.encode(ada.credentials[0].credentialID)])

        let second = try await ada.enroll(accessToken: token)
        var signals = try await ada.client.signals(accessToken: token)
        #expect(Set(signals.allAcceptedCredentialIDs) == Set(ada.credentials.map { Base64URL.encode($0.credentialID) }))
        try await ada.client.deleteAuthenticationMethod(id: second.id, accessToken: token)
        signals = try await ada.client.signals(accessToken: token)
        #expect(signals.allAcceptedCredentialIDs == [Base64URL.encode(ada.credentials[0].credentialID)])

        // The name: changed, cleared (the account name shows), refused when malformed.
        signals = try await ada.client.updateProfile(name: "Ada Lovelace", accessToken: token)
        #expect(signals.displayName == "Ada Lovelace")
        #expect(signals.name == "ada@example.com")
        #expect(try await ada.client.userInfo(accessToken: token).name == "Ada Lovelace")
        signals = try await ada.client.updateProfile(name: "", accessToken: token)
        #expect(signals.displayName == "ada@example.com")
        let control = await expectAPIError(status: 400) { try await ada.client.updateProfile(name: "Ada\u{7}", accessToken: token) }
        #expect(control?.code.rawValue.hasSuffix("invalid_request") == true)
        let missing = try await http.send("PATCH", "/me/v1/profile", body: Data("{}".utf8), headers: ["Authorization": "Bearer \(token)"])
        #expect(missing.status == 400)

        // Only a credential no account has is reported unknown: a good passkey failing for
        // another reason (here a page on an origin the server does not allow) never is, so a
        // misconfiguration cannot make apps delete good passkeys.
        var elsewhere = ada
        elsewhere.origin = "https://evil.example"
        let misplaced = await expectAPIError(status: 403) { try await elsewhere.signIn() }
        #expect(misplaced?.reason == "origin_not_allowed")
        #expect(misplaced?.reason != "unknown_credential")

        // Each call needs its scope.
        let narrow = try await ada.signIn(scope: "openid read:me:authentication_methods")
        let refused = await expectAPIError(status: 403) { try await ada.client.updateProfile(name: "Eve", accessToken: narrow.accessToken) }
        #expect(refused?.code.rawValue.hasSuffix("insufficient_scope") == true)
        #expect(try await ada.client.signals(accessToken: narrow.accessToken).displayName == "ada@example.com")
        let none = try await ada.signIn(scope: "openid")
        await expectAPIError(status: 403) { try await ada.client.signals(accessToken: none.accessToken) }
        await expectAPIError(status: 401) { try await ada.client.signals(accessToken: "not-a-token") }
    }
}
