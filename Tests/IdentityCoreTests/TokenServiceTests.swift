import Foundation
import IdentityCore
import Testing

@Suite("Tokens")
struct TokenServiceTests {
    @Test func accessTokensCarryAudienceScopeAndExpiry() async throws {
        let fixture = try await ServiceFixture()
        let (tokens, _) = try await fixture.signUp(email: "ada@example.com")
        let grant = try await fixture.tokens.authorize(tokens.accessToken, audience: "https://example.com/me/", scope: Scopes.readAuthenticationMethods)
        #expect(grant.clientID == "app")
        #expect(grant.scopes.contains(Scopes.offlineAccess))

        await #expect(throws: IdentityError(.invalidToken, "")) { try await fixture.tokens.authorize(tokens.accessToken, audience: "https://api.example.com") }
        await #expect(throws: IdentityError(.insufficientScope, "")) {
            try await fixture.tokens.authorize(tokens.accessToken, scope: "write:everything")
        }
        await #expect(throws: IdentityError(.invalidToken, "")) { try await fixture.tokens.authorize(nil) }
        await #expect(throws: IdentityError(.invalidToken, "")) { try await fixture.tokens.authorize("a.b.c") }
        fixture.clock.advance(by: 601)
        await #expect(throws: IdentityError(.invalidToken, "")) { try await fixture.tokens.authorize(tokens.accessToken) }
    }

    @Test func refreshKeepsTheGrantAndMayNarrowTheScope() async throws {
        let fixture = try await ServiceFixture()
        let (tokens, _) = try await fixture.signUp(email: "ada@example.com")
        let refreshToken = try #require(tokens.refreshToken)
        let narrower = try await fixture.tokens.refresh(refreshToken, client: fixture.client, scope: "openid email", audience: nil, origin: nil)
        #expect(narrower.scope == "openid email")
        let rotated = try #require(narrower.refreshToken)
        // The rotated refresh token still carries the original grant.
        let full = try await fixture.tokens.refresh(rotated, client: fixture.client, scope: nil, audience: nil, origin: nil)
        #expect(full.scope == tokens.scope)
        // An empty or blank scope (auth0-python's default) is no scope: the grant as before,
        // ID token included.
        var current = try #require(full.refreshToken)
        for blank in ["", "  "] {
            let same = try await fixture.tokens.refresh(current, client: fixture.client, scope: blank, audience: nil, origin: nil)
            #expect(same.scope == tokens.scope && same.idToken != nil, "\(blank.debugDescription)")
            current = try #require(same.refreshToken)
        }
        await #expect(throws: IdentityError(.invalidRequest, "")) {
            try await fixture.tokens.refresh(try #require(full.refreshToken), client: fixture.client, scope: "openid phone", audience: nil, origin: nil)
        }
        await #expect(throws: IdentityError(.accessDenied, "")) {
            try await fixture.tokens.refresh(try #require(full.refreshToken), client: fixture.client, scope: nil, audience: "https://elsewhere.example", origin: nil)
        }
    }

    @Test func reusingARotatedTokenRevokesTheSessionAndIsAudited() async throws {
        let fixture = try await ServiceFixture()
        let (tokens, _) = try await fixture.signUp(email: "ada@example.com")
        let first = try #require(tokens.refreshToken)
        let second = try await fixture.tokens.refresh(first, client: fixture.client, scope: nil, audience: nil, origin: nil)
        await #expect(throws: IdentityError(.invalidGrant, "")) { try await fixture.tokens.refresh(first, client: fixture.client, scope: nil, audience: nil, origin: nil) }
        await #expect(throws: IdentityError(.invalidGrant, "")) {
            try await fixture.tokens.refresh(try #require(second.refreshToken), client: fixture.client, scope: nil, audience: nil, origin: nil)
        }
        await #expect(throws: IdentityError(.invalidToken, "")) { try await fixture.tokens.authorize(second.accessToken) }
        let events = try await fixture.storage.events(userID: nil, limit: 10)
        #expect(events.contains { $0.kind == .refreshTokenReused })
    }

    @Test func rotatedKeysStayPublishedUntilTheirTokensExpire() async throws {
        let fixture = try await ServiceFixture()
        let (tokens, _) = try await fixture.signUp(email: "ada@example.com")
        let oldKeyID = try await fixture.keys.keySet(algorithms: [.es256]).keys.first?.kid
        let newKeyID = try await fixture.keys.rotate()
        #expect(newKeyID != oldKeyID)
        #expect(try await fixture.keys.keySet(algorithms: [.es256]).keys.count == 2)
        _ = try await fixture.tokens.authorize(tokens.accessToken)

        fixture.clock.advance(by: 601)
        let published = try await fixture.keys.keySet(algorithms: [.es256]).keys.map(\.kid)
        #expect(published == [newKeyID])
        #expect(try await fixture.keys.keySet().keys.contains { $0.alg == "RS256" }, "the RS256 key that signed the sign-up's ID token is published beside it")
    }
}

