import Foundation
import IdentityCore
import Testing

@Suite("Tokens")
struct TokenServiceTests {
    @Test func accessTokensCarryAudienceScopeAndExpiry() async throws {
        let fixture = try await ServiceFixture()
        let (tokens, _) = try await fixture.signUp(email: "ada@example.com")
        let grant = try await fixture.tokens.authorize(tokens.access_token, audience: "https://example.com/me/", scope: Scopes.readAuthenticationMethods)
        #expect(grant.clientID == "app")
        #expect(grant.scopes.contains(Scopes.offlineAccess))

        await #expect(throws: IdentityError(.invalidToken, "")) { try await fixture.tokens.authorize(tokens.access_token, audience: "https://api.example.com") }
        await #expect(throws: IdentityError(.insufficientScope, "")) {
            try await fixture.tokens.authorize(tokens.access_token, scope: "write:everything")
        }
        await #expect(throws: IdentityError(.invalidToken, "")) { try await fixture.tokens.authorize(nil) }
        await #expect(throws: IdentityError(.invalidToken, "")) { try await fixture.tokens.authorize("a.b.c") }
        fixture.clock.advance(by: 601)
        await #expect(throws: IdentityError(.invalidToken, "")) { try await fixture.tokens.authorize(tokens.access_token) }
    }

    @Test func refreshKeepsTheGrantAndMayNarrowTheScope() async throws {
        let fixture = try await ServiceFixture()
        let (tokens, _) = try await fixture.signUp(email: "ada@example.com")
        let refreshToken = try #require(tokens.refresh_token)
        let narrower = try await fixture.tokens.refresh(refreshToken, client: fixture.client, scope: "openid email", audience: nil)
        #expect(narrower.scope == "openid email")
        let rotated = try #require(narrower.refresh_token)
        // The rotated refresh token still carries the original grant.
        let full = try await fixture.tokens.refresh(rotated, client: fixture.client, scope: nil, audience: nil)
        #expect(full.scope == tokens.scope)
        await #expect(throws: IdentityError(.invalidRequest, "")) {
            try await fixture.tokens.refresh(try #require(full.refresh_token), client: fixture.client, scope: "openid phone", audience: nil)
        }
        await #expect(throws: IdentityError(.accessDenied, "")) {
            try await fixture.tokens.refresh(try #require(full.refresh_token), client: fixture.client, scope: nil, audience: "https://elsewhere.example")
        }
    }

    @Test func reusingARotatedTokenRevokesTheSessionAndIsAudited() async throws {
        let fixture = try await ServiceFixture()
        let (tokens, _) = try await fixture.signUp(email: "ada@example.com")
        let first = try #require(tokens.refresh_token)
        let second = try await fixture.tokens.refresh(first, client: fixture.client, scope: nil, audience: nil)
        await #expect(throws: IdentityError(.invalidGrant, "")) { try await fixture.tokens.refresh(first, client: fixture.client, scope: nil, audience: nil) }
        await #expect(throws: IdentityError(.invalidGrant, "")) {
            try await fixture.tokens.refresh(try #require(second.refresh_token), client: fixture.client, scope: nil, audience: nil)
        }
        await #expect(throws: IdentityError(.invalidToken, "")) { try await fixture.tokens.authorize(second.access_token) }
        let events = try await fixture.storage.events(userID: nil, limit: 10)
        #expect(events.contains { $0.kind == .refreshTokenReused })
    }

    @Test func rotatedKeysStayPublishedUntilTheirTokensExpire() async throws {
        let fixture = try await ServiceFixture()
        let (tokens, _) = try await fixture.signUp(email: "ada@example.com")
        let oldKeyID = try await fixture.keys.keySet().keys.first?.kid
        let newKeyID = try await fixture.keys.rotate()
        #expect(newKeyID != oldKeyID)
        #expect(try await fixture.keys.keySet().keys.count == 2)
        _ = try await fixture.tokens.authorize(tokens.access_token)

        fixture.clock.advance(by: 601)
        let published = try await fixture.keys.keySet().keys.map(\.kid)
        #expect(published == [newKeyID])
    }
}

