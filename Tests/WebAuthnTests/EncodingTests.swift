import Authenticator
import CBOR
import CryptoExtras
import Foundation
import Testing
import WebAuthn

@Suite("Base64URL")
struct Base64URLTests {
    @Test func encodesUnpadded() {
        #expect(Base64URL.encode([]) == "")
        #expect(Base64URL.encode([0xfb]) == "-w")
        #expect(Base64URL.encode([0xfb, 0xff]) == "-_8")
        #expect(Base64URL.encode(Array("hello".utf8)) == "aGVsbG8")
    }

    @Test func decodesEveryFormRealClientsSend() {
        let bytes: [UInt8] = [0xfb, 0xff, 0x00, 0x10]
        for text in ["-_8AEA", "-_8AEA==", "+/8AEA", "+/8AEA=="] {
            #expect(Base64URL.decode(text) == bytes, "\(text)")
        }
    }

    @Test func rejectsWhatIsNotBase64() {
        for text in ["a", "ab=c", "abc===", "a b", "ab\n", "é", "abcd=", "-_8AEA=", "QR=="] {
            #expect(Base64URL.decode(text) == nil, "\(text)")
        }
    }

    @Test func roundTripsRandomBytes() {
        for count in 0..<70 {
            let bytes = randomBytes(count)
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
    }

    /// The table-driven coder agrees with Foundation's base64, translated to the URL
    /// alphabet, for every length up to a few groups and every form of each text.
    @Test func agreesWithFoundation() {
        for count in 0..<200 {
            let bytes = randomBytes(count)
            let standard = Data(bytes).base64EncodedString()
            let url = standard.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            let unpadded = String(url.prefix { $0 != "=" })
            #expect(Base64URL.encode(bytes) == unpadded, "\(count) bytes")
            #expect(Base64URL.encode(bytes[...]) == unpadded, "\(count) bytes as a slice")
            for text in [standard, url, unpadded, String(standard.prefix { $0 != "=" })] {
                #expect(Base64URL.decode(text) == bytes, "\(text)")
                #expect(Base64URL.decode(Substring(text)) == bytes, "\(text) as a substring")
            }
        }
    }

    /// Every single-character change to a valid text either decodes (to other bytes) or is
    /// refused; no change decodes to the original bytes with non-zero leftover bits.
    @Test func leftoverBitsMustBeZero() {
        for text in ["-w", "-_8", "AQ", "AQI"] {
            let last = text.last!
            for replacement in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_" where replacement != last {
                let changed = String(text.dropLast()) + String(replacement)
                if let decoded = Base64URL.decode(changed) {
                    #expect(Base64URL.encode(decoded) == changed, "\(changed) decodes only if it is the canonical text")
                }
            }
        }
    }
}

@Suite("Authenticator data")
struct AuthenticatorDataTests {
    @Test func parsesEveryPart() throws {
        var builder = AuthenticatorDataBuilder(relyingPartyID: "example.com", flags: [.userPresent, .backupEligible, .backedUp], signCount: 0x0102_0304)
        let key = try CredentialPrivateKey.generate(.es256)
        builder.attestedCredential = .init(aaguid: .zero, credentialID: [9, 8, 7], publicKey: key.coseKeyBytes)
        builder.extensions = ["credProtect": 2]
        let data = try AuthenticatorData(bytes: builder.build())
        #expect(data.signCount == 0x0102_0304)
        #expect(data.flags.isBackupEligible && data.flags.isBackedUp && !data.flags.isUserVerified)
        #expect(data.attestedCredentialData?.credentialID == [9, 8, 7])
        #expect(Array(data.attestedCredentialData?.credentialPublicKey.encodedBytes ?? []) == key.coseKeyBytes)
        #expect(data.extensions?[textKey: "credProtect"]?.value == .unsigned(2))
    }