@Suite("Passkey ceremonies")
struct PasskeyServiceTests {
    /// What an allow list shows of a passkey: its ID's length and its transports.
    struct Shape: Hashable, CustomStringConvertible {
        let idLength: Int
        let transports: [String]?
        var description: String { "\(idLength):\(transports?.joined(separator: ",") ?? "-")" }
    }

    static func shapes(_ challenge: RequestChallenge) -> [Shape] {
        (challenge.options.allowCredentials ?? []).map { Shape(idLength: $0.id.bytes.count, transports: $0.transports) }
    }

    /// A login for an unknown identifier gets the allow list of a real account of this
    /// deployment, stable per identifier: decoys are distributed as real lists are, including
    /// passkeys registered without transports (some Android backends forward none) and
    /// accounts with two passkeys.
    @Test func unknownUsernamesGetTheSameShapeAsKnownOnes() async throws {
        let fixture = try await ServiceFixture()
        var real: [[Shape]] = []
        for index in 0..<8 {
            let email = "person\(index)@example.com"
            let challenge = try await fixture.passkeys.startSignup(client: fixture.client, profile: UserProfile(email: email))
            var (response, _) = try fixture.authenticator.makeCredential(challenge.options, origin: fixture.origin)
            if index % 2 == 0 { response.response.transports = nil }
            let tokens = try await fixture.passkeys.finishWebAuthnGrant(
                client: fixture.client, authSession: challenge.authSession, response: .registration(response), scope: ServiceFixture.scopes, audience: nil,
                origin: nil, failureCheck: nil
            )
            if index % 4 == 3 {
                let grant = try await fixture.tokens.authorize(tokens.accessToken)
                let enrollment = try await fixture.passkeys.startEnrollment(for: grant.signIn, clientID: fixture.client.clientID)
                let (second, _) = try fixture.authenticator.makeCredential(enrollment.options, origin: fixture.origin)
                _ = try await fixture.passkeys.finishEnrollment(
                    userID: grant.userID, clientID: fixture.client.clientID, authSession: enrollment.authSession, response: second, by: .owner(grant.signIn), origin: nil
                )
            }
            real.append(Self.shapes(try await fixture.passkeys.startLogin(client: fixture.client, username: email)))
        }
        try await fixture.passkeys.refreshDecoys()

        let unknown = try await fixture.passkeys.startLogin(client: fixture.client, username: "nobody@example.com")
        let again = try await fixture.passkeys.startLogin(client: fixture.client, username: "nobody@example.com")
        #expect(unknown.options.allowCredentials == again.options.allowCredentials, "stable, so that asking twice tells nothing")
        var decoys: [[Shape]] = []
        for index in 0..<120 {
            decoys.append(Self.shapes(try await fixture.passkeys.startLogin(client: fixture.client, username: "nobody\(index)@example.com")))
        }
        let realLists = Set(real), decoyLists = Set(decoys)
        #expect(decoyLists.isSubset(of: realLists), "every decoy is shaped like a real list: \(decoyLists.subtracting(realLists))")
        #expect(realLists.isSubset(of: decoyLists), "every real shape shows among the decoys: \(realLists.subtracting(decoyLists))")
        func withoutTransports(_ lists: [[Shape]]) -> Double {
            let shapes = lists.flatMap { $0 }
            return Double(shapes.filter { $0.transports == nil }.count) / Double(shapes.count)
        }
        func twoPasskeys(_ lists: [[Shape]]) -> Double { Double(lists.filter { $0.count == 2 }.count) / Double(lists.count) }
        #expect(abs(withoutTransports(decoys) - withoutTransports(real)) < 0.2, "passkeys without transports: \(withoutTransports(decoys)) of decoys, \(withoutTransports(real)) of real")
        #expect(abs(twoPasskeys(decoys) - twoPasskeys(real)) < 0.2, "lists of two: \(twoPasskeys(decoys)) of decoys, \(twoPasskeys(real)) of real")
        // IDs differ between identifiers and from every real passkey's.
        let other = try await fixture.passkeys.startLogin(client: fixture.client, username: "someone@example.com")
        #expect(other.options.allowCredentials?.first?.id != unknown.options.allowCredentials?.first?.id)
    }

