import Foundation
@testable import IdentityCore
import IdentityTestSupport
import Testing
import WebAuthn

/// Defence in depth for tokens and keys: an access token's session must be its subject's;
/// the keys at rest open only under the key that sealed them, and only in their own row;
/// per-address limits count an IPv6 host by its prefix.
@Suite("Keys, sessions and addresses")
struct KeysAndSessionsTests {
    /// A token signed with the server's own key, naming one account as its subject and
    /// another account's session, is refused where the session is looked up.
    @Test func anAccessTokensSessionMustBeItsSubjects() async throws {
        let fixture = try await ServiceFixture()
        let (ada, _) = try await fixture.signUp(email: "ada@example.com")
        let (bob, _) = try await fixture.signUp(email: "bob@example.com")
        let bobsSession = try await fixture.tokens.authorize(bob.accessToken).sessionID
        let payload = try #require(Base64URL.decode(ada.accessToken.split(separator: ".")[1]))
        var claims = try JSONDecoder().decode(AccessTokenClaims.self, from: Data(payload))
        let signing = try await fixture.keys.activeKey()
        let genuine = try JSONWebSignature.sign(payload: claims.json, header: signing.accessTokenHeader, key: signing.key)
        #expect(try await fixture.tokens.authorize(genuine).userID.rawValue == claims.sub, "re-signing changes nothing")

        claims.sid = bobsSession
        let crossed = try JSONWebSignature.sign(payload: claims.json, header: signing.accessTokenHeader, key: signing.key)
        await #expect(throws: IdentityError(.invalidToken, "")) { try await fixture.tokens.authorize(crossed) }
    }

    @Test func sealedKeysOpenOnlyUnderTheirKeyAndInTheirRow() throws {
        let key = try #require(KeyEncryption(key: Array(repeating: 7, count: 32)))
        let other = try #require(KeyEncryption(key: Array(repeating: 8, count: 32)))
        let secret = Array(repeating: UInt8(42), count: 32)
        let sealed = try key.seal(secret, name: "secret:ceremony-seal")
        #expect(KeyEncryption.isSealed(sealed) && !KeyEncryption.isSealed(secret))
        #expect(sealed.count == 72)
        #expect(KeyEncryption.sealingKeyID(of: sealed) == key.keyID)
        #expect(try key.open(sealed, name: "secret:ceremony-seal") == secret)
        #expect(try key.open(secret, name: "secret:ceremony-seal") == secret, "a value in the clear is taken as it is")
        #expect(throws: KeyEncryption.Failure.wrongKey(sealedUnder: key.keyID, given: other.keyID)) { try other.open(sealed, name: "secret:ceremony-seal") }
        #expect(throws: KeyEncryption.Failure.damaged(name: "secret:login-decoy"), "moved to another row") { try key.open(sealed, name: "secret:login-decoy") }
        var flipped = sealed
        flipped[40] ^= 1
        #expect(throws: KeyEncryption.Failure.damaged(name: "secret:ceremony-seal")) { try key.open(flipped, name: "secret:ceremony-seal") }
        #expect(throws: KeyEncryption.Failure.noKey(sealedUnder: key.keyID)) { try KeyEncryption.unsealed(sealed) }
        #expect(try KeyEncryption.unsealed(secret) == secret)
        #expect(key.keyID.count == 16 && key.keyID != other.keyID)
    }

    /// A key-encryption key is 32 bytes, written as an operator writes it.
    @Test func keyEncryptionKeysAreReadAsOperatorsWriteThem() throws {
        let bytes = (0..<32).map { UInt8($0) }
        let reference = try #require(KeyEncryption(key: bytes)).keyID
        for text in [
            Data(bytes).base64EncodedString(), Data(bytes).base64EncodedString() + "\n", Base64URL.encode(bytes), UUIDText.hex(bytes),
            UUIDText.hex(bytes).uppercased() + "\r\n",
        ] {
            #expect(KeyEncryption(text: Array(text.utf8))?.keyID == reference, "\(text)")
        }
        #expect(KeyEncryption(text: bytes)?.keyID == reference, "raw bytes")
        for bad in ["", "short", Data(bytes.prefix(31)).base64EncodedString(), UUIDText.hex(bytes) + "00", String(repeating: "g", count: 64)] {
            #expect(KeyEncryption(text: Array(bad.utf8)) == nil, "\(bad)")
        }
    }