    @Test func rejectsTrailingBytes() {
        let bytes = AuthenticatorDataBuilder(relyingPartyID: "example.com").build() + [0x00]
        let error = expectFailure(.malformedAuthenticatorData) { try AuthenticatorData(bytes: bytes) }
        #expect(error?.reason.contains("1 trailing byte") == true)
    }

    @Test func flagsMustMatchTheData() throws {
        // ED set but nothing follows.
        var bytes = AuthenticatorDataBuilder(relyingPartyID: "example.com").build()
        bytes[32] |= 0x80
        expectFailure(.malformedAuthenticatorData) { try AuthenticatorData(bytes: bytes) }
        // AT set but nothing follows.
        bytes[32] = 0x41
        expectFailure(.malformedAuthenticatorData) { try AuthenticatorData(bytes: bytes) }
        // Extensions that are not a map.
        bytes = AuthenticatorDataBuilder(relyingPartyID: "example.com").build() + CBOREncoder.encode(1)
        bytes[32] |= 0x80
        expectFailure(.malformedAuthenticatorData) { try AuthenticatorData(bytes: bytes) }
    }

    @Test func credentialIDLengthBeyondTheInput() {
        var bytes = AuthenticatorDataBuilder(relyingPartyID: "example.com").build()
        bytes[32] |= 0x40
        bytes += [UInt8](repeating: 0, count: 16) + [0xff, 0xff, 0x01]
        let error = expectFailure(.malformedAuthenticatorData) { try AuthenticatorData(bytes: bytes) }
        #expect(error?.reason.contains("credentialId") == true)
    }
}

@Suite("COSE keys")
struct CredentialPublicKeyTests {
    private func key(_ item: CBORItem) throws -> CredentialPublicKey {
        try CredentialPublicKey(coseKey: CBOREncoder.encode(item))
    }

    @Test func pointsMustLieOnTheCurve() throws {
        let valid = try CredentialPrivateKey.generate(.es256).coseKey
        var offCurve = valid
        guard case .bytes(var y)? = valid[-3] else {
            Issue.record("no y")
            return
        }
        y[31] ^= 0x01
        offCurve[-3] = .bytes(y)
        #expect(throws: Never.self) { try key(valid) }
        let error = expectFailure(.malformedPublicKey) { try key(offCurve) }
        #expect(error?.reason.contains("not on curve") == true)
    }

    @Test func algorithmAndCurveMustAgree() throws {
        var item = try CredentialPrivateKey.generate(.es256).coseKey
        item[-1] = 2
        expectFailure(.malformedPublicKey) { try key(item) }
        item[-1] = 1
        item[3] = -35
        expectFailure(.malformedPublicKey) { try key(item) }
    }

    @Test func compressedPointsAndMissingMembersAreRejected() throws {
        var item = try CredentialPrivateKey.generate(.es256).coseKey
        item[-3] = true
        expectFailure(.malformedPublicKey) { try key(item) }
        item = try CredentialPrivateKey.generate(.es256).coseKey
        item[3] = nil
        expectFailure(.malformedPublicKey) { try key(item) }
        expectFailure(.malformedPublicKey) { try key([1, 2, 3]) }
    }

    @Test func unsupportedKeysHaveTheirOwnCode() throws {
        expectFailure(.unsupportedAlgorithm) { try key([1: 1, 3: -8, -1: 7, -2: .bytes(randomBytes(57))]) }
        expectFailure(.unsupportedAlgorithm) { try key([1: 1, 3: -53, -1: 7, -2: .bytes(randomBytes(57))]) }
        expectFailure(.unsupportedAlgorithm) { try key([1: 7, 3: -48, -1: .bytes(randomBytes(1312))]) }
        expectFailure(.unsupportedAlgorithm) { try key([1: 2, 3: -47, -1: 8, -2: .bytes(randomBytes(32)), -3: .bytes(randomBytes(32))]) }
        expectFailure(.unsupportedAlgorithm) { try key([1: 4, 3: 5, -1: .bytes(randomBytes(32))]) }
    }