    /// Before any account exists, decoys take the shapes of common platform passkeys, with
    /// transports and without.
    @Test func decoysOfANewDeploymentVaryAsPlatformPasskeysDo() async throws {
        let fixture = try await ServiceFixture()
        try await fixture.passkeys.refreshDecoys()
        var lengths: Set<Int> = []
        var transports: Set<[String]?> = []
        for index in 0..<60 {
            let decoy = try #require(Self.shapes(try await fixture.passkeys.startLogin(client: fixture.client, username: "nobody\(index)@example.com")).first)
            #expect([16, 20, 32, 48, 64].contains(decoy.idLength))
            lengths.insert(decoy.idLength)
            transports.insert(decoy.transports)
        }
        #expect(lengths.count >= 3)
        #expect(transports == [["hybrid", "internal"], ["internal"], nil])
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
        let ada = try await fixture.tokens.authorize(adaTokens.accessToken)
        let bob = try await fixture.tokens.authorize(bobTokens.accessToken)
        let challenge = try await fixture.passkeys.startEnrollment(userID: ada.userID, clientID: "app")
        let (response, _) = try fixture.authenticator.makeCredential(challenge.options, origin: fixture.origin)
        await #expect(throws: IdentityError(.invalidGrant, "")) {
            try await fixture.passkeys.finishEnrollment(userID: bob.userID, clientID: "app", authSession: challenge.authSession, response: response, by: .owner(bob.signIn), origin: nil)
        }
        // An enrollment session cannot be redeemed at the token endpoint either.
        let second = try await fixture.passkeys.startEnrollment(userID: ada.userID, clientID: "app")
        let (another, _) = try fixture.authenticator.makeCredential(second.options, origin: fixture.origin)
        await #expect(throws: IdentityError(.invalidGrant, "")) {
            try await fixture.passkeys.finishWebAuthnGrant(client: fixture.client, authSession: second.authSession, response: .registration(another), scope: nil, audience: nil, origin: nil, failureCheck: nil)
        }
    }

    @Test func passkeyNamesAreValidatedAndUniquePerUser() async throws {
        let fixture = try await ServiceFixture()
        let (tokens, _) = try await fixture.signUp(email: "ada@example.com")
        let grant = try await fixture.tokens.authorize(tokens.accessToken)
        let challenge = try await fixture.passkeys.startEnrollment(userID: grant.userID, clientID: "app")
        let (response, _) = try fixture.authenticator.makeCredential(challenge.options, origin: fixture.origin)
        _ = try await fixture.passkeys.finishEnrollment(userID: grant.userID, clientID: "app", authSession: challenge.authSession, response: response, by: .owner(grant.signIn), origin: nil)
        let methods = try await fixture.accounts.passkeys(of: grant.userID)
        #expect(methods.count == 2)
        _ = try await fixture.accounts.rename(of: grant.userID, methodID: methods[0].methodID, to: "  Laptop  ", origin: nil)
        #expect(try await fixture.accounts.passkey(of: grant.userID, methodID: methods[0].methodID).name == "Laptop")
        await #expect(throws: IdentityError(.conflict, "")) { try await fixture.accounts.rename(of: grant.userID, methodID: methods[1].methodID, to: "Laptop", origin: nil) }
        await #expect(throws: IdentityError(.invalidRequest, "")) { try await fixture.accounts.rename(of: grant.userID, methodID: methods[1].methodID, to: String(repeating: "x", count: 101), origin: nil) }
        _ = try await fixture.accounts.rename(of: grant.userID, methodID: methods[0].methodID, to: "", origin: nil)
        #expect(try await fixture.accounts.passkey(of: grant.userID, methodID: methods[0].methodID).name == nil)
        await #expect(throws: IdentityError(.notFound, "")) { try await fixture.accounts.passkey(of: grant.userID, methodID: "password|x") }
        await #expect(throws: IdentityError(.notFound, "")) { try await fixture.accounts.passkey(of: grant.userID, methodID: "passkey|!!!") }
    }
}