@Suite("Passkey ceremonies")
struct PasskeyServiceTests {
    @Test func unknownUsernamesGetTheSameShapeAsKnownOnes() async throws {
        let fixture = try await ServiceFixture()
        _ = try await fixture.signUp(email: "ada@example.com")
        let known = try await fixture.passkeys.startLogin(client: fixture.client, username: "ada@example.com")
        let unknown = try await fixture.passkeys.startLogin(client: fixture.client, username: "nobody@example.com")
        let again = try await fixture.passkeys.startLogin(client: fixture.client, username: "nobody@example.com")
        #expect(known.options.allowCredentials?.count == unknown.options.allowCredentials?.count)
        #expect(unknown.options.allowCredentials == again.options.allowCredentials, "stable, so that asking twice tells nothing")
        let other = try await fixture.passkeys.startLogin(client: fixture.client, username: "someone@example.com")
        #expect(other.options.allowCredentials != unknown.options.allowCredentials)
        // Shaped like real passkeys: IDs of the lengths authenticators make, in more than one
        // length across accounts, and transports in the order browsers report them.
        var lengths: Set<Int> = []
        for index in 0..<40 {
            let decoy = try #require(try await fixture.passkeys.startLogin(client: fixture.client, username: "nobody\(index)@example.com").options.allowCredentials?.first)
            #expect([16, 20, 32, 48, 64].contains(decoy.id.bytes.count))
            #expect(decoy.transports == ["hybrid", "internal"] || decoy.transports == ["internal"], "\(String(describing: decoy.transports))")
            lengths.insert(decoy.id.bytes.count)
        }
        #expect(lengths.count >= 3)
    }

    @Test func existingIdentifiersAreRefusedAtSignup() async throws {
        let fixture = try await ServiceFixture()
        _ = try await fixture.signUp(email: "ada@example.com")
        let error = await #expect(throws: IdentityError.self) {
            try await fixture.passkeys.startSignup(client: fixture.client, profile: UserProfile(email: "ADA@example.com"))
        }
        #expect(error?.reason == .userExists(.email))
    }

    @Test func anEnrollmentSessionBelongsToOneUser() async throws {
        let fixture = try await ServiceFixture()
        let (adaTokens, _) = try await fixture.signUp(email: "ada@example.com")
        let (bobTokens, _) = try await fixture.signUp(email: "bob@example.com")
        let ada = try await fixture.tokens.authorize(adaTokens.access_token)
        let bob = try await fixture.tokens.authorize(bobTokens.access_token)
        let challenge = try await fixture.passkeys.startEnrollment(userID: ada.userID, clientID: "app")
        let (response, _) = try fixture.authenticator.makeCredential(challenge.options, origin: fixture.origin)
        await #expect(throws: IdentityError(.invalidGrant, "")) {
            try await fixture.passkeys.finishEnrollment(userID: bob.userID, clientID: "app", authSession: challenge.authSession, response: response, by: .owner(bob.signIn))
        }
        // An enrollment session cannot be redeemed at the token endpoint either.
        let second = try await fixture.passkeys.startEnrollment(userID: ada.userID, clientID: "app")
        let (another, _) = try fixture.authenticator.makeCredential(second.options, origin: fixture.origin)
        await #expect(throws: IdentityError(.invalidGrant, "")) {
            try await fixture.passkeys.finishWebAuthnGrant(client: fixture.client, authSession: second.authSession, response: .registration(another), scope: nil, audience: nil)
        }
    }

    @Test func passkeyNamesAreValidatedAndUniquePerUser() async throws {
        let fixture = try await ServiceFixture()
        let (tokens, _) = try await fixture.signUp(email: "ada@example.com")
        let grant = try await fixture.tokens.authorize(tokens.access_token)
        let challenge = try await fixture.passkeys.startEnrollment(userID: grant.userID, clientID: "app")
        let (response, _) = try fixture.authenticator.makeCredential(challenge.options, origin: fixture.origin)
        _ = try await fixture.passkeys.finishEnrollment(userID: grant.userID, clientID: "app", authSession: challenge.authSession, response: response, by: .owner(grant.signIn))
        let methods = try await fixture.accounts.passkeys(of: grant.userID)
        #expect(methods.count == 2)
        _ = try await fixture.accounts.rename(of: grant.userID, methodID: methods[0].methodID, to: "  Laptop  ")
        #expect(try await fixture.accounts.passkey(of: grant.userID, methodID: methods[0].methodID).name == "Laptop")
        await #expect(throws: IdentityError(.conflict, "")) { try await fixture.accounts.rename(of: grant.userID, methodID: methods[1].methodID, to: "Laptop") }
        await #expect(throws: IdentityError(.invalidRequest, "")) { try await fixture.accounts.rename(of: grant.userID, methodID: methods[1].methodID, to: String(repeating: "x", count: 101)) }
        _ = try await fixture.accounts.rename(of: grant.userID, methodID: methods[0].methodID, to: "")
        #expect(try await fixture.accounts.passkey(of: grant.userID, methodID: methods[0].methodID).name == nil)
        await #expect(throws: IdentityError(.notFound, "")) { try await fixture.accounts.passkey(of: grant.userID, methodID: "password|x") }
        await #expect(throws: IdentityError(.notFound, "")) { try await fixture.accounts.passkey(of: grant.userID, methodID: "passkey|!!!") }
    }
}
