import Foundation
import Testing
import WebAuthn

@Suite("JSON wire types")
struct WireJSONTests {
    private func json(_ value: some Encodable) throws -> [String: Any] {
        let encoder = JSONEncoder()
        let data = try encoder.encode(value)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func creationOptionsHaveTheBrowserShape() throws {
        let options = PublicKeyCredentialCreationOptionsJSON(
            rp: .init(id: "example.com", name: "Example"),
            user: .init(id: Base64URLBytes([0xfb, 0xff]), name: "ada@example.com", displayName: ""),
            challenge: Base64URLBytes([1, 2, 3]),
            pubKeyCredParams: [.init(alg: .es256), .init(alg: .rs256)],
            timeout: 60000,
            excludeCredentials: [CredentialDescriptor(id: Base64URLBytes([9]), transports: ["usb"])],
            authenticatorSelection: .init(residentKey: "required", requireResidentKey: true, userVerification: "preferred"),
            attestation: "none",
            extensions: ExtensionInputs(credProps: true)
        )
        let object = try json(options)
        #expect(Set(object.keys) == ["rp", "user", "challenge", "pubKeyCredParams", "timeout", "excludeCredentials", "authenticatorSelection", "attestation", "extensions"])
        #expect((object["user"] as? [String: Any])?["id"] as? String == "-_8")
        #expect(object["challenge"] as? String == "AQID")
        let params = object["pubKeyCredParams"] as? [[String: Any]]
        #expect(params?.first?["type"] as? String == "public-key")
        #expect(params?.first?["alg"] as? Int == -7)
        #expect((object["excludeCredentials"] as? [[String: Any]])?.first?["id"] as? String == "CQ")
        #expect((object["authenticatorSelection"] as? [String: Any])?["authenticatorAttachment"] == nil)
    }

    @Test func absentMembersAreOmittedNotNull() throws {
        let options = PublicKeyCredentialRequestOptionsJSON(challenge: Base64URLBytes([1]))
        let text = String(decoding: try JSONEncoder().encode(options), as: UTF8.self)
        #expect(text == #"{"challenge":"AQ"}"#)
    }

    @Test func registrationResponsesDecodeLeniently() throws {
        let text = #"""
            {"id":"-_8","type":"public-key","response":{"clientDataJson":"AQ==","attestationObject":"+/8=","transports":["internal"],"unknown":1},"extra":true}
            """#
        let response = try RegistrationResponseJSON.decode(from: Data(text.utf8))
        #expect(response.rawId.bytes == [0xfb, 0xff])
        #expect(response.response.clientDataJSON.bytes == [1])
        #expect(response.response.attestationObject.bytes == [0xfb, 0xff])
        #expect(response.clientExtensionResults == ClientExtensionResults())
    }

    @Test func authenticationResponsesTreatEmptyUserHandleAsAbsent() throws {
        let text = #"{"id":"AQ","rawId":"AQ","response":{"clientDataJSON":"AQ","authenticatorData":"AQ","signature":"AQ","userHandle":""}}"#
        #expect(try AuthenticationResponseJSON.decode(from: Data(text.utf8)).response.userHandle == nil)
        let null = #"{"id":"AQ","rawId":"AQ","response":{"clientDataJSON":"AQ","authenticatorData":"AQ","signature":"AQ","userHandle":null}}"#
        #expect(try AuthenticationResponseJSON.decode(from: Data(null.utf8)).response.userHandle == nil)
    }

    @Test func malformedResponsesNameTheMember() {
        let cases = [
            ("not json", "JSON"),
            (#"{"id":"AQ","rawId":"AQ"}"#, "response"),
            (#"{"id":"AQ","rawId":"A Q","response":{}}"#, "rawId"),
            (#"{"rawId":"AQ","response":{"attestationObject":"AQ"}}"#, "clientDataJSON"),
            (#"{"id":"AQ","response":{"clientDataJSON":"AQ","attestationObject":7}}"#, "attestationObject"),
        ]
        for (text, member) in cases {
            let error = expectFailure(.malformedResponse) { try RegistrationResponseJSON.decode(from: Data(text.utf8)) }
            #expect(error?.reason.contains(member) == true, "\(text): \(error?.reason ?? "")")
        }
    }

    @Test func responsesRoundTrip() throws {
        let response = AuthenticationResponseJSON(
            id: "AQ", rawId: Base64URLBytes([1]),
            response: .init(clientDataJSON: Base64URLBytes([2]), authenticatorData: Base64URLBytes([3]), signature: Base64URLBytes([4]), userHandle: Base64URLBytes([5]))
        )
        let decoded = try AuthenticationResponseJSON.decode(from: try JSONEncoder().encode(response))
        #expect(decoded == response)
    }
}
