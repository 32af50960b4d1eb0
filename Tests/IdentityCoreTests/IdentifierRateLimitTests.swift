import Foundation
import IdentityCore
import IdentityTestSupport
import Testing
import WebAuthn

/// `limits.identifier_attempts_per_minute`: password guesses naming one account stop at the
/// limit, the right password included, for any spelling of the identifier; the window
/// slides on; another account is unaffected.
@Suite struct IdentifierRateLimitTests {
    @Test func passwordGuessesPerIdentifierStopAtTheLimit() async throws {
        let fixture = try await ServiceFixture()
        let limits = RateLimits(startsPerWindow: 0, finishesPerWindow: 0, identifierAttemptsPerWindow: 3, store: fixture.storage, clock: fixture.clock)
        let passwords = PasswordService(
            storage: fixture.storage, hasher: PasswordHasher(logRounds: 4, blockSize: 8, parallelism: 1), clock: fixture.clock, random: SystemRandom(),
            rateLimits: limits
        )
        _ = try await passwords.signUp(client: fixture.client, email: "ada@example.com", password: "correct horse battery", name: nil)
        _ = try await passwords.signUp(client: fixture.client, email: "bob@example.com", password: "correct horse battery", name: nil)

        for guess in ["wrong one", "wrong two"] {
            await #expect(throws: IdentityError.self) { _ = try await passwords.signIn(client: fixture.client, username: "ada@example.com", password: guess) }
        }
        _ = try await passwords.signIn(client: fixture.client, username: "ADA@example.com", password: "correct horse battery")
        let refused = await #expect(throws: IdentityError.self, "the fourth attempt, even with the right password") {
            _ = try await passwords.signIn(client: fixture.client, username: "ada@example.com", password: "correct horse battery")
        }
        #expect(refused?.code == .tooManyRequests, "\(String(describing: refused))")
        _ = try await passwords.signIn(client: fixture.client, username: "bob@example.com", password: "correct horse battery")

        // Two windows later the count has slid away.
        fixture.clock.advance(by: 120)
        _ = try await passwords.signIn(client: fixture.client, username: "ada@example.com", password: "correct horse battery")
    }
}
