import FaceFrame
import Foundation
import IdentityCore
import LatchkeyWire
import Testing
import WebAuthn
@testable import HTTPAPI

/// The hot request bodies read without `JSONDecoder` give exactly what it gives, and give
/// up (leaving the decision, and the error, to it) on anything but the plain case.
@Suite struct FastRequestDecodingTests {
    private func node(_ text: String) -> JSONNode? {
        Array(text.utf8).withUnsafeBytes { JSONReader.read($0) }
    }

    private func expectSame(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let fast = try #require(node(text).flatMap(TokenRequest.init(json:)), "fast path gave up on \(text)", sourceLocation: sourceLocation)
        let full = try JSONDecoder().decode(TokenRequest.self, from: Data(text.utf8))
        // One wire type, Equatable member for member.
        #expect(fast == full, sourceLocation: sourceLocation)
    }

    static let assertion = #"{"clientDataJSON":"eyJ0eXBlIjoid2ViYXV0aG4uZ2V0In0","authenticatorData":"SZYN5YgOjGh0NBcPZHZgW4_krrmihjLHmVzzuoMdl2MFAAAAAQ","signature":"MEUCIQ","userHandle":"dXNlcg"}"#

    @Test func readsWhatJSONDecoderReads() throws {
        try expectSame(#"{"grant_type":"urn:okta:params:oauth:grant-type:webauthn","client_id":"demo","scope":"openid email","auth_session":"abc","authn_response":{"id":"AQID","rawId":"AQID","type":"public-key","response":\#(Self.assertion),"clientExtensionResults":{},"authenticatorAttachment":"platform"}}"#)
        // Either identifier alone, the other spelling of clientDataJSON, an empty user handle,
        // nulls, escapes and non-ASCII text.
        try expectSame(#"{"grant_type":"x\u00e9\ud83d\ude00\n\"\/","client_id":null,"authn_response":{"id":"AQID","response":{"clientDataJson":"AQ","authenticatorData":"AQ","signature":"AQ","userHandle":""}}}"#)
        try expectSame(#" { "authn_response" : { "rawId" : "AQID" , "response" : { "clientDataJSON" : "AQ" , "authenticatorData" : "AQ" , "signature" : "AQ" } , "clientExtensionResults" : { "credProps" : { "rk" : true } } } } "#)
        // A registration with every optional member.
        try expectSame(#"{"authn_response":{"id":"AQID","rawId":"AQID","response":{"clientDataJSON":"AQ","attestationObject":"o2NmbXRkbm9uZQ","transports":["internal","hybrid"],"authenticatorData":"AQ","publicKey":"AQ","publicKeyAlgorithm":-7},"clientExtensionResults":{"credProps":{}}},"user_profile":{"email":"ada@example.com","name":null}}"#)
        try expectSame(#"{"grant_type":"password","username":"ada@example.com","password":"p\u00e4ss","unknown":[1,2.5e3,{"x":true}]}"#)
        try expectSame(#"{"grant_type":"urn:latchkey:params:oauth:grant-type:recovery","client_id":"demo","email":"ada@example.com","recovery_code":"ABCD-EFGH"}"#)
    }

    @Test(arguments: [
        #"{"client_id":"a","client_id":"b"}"#,                                   // repeated key
        #"{"client_id":1}"#,                                                     // wrong type
        #"{"authn_response":"{\"id\":\"AQ\"}"}"#,                                // Android's string form
        #"{"authn_response":{"response":{}}}"#,                                  // no id, no rawId
        #"{"authn_response":{"id":"AQ","response":{"clientDataJSON":"AQ","authenticatorData":"***","signature":"AQ"}}}"#,
        #"{"authn_response":{"id":"AQ","response":{"clientDataJSON":"AQ","attestationObject":"AQ","publicKeyAlgorithm":-07}}}"#,
        #"{"user_profile":{"email":"a@example.com","admin":"yes"}}"#,            // unknown profile member
        #"{"client_id":"demo"} x"#,                                              // trailing bytes
        #"{"client_id":"\ud800"}"#,                                              // lone surrogate
        "{\"client_id\":\"tab\tinside\"}",                                      // raw control character
        #"[]"#, #""#, #"{"#, #"{"a":tru}"#,
    ])
    func givesUpOnAnythingElse(_ text: String) {
        #expect(node(text).flatMap(TokenRequest.init(json:)) == nil)
    }

    @Test func readsDepthAndUTF8Carefully() {
        #expect(node(String(repeating: "[", count: 33) + String(repeating: "]", count: 33)) == nil)
        #expect(node(String(repeating: "[", count: 30) + String(repeating: "]", count: 30)) != nil)
        #expect([0x22, 0xC3, 0x28, 0x22].withUnsafeBytes { JSONReader.read($0) } == nil, "invalid UTF-8")
        #expect(node(#""\u00e9\ud83d\ude00""#) == .string("é😀"))
        #expect(node("-0.5e+3") == .number("-0.5e+3"))
        #expect(node("01") == nil)
        #expect(node(#"{"signup":{"client_id":"a","user_profile":{"email":"x"}}}"#)?["signup"].flatMap(SignupChallengeRequest.init(json:))?.userProfile?.email == "x")
        #expect(node(#"{"client_id":"demo","username":null}"#).flatMap(LoginChallengeRequest.init(json:))?.clientID == "demo")
    }
}
