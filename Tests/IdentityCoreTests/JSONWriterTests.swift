import Foundation
@testable import IdentityCore
import Testing

@Suite("JSON writer")
struct JSONWriterTests {
    /// Text that needs every kind of escape, and text that needs none.
    static let hostile = ["plain", "", "quote \" and backslash \\", "controls \u{0}\u{1}\u{8}\t\n\r\u{1F}", "unicode é 🧑🏽‍💻 \u{2028}", "slash / stays"]

    @Test func stringsRoundTripThroughFoundation() throws {
        for text in Self.hostile {
            var writer = JSONWriter()
            writer.strings([text, text])
            let decoded = try JSONDecoder().decode([String].self, from: Data(writer.bytes))
            #expect(decoded == [text, text], "\(text.debugDescription)")
        }
    }

    @Test func objectsLeaveOutNilMembers() throws {
        var writer = JSONWriter()
        writer.object { object in
            object.member("a", "x")
            object.member("b", nil as String?)
            object.member("c", Int64(-42))
            object.member("d", true)
            object.member("e", nil as [String]?)
            object.member("f", ["1", "2"])
        }
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #"{"a":"x","c":-42,"d":true,"f":["1","2"]}"#)
    }

    /// The hand-written claims decode to exactly what they were written from, whatever the
    /// text holds.
    @Test func claimsDecodeWithTheirCodableTypes() throws {
        let sorted = JSONEncoder()
        sorted.outputFormatting = [.sortedKeys]
        for text in Self.hostile {
            let access = AccessTokenClaims(
                iss: text, sub: text, aud: text, iat: 1, exp: Int64.max, jti: text, scope: text, client_id: text, sid: text, auth_time: Int64.min
            )
            let decodedAccess = try JSONDecoder().decode(AccessTokenClaims.self, from: Data(access.json))
            #expect(try sorted.encode(decodedAccess) == sorted.encode(access))

            let full = IDTokenClaims(
                iss: text, sub: text, aud: text, iat: 2, exp: 3, auth_time: 4, sid: text, nonce: text, amr: [text, "pop"], name: text,
                given_name: text, family_name: text, nickname: text, picture: text, preferred_username: text, updated_at: 5, email: text,
                email_verified: false, phone_number: text, phone_number_verified: true
            )
            let sparse = IDTokenClaims(
                iss: text, sub: text, aud: text, iat: 2, exp: 3, auth_time: 4, sid: text, nonce: nil, amr: [], name: nil, given_name: nil,
                family_name: nil, nickname: nil, picture: nil, preferred_username: nil, updated_at: nil, email: nil, email_verified: nil,
                phone_number: nil, phone_number_verified: nil
            )
            for claims in [full, sparse] {
                let decoded = try JSONDecoder().decode(IDTokenClaims.self, from: Data(claims.json))
                #expect(try sorted.encode(decoded) == sorted.encode(claims), "\(text.debugDescription)")
            }
        }
    }
}