    @Test func rsaKeysBelowTheMinimumAreWeak() throws {
        let small = try _RSA.Signing.PrivateKey(unsafeKeySize: .init(bitCount: 1024)).publicKey.getKeyPrimitives()
        let item: CBORItem = [1: 3, 3: -257, -1: .bytes(Array(small.modulus)), -2: .bytes(Array(small.publicExponent))]
        let error = expectFailure(.weakKey) { try key(item) }
        #expect(error?.reason.contains("1024") == true)
        // A relying party may lower the minimum for legacy devices.
        let lenient = try CredentialPublicKey(coseKey: CBOREncoder.encode(item), policy: KeyPolicy(minimumRSAModulusBits: 1024))
        #expect(lenient.material.rsaModulusBits == 1024)
    }

    @Test func coseKeyBytesAreKeptAsReceived() throws {
        // Unsorted keys, as some authenticators send them, are kept byte for byte.
        let generated = try CredentialPrivateKey.generate(.es256).coseKey
        guard case .map(let entries) = generated else {
            Issue.record("a generated COSE key is not a map: \(generated)")
            return
        }
        let reversed = CBOREncoder.encode(.map(entries.reversed())).count
        let bytes = [UInt8(0xa5)] + entries.reversed().flatMap { CBOREncoder.encode($0.key) + CBOREncoder.encode($0.value) }
        #expect(bytes.count == reversed)
        let parsed = try CredentialPublicKey(coseKey: bytes)
        #expect(parsed.coseKey == bytes)
    }
}

@Suite("Origins")
struct OriginPolicyTests {
    @Test func webOriginsCompareAsOrigins() {
        let policy = OriginPolicy(["https://example.com", "http://localhost:8080/", "https://[::1]:8443"])
        #expect(policy.match("https://example.com") == "https://example.com")
        #expect(policy.match("https://EXAMPLE.com:443") == "https://example.com")
        #expect(policy.match("http://localhost:8080") == "http://localhost:8080/")
        #expect(policy.match("https://[::1]:8443") == "https://[::1]:8443")
        for received in [
            "https://example.com:8443", "http://example.com", "https://example.com/", "https://example.com/path",
            "https://sub.example.com", "https://example.com.evil.example", "https://user@example.com", "http://localhost:8081",
            "https://example.com?x", "example.com", "",
        ] {
            #expect(policy.match(received) == nil, "\(received)")
        }
    }

    @Test func opaqueOriginsCompareExactly() {
        let origin = "android:apk-key-hash:gx7sq_pxhxhrIQdLyfG0pxKwiJ7hOk2DJQ4xvKd438Q"
        let policy = OriginPolicy([origin])
        #expect(policy.match(origin) == origin)
        #expect(policy.match(origin.uppercased()) == nil)
        #expect(policy.match(origin + "=") == nil)
        #expect(policy.match("android:apk-key-hash:") == nil)
    }
}

@Suite("Client data")
struct ClientDataTests {
    private func parse(_ json: String) throws -> CollectedClientData {
        try CollectedClientData(bytes: Array(json.utf8))
    }

