import Foundation
import IdentityCore
import Testing
import WebAuthn

@Suite("Refresh tokens ordered by issue time")
struct TimeOrderedTokenTests {
    @Test func aTokenIsStoredUnderItsIssueTimeAndItsHash() throws {
        let random = SystemRandom()
        let time = Date(timeIntervalSince1970: 1_800_000_000.123)
        let token = TimeOrderedToken.new(at: time, random: random)
        #expect(token.utf8.count == 52)
        let bytes = try #require(Base64URL.decode(token))
        #expect(bytes.count == 39 && bytes[0] == 1)
        let key = TimeOrderedToken.storageKey(of: token)
        #expect(key.count == 7 + 32)
        #expect(Array(key.prefix(7)) == Array(bytes.prefix(7)), "the version and the millisecond, in the clear")
        #expect(Array(key.suffix(32)) == TokenService.hash(token), "then the hash of the whole token, never the token")
        #expect(!key.contains(subsequence: bytes.suffix(32)), "the random part is not in the key")
        let milliseconds = bytes[1...6].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        #expect(milliseconds == 1_800_000_000_123)
    }

    @Test func laterTokensSortAfterEarlierOnes() {
        let random = SystemRandom()
        var keys: [[UInt8]] = []
        for step in 0..<50 {
            let time = Date(timeIntervalSince1970: 1_800_000_000 + Double(step) * 0.002)
            keys.append(TimeOrderedToken.storageKey(of: TimeOrderedToken.new(at: time, random: random)))
        }
        #expect(keys == keys.sorted { $0.lexicographicallyPrecedes($1) })
    }

    @Test func anythingElseIsStoredUnderItsPlainHash() throws {
        let legacy = Base64URL.encode(SystemRandom().bytes(32))
        #expect(TimeOrderedToken.storageKey(of: legacy) == TokenService.hash(legacy))
        // The right length with another version byte, or text that is not base64url.
        var otherVersion = try #require(Base64URL.decode(TimeOrderedToken.new(at: Date(), random: SystemRandom())))
        otherVersion[0] = 2
        let text = Base64URL.encode(otherVersion)
        #expect(TimeOrderedToken.storageKey(of: text) == TokenService.hash(text))
        let garbage = String(repeating: "!", count: 52)
        #expect(TimeOrderedToken.storageKey(of: garbage) == TokenService.hash(garbage))
    }

    /// A refresh token issued by a build before this format (stored under its plain
    /// SHA-256) still rotates, into a token of the new format; and its reuse is still caught.
    @Test func aTokenIssuedInTheOlderFormatStillRotates() async throws {
        let fixture = try await ServiceFixture()
        let (tokens, _) = try await fixture.signUp(email: "ada@example.com")
        let current = try #require(tokens.refreshToken)
        let stored = try #require(try await fixture.storage.refreshToken(hash: TimeOrderedToken.storageKey(of: current)))
        let legacy = Base64URL.encode(SystemRandom().bytes(32))
        try await fixture.storage.startSession(TokenSessionStart(
            familyID: "legacy-family", userID: stored.userID, clientID: stored.clientID, startedAt: fixture.clock.now(),
            refreshToken: RefreshTokenRecord(
                tokenHash: TokenService.hash(legacy), familyID: "legacy-family", userID: stored.userID, clientID: stored.clientID,
                scopes: stored.scopes, audience: stored.audience, authenticatedAt: fixture.clock.now(), userVerified: true,
                issuedAt: fixture.clock.now(), expiresAt: fixture.clock.now().addingTimeInterval(3600)
            )
        ))
        let rotated = try await fixture.tokens.refresh(legacy, client: fixture.client, scope: nil, audience: nil, origin: nil)
        let next = try #require(rotated.refreshToken)
        #expect(next.utf8.count == 52)
        _ = try await fixture.tokens.refresh(next, client: fixture.client, scope: nil, audience: nil, origin: nil)
        await #expect(throws: IdentityError(.invalidGrant, "")) { try await fixture.tokens.refresh(legacy, client: fixture.client, scope: nil, audience: nil, origin: nil) }
    }
}

private extension Array where Element == UInt8 {
    func contains(subsequence: ArraySlice<UInt8>) -> Bool {
        guard subsequence.count <= count else { return false }
        return (0...(count - subsequence.count)).contains { self[$0..<($0 + subsequence.count)].elementsEqual(subsequence) }
    }
}
