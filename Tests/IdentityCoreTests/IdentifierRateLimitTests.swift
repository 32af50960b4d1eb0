import Foundation
import IdentityCore
import IdentityTestSupport
import Testing
import WebAuthn

/// `limits.identifier_attempts_per_minute`: password guesses naming one account stop at the
/// limit, the right password included, for any spelling of the identifier; the window
/// slides on; another account is unaffected.
@Suite struct IdentifierRateLimitTests {
    /// Limits of `attemptsPerWindow` per identifier, and a password service (with a cheap
    /// hash) that applies them.
    static func passwords(_ fixture: ServiceFixture, attemptsPerWindow: Int) -> (RateLimits, PasswordService) {
        let limits = RateLimits(startsPerWindow: 0, finishesPerWindow: 0, identifierAttemptsPerWindow: attemptsPerWindow, store: fixture.storage, clock: fixture.clock)
        let passwords = PasswordService(
            storage: fixture.storage, hasher: PasswordHasher(logRounds: 4, blockSize: 8, parallelism: 1), clock: fixture.clock, random: SystemRandom(),
            rateLimits: limits
        )
        return (limits, passwords)
    }

    @Test func passwordGuessesPerIdentifierStopAtTheLimit() async throws {
        let fixture = try await ServiceFixture()
        let (_, passwords) = Self.passwords(fixture, attemptsPerWindow: 3)
        _ = try await passwords.signUp(client: fixture.client, email: "ada@example.com", password: "correct horse battery", name: nil, origin: nil)
        _ = try await passwords.signUp(client: fixture.client, email: "bob@example.com", password: "correct horse battery", name: nil, origin: nil)
        // The sign-ups counted too (see below); their window passes first.
        fixture.clock.advance(by: 120)

        for guess in ["wrong one", "wrong two"] {
            await #expect(throws: IdentityError.self) { _ = try await passwords.signIn(client: fixture.client, username: "ada@example.com", password: guess, origin: nil) }
        }
        _ = try await passwords.signIn(client: fixture.client, username: "ADA@example.com", password: "correct horse battery", origin: nil)
        let refused = await #expect(throws: IdentityError.self, "the fourth attempt, even with the right password") {
            _ = try await passwords.signIn(client: fixture.client, username: "ada@example.com", password: "correct horse battery", origin: nil)
        }
        #expect(refused?.code == .tooManyRequests, "\(String(describing: refused))")
        _ = try await passwords.signIn(client: fixture.client, username: "bob@example.com", password: "correct horse battery", origin: nil)

        // Two windows later the count has slid away.
        fixture.clock.advance(by: 120)
        _ = try await passwords.signIn(client: fixture.client, username: "ada@example.com", password: "correct horse battery", origin: nil)
    }

    /// Sign-ups count toward the identifier's limit too, whether the address is free or
    /// taken, so probing one address for an account stops at the limit.
    @Test func signUpsPerIdentifierStopAtTheLimit() async throws {
        let fixture = try await ServiceFixture()
        let (limits, passwords) = Self.passwords(fixture, attemptsPerWindow: 3)
        _ = try await passwords.signUp(client: fixture.client, email: "ada@example.com", password: "correct horse battery", name: nil, origin: nil)
        for _ in 0..<2 {
            let taken = await #expect(throws: IdentityError.self) {
                _ = try await passwords.signUp(client: fixture.client, email: "ADA@example.com", password: "correct horse battery", name: nil, origin: nil)
            }
            #expect(taken?.isUserExists == true, "\(String(describing: taken))")
        }
        let refused = await #expect(throws: IdentityError.self, "the fourth sign-up naming the address") {
            _ = try await passwords.signUp(client: fixture.client, email: "ada@example.com", password: "correct horse battery", name: nil, origin: nil)
        }
        #expect(refused?.code == .tooManyRequests, "\(String(describing: refused))")
        // A passkey sign-up naming it, at the start, is refused the same way.
        let passkeys = try await fixture.passkeys(rateLimits: limits)
        await #expect(throws: IdentityError(.tooManyRequests, "")) {
            _ = try await passkeys.startSignup(client: fixture.client, profile: UserProfile(email: "ada@example.com"))
        }
    }
}