    @Test func readsMembersAndIgnoresOthers() throws {
        let data = try parse(#"{"type":"webauthn.get","challenge":"AAEC","origin":"https:\/\/example.com","crossOrigin":false,"other_keys_can_be_added_here":"x","n":[1,{"a":null}]}"#)
        #expect(data.type == "webauthn.get")
        #expect(data.origin == "https://example.com")
        #expect(data.crossOrigin == false)
    }

    @Test func decodesEscapesAndSkipsEveryValueType() throws {
        let data = try parse(#"""
             { "type" : "webauthn.get" , "challenge":"AAEC", "origin":"https:\/\/ex\u0061mple.com",
               "n":-12.5e+3, "z":0, "t":true, "f":false, "nil":null, "a":[[],{},[1,{"b":[2]}]], "e":"\ud83d\ude00\n\t\"\\" }
            """#)
        #expect(data.origin == "https://example.com")
        #expect(data.crossOrigin == nil)
        #expect(try parse("\u{FEFF}" + #"{"type":"t","challenge":"c","origin":"o"}"#).type == "t")
    }

    @Test func readMembersMayAppearOnlyOnce() {
        for member in [#""origin":"https://evil.example""#, #""challenge":"AA""#, #""crossOrigin":true"#, #""type":"webauthn.create""#] {
            let json = #"{"type":"webauthn.get","challenge":"AAEC","origin":"https://example.com","crossOrigin":false,"# + member + "}"
            let error = expectFailure(.malformedClientData) { try parse(json) }
            #expect(error?.reason.contains("more than once") == true, "\(member)")
        }
        // Members WebAuthn does not read may repeat, as JSON allows.
        #expect(throws: Never.self) { try parse(#"{"type":"t","challenge":"c","origin":"o","x":1,"x":2}"#) }
    }

    @Test func rejectsWhatJSONDoesNotAllow() {
        let base = #"{"type":"t","challenge":"c","origin":"o""#
        for tail in [
            "}}", "} x", ",}", #","n":01}"#, #","n":1.}"#, #","n":.5}"#, #","n":-}"#, #","n":1e}"#, ",\"s\":\"\u{01}\"}",
            #","s":"\x"}"#, #","s":"\ud800"}"#, #","s":"\u12"}"#, #","a":[1,]}"#, #","a":[1 2]}"#, #","t":tru}"#, #","o":{"k"}}"#,
            "", #","n":NaN}"#, #","s":'x'}"#,
        ] {
            expectFailure(.malformedClientData) { try parse(base + tail) }
        }
        let deep = base + #","d":"# + String(repeating: "[", count: 40) + String(repeating: "]", count: 40) + "}"
        let error = expectFailure(.malformedClientData) { try parse(deep) }
        #expect(error?.reason.contains("nested") == true)
        expectFailure(.malformedClientData) { try CollectedClientData(bytes: Array(base.utf8) + [0x2c, 0x22, 0x73, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]) }
    }

    @Test func missingOrWrongMembersAreMalformed() {
        for json in [
            "", "[]", "{}", #"{"type":"webauthn.get","challenge":"AAEC"}"#, #"{"type":1,"challenge":"AAEC","origin":"o"}"#,
            #"{"type":"webauthn.get","challenge":"AAEC","origin":"o","crossOrigin":"yes"}"#, "{\"type\":\"a\",", "\u{FEFF}{}",
        ] {
            expectFailure(.malformedClientData) { try parse(json) }
        }
    }

    @Test func tokenBindingStatusMustBeDefined() throws {
        var fixture = try AuthenticationFixture()
        let base = #"{"type":"webauthn.get","challenge":"\#(Base64URL.encode(fixture.ceremony.challenge))","origin":"https://example.com""#
        for (member, valid) in [(#","tokenBinding":{"status":"supported"}"#, true), (#","tokenBinding":"unused""#, true), (#","tokenBinding":{"status":"not-supported"}"#, false)] {
            let json = Array((base + member + "}").utf8)
            fixture.clientData.extraMembers = []
            let response = try fixture.response()
            var tampered = response
            tampered.response.clientDataJSON = Base64URLBytes(json)
            // Re-sign over the new client data so that only the token binding differs.
            let authData = tampered.response.authenticatorData.bytes
            tampered.response.signature = Base64URLBytes(try fixture.key.signature(for: authData + Array(SHA256Digest.of(json))))
            let verify = { try WebAuthnVerifier(policy: fixture.policy).verifyAuthentication(tampered, for: fixture.ceremony, credential: fixture.record) }
            if valid {
                #expect(throws: Never.self) { try verify() }
            } else {
                expectFailure(.tokenBindingInvalid) { try verify() }
            }
        }
    }
}