    /// Sealing at start-up rewrites each value in the clear once, and a store sealed under
    /// one key opens its signing keys and secrets through `SealedKeyStore`.
    @Test func storedKeysAreSealedOnceAndReadBack() async throws {
        let storage = InMemoryStorage()
        let ring = SigningKeyRing(store: storage, clock: ManualClock(), random: SystemRandom(), publicationGrace: 600)
        try await ring.prepare()
        let clear = try await InstanceSecrets.load(from: storage, random: SystemRandom())
        let plainKey = try #require(try await storage.signingKeys().first?.privateKey)
        let key = try #require(KeyEncryption(key: Array(repeating: 9, count: 32)))
        #expect(try await SealedKeyStore.reseal(storage, from: key, to: key, secretNames: InstanceSecrets.names, random: SystemRandom()) == 4)
        #expect(try await SealedKeyStore.reseal(storage, from: key, to: key, secretNames: InstanceSecrets.names, random: SystemRandom()) == 0, "once")
        #expect(try await storage.signingKeys().allSatisfy { KeyEncryption.isSealed($0.privateKey) })
        let sealedStore = SealedKeyStore(storage, encryption: key)
        #expect(try await sealedStore.signingKeys().first?.privateKey == plainKey)
        let reopened = try await InstanceSecrets.load(from: sealedStore, random: SystemRandom())
        #expect(reopened.loginDecoyKey == clear.loginDecoyKey && reopened.oneTimeCodeKey == clear.oneTimeCodeKey)
        await #expect(throws: KeyEncryption.Failure.self) { _ = try await SealedKeyStore(storage, encryption: nil).signingKeys() }
        // Back into the clear, as `latchkey keys rewrap` without a new key does.
        #expect(try await SealedKeyStore.reseal(storage, from: key, to: nil, secretNames: InstanceSecrets.names, random: SystemRandom()) == 4)
        #expect(try await storage.signingKeys().first?.privateKey == plainKey)
    }

    @Test func ipv6AddressesAreCountedByTheirPrefix() {
        #expect(AddressRange.limitKey("192.0.2.7", ipv6PrefixLength: 64) == "192.0.2.7")
        #expect(AddressRange.limitKey("2001:db8:1:2:3:4:5:6", ipv6PrefixLength: 64) == "2001:db8:1:2::/64")
        #expect(AddressRange.limitKey("2001:DB8:1:2::ffff", ipv6PrefixLength: 64) == "2001:db8:1:2::/64", "any spelling")
        #expect(AddressRange.limitKey("2001:db8:1:2:3:4:5:6", ipv6PrefixLength: 48) == "2001:db8:1::/48")
        #expect(AddressRange.limitKey("2001:db8:1:2:3:4:5:6", ipv6PrefixLength: 56) == "2001:db8:1::/56")
        #expect(AddressRange.limitKey("2001:db8:1:2ff:3:4:5:6", ipv6PrefixLength: 56) == "2001:db8:1:200::/56")
        #expect(AddressRange.limitKey("2001:db8::1", ipv6PrefixLength: 128) == "2001:db8::1")
        #expect(AddressRange.limitKey("::ffff:192.0.2.7", ipv6PrefixLength: 64) == "192.0.2.7", "an IPv4-mapped address is its IPv4 address")
        #expect(AddressRange.limitKey("unknown", ipv6PrefixLength: 64) == "unknown")
        #expect(AddressRange.limitKey("not:an:address", ipv6PrefixLength: 64) == "not:an:address")
    }
}
