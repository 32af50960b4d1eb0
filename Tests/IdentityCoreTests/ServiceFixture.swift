import Authenticator
import Foundation
import IdentityCore
import IdentityTestSupport
import WebAuthn

/// A clock tests move by hand.
final class ManualClock: WallClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date(timeIntervalSince1970: 1_800_000_000)

    func now() -> Date { lock.withLock { current } }
    func advance(by interval: TimeInterval) { lock.withLock { current = current.addingTimeInterval(interval) } }
}

/// IdentityCore's services wired to in-memory storage and a manual clock.
struct ServiceFixture {
    let storage = InMemoryStorage()
    let clock = ManualClock()
    let keys: SigningKeyRing
    let tokens: TokenService
    let passkeys: PasskeyService
    let accounts: AccountService
    let client = OAuthClient(clientID: "app", name: "App", secret: nil, grantTypes: [.webauthn, .refreshToken])
    let authenticator = SoftwareAuthenticator()
    let origin = "https://example.com"

    init(tokenConfiguration: TokenConfiguration = TokenConfiguration(issuer: "https://example.com", accessTokenLifetime: 600, idTokenLifetime: 600)) async throws {
        keys = SigningKeyRing(store: storage, clock: clock, random: SystemRandom(), publicationGrace: tokenConfiguration.longestSignedTokenLifetime, refreshInterval: 0)
        try await keys.prepare()
        tokens = TokenService(configuration: tokenConfiguration, keys: keys, users: storage, refreshTokens: storage, audit: storage, clock: clock, random: SystemRandom())
        passkeys = try await Self.makePasskeys(storage: storage, tokens: tokens, clock: clock, rateLimits: nil)
        accounts = AccountService(storage: storage, clock: clock)
    }

    /// The passkey service over this fixture's storage, with `rateLimits`.
    func passkeys(rateLimits: RateLimits?) async throws -> PasskeyService {
        try await Self.makePasskeys(storage: storage, tokens: tokens, clock: clock, rateLimits: rateLimits)
    }

    private static func makePasskeys(storage: InMemoryStorage, tokens: TokenService, clock: ManualClock, rateLimits: RateLimits?) async throws -> PasskeyService {
        let verifier = WebAuthnVerifier(policy: RelyingPartyPolicy(relyingPartyIDs: ["example.com"], origins: OriginPolicy(["https://example.com"])))
        return PasskeyService(
            configuration: PasskeyConfiguration(relyingPartyID: "example.com", relyingPartyName: "Example"),
            verifier: verifier, storage: storage, tokens: tokens,
            secrets: try await InstanceSecrets.load(from: storage, random: SystemRandom()), clock: clock, random: SystemRandom(), rateLimits: rateLimits
        )
    }

    static let scopes = "openid profile email offline_access create:me:authentication_methods read:me:authentication_methods update:me:authentication_methods delete:me:authentication_methods"

    /// Signs up and returns the tokens and the credential.
    func signUp(email: String) async throws -> (IssuedTokens, SoftwareCredential) {
        let challenge = try await passkeys.startSignup(client: client, profile: UserProfile(email: email))
        let (response, credential) = try authenticator.makeCredential(challenge.options, origin: origin)
        let tokens = try await passkeys.finishWebAuthnGrant(client: client, authSession: challenge.authSession, response: .registration(response), scope: Self.scopes, audience: nil, origin: nil, failureCheck: nil)
        return (tokens, credential)
    }
}
