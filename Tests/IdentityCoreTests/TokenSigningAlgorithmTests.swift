import Crypto
import CryptoExtras
import Foundation
import IdentityCore
import LatchkeyWire
import Testing
import WebAuthn

/// ID tokens are signed as their client chose (RS256 by default, PS256, ES256), access
/// tokens ES256; every token verifies, outside Latchkey's own code, with the key the set
/// publishes for its `kid`, and the RSA-only set holds RSA keys alone.
@Suite("Token signing algorithms")
struct TokenSigningAlgorithmTests {
    static func part(_ jwt: String, _ index: Int) throws -> [String: Any] {
        let bytes = try #require(Base64URL.decode(String(jwt.split(separator: ".")[index])))
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    /// Verifies a compact JWS with swift-crypto directly, from the published JWK.
    static func verifies(_ jwt: String, with set: JSONWebKeySet) throws -> Bool {
        let header = try part(jwt, 0)
        guard let kid = header["kid"] as? String, let alg = header["alg"] as? String, let key = set.keys.first(where: { $0.kid == kid }), key.alg == alg else {
            return false
        }
        let parts = jwt.split(separator: ".")
        let input = Data((parts[0] + "." + parts[1]).utf8)
        let signature = try #require(Base64URL.decode(String(parts[2])))
        switch alg {
        case "ES256":
            let point = [0x04] + (Base64URL.decode(key.x ?? "") ?? []) + (Base64URL.decode(key.y ?? "") ?? [])
            return try P256.Signing.PublicKey(x963Representation: point).isValidSignature(P256.Signing.ECDSASignature(rawRepresentation: signature), for: input)
        default:
            let rsa = try _RSA.Signing.PublicKey(n: Base64URL.decode(key.n ?? "") ?? [], e: Base64URL.decode(key.e ?? "") ?? [])
            return rsa.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: input, padding: alg == "PS256" ? .PSS : .insecurePKCS1v1_5)
        }
    }

    @Test func eachClientGetsItsAlgorithmAndEveryTokenVerifies() async throws {
        let fixture = try await ServiceFixture()
        _ = try await fixture.signUp(email: "ada@example.com")
        let ada = try #require(try await fixture.storage.user(identifier: .email("ada@example.com")))
        for algorithm in SigningAlgorithm.allCases {
            let client = OAuthClient(clientID: "app-\(algorithm.rawValue)", name: "App", secret: nil, grantTypes: [.webauthn], idTokenSigningAlgorithm: algorithm)
            let tokens = try await fixture.tokens.issue(for: ada, client: client, scopes: ["openid", "email"], audience: "https://example.com/", userVerified: true, method: .passkey)
            let idToken = try #require(tokens.idToken)
            #expect(try Self.part(idToken, 0)["alg"] as? String == algorithm.rawValue)
            #expect(try Self.part(tokens.accessToken, 0)["alg"] as? String == "ES256", "access tokens stay ES256")
            let set = try await fixture.tokens.keySet()
            #expect(try Self.verifies(idToken, with: set), "\(algorithm)")
            #expect(try Self.verifies(tokens.accessToken, with: set))
            // A token whose header claims another algorithm than its key's is refused.
            let forged = "\(Base64URL.encode(Array(#"{"alg":"ES256","kid":"\#(try Self.part(idToken, 0)["kid"] as? String ?? "")"}"#.utf8))).\(idToken.split(separator: ".")[1]).\(idToken.split(separator: ".")[2])"
            #expect(try Self.verifies(forged, with: set) == false)
        }
        // No ID token is asked for: nothing is signed with RSA.
        let plain = try await fixture.tokens.issue(
            for: ada, client: OAuthClient(clientID: "api", name: "API", secret: nil, grantTypes: [.webauthn]), scopes: ["email"], audience: "https://example.com/",
            userVerified: true, method: .passkey
        )
        #expect(plain.idToken == nil)
        let rsaOnly = try await fixture.tokens.keySet(rsaOnly: true)
        #expect(rsaOnly.keys.count == 2 && rsaOnly.keys.allSatisfy { $0.kty == "RSA" && $0.e == "AQAB" && $0.x == nil && $0.use == "sig" })
        #expect(Set(rsaOnly.keys.map(\.alg)) == ["RS256", "PS256"])
        // The access token still authorizes (ES256, verified by the service itself).
        #expect(try await fixture.tokens.authorize(plain.accessToken).userID == ada.id)
    }

    /// An API that asked for RSA (`tokens.audiences[].signing_alg`) gets RS256 access tokens,
    /// which verify from the published set and pass this server's own check; every other
    /// audience keeps ES256.
    @Test func anAPIGetsTheAccessTokensItAskedFor() async throws {
        let fixture = try await ServiceFixture(tokenConfiguration: TokenConfiguration(
            issuer: "https://example.com", accessTokenLifetime: 600, idTokenLifetime: 600, apiAudiences: ["https://rsa.example/", "https://ec.example/"],
            accessTokenAlgorithms: ["https://rsa.example/": .rs256]
        ))
        _ = try await fixture.signUp(email: "ada@example.com")
        let ada = try #require(try await fixture.storage.user(identifier: .email("ada@example.com")))
        let client = OAuthClient(clientID: "app", name: "App", secret: nil, grantTypes: [.webauthn])
        for (audience, algorithm) in [("https://rsa.example/", "RS256"), ("https://ec.example/", "ES256")] {
            let tokens = try await fixture.tokens.issue(for: ada, client: client, scopes: ["openid"], audience: audience, userVerified: true, method: .passkey)
            #expect(try Self.part(tokens.accessToken, 0)["alg"] as? String == algorithm, "\(audience)")
            #expect(try Self.part(try #require(tokens.idToken), 0)["alg"] as? String == "RS256", "the client's ID tokens are its own choice")
            #expect(try Self.verifies(tokens.accessToken, with: try await fixture.tokens.keySet()))
            #expect(try await fixture.tokens.authorize(tokens.accessToken, audience: audience).userID == ada.id)
        }
    }
}
