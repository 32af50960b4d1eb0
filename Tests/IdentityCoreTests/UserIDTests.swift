import Foundation
import IdentityCore
import Testing
import WebAuthn

/// A new user's ID never begins with "-" (a command line would read it as an option), and
/// otherwise is the 16 random bytes, base64url.
@Suite("User IDs")
struct UserIDTests {
    @Test func noFirstByteMakesADashLedID() {
        for first in 0...255 {
            var bytes = [UInt8](repeating: 0xA5, count: 16)
            bytes[0] = UInt8(first)
            let id = UserID.new(randomBytes: bytes).rawValue
            #expect(id.count == 22 && !id.hasPrefix("-"), "\(first): \(id)")
            // RFC 9562 version 4: the version nibble and the variant bits are set.
            bytes[6] = (bytes[6] & 0x0F) | 0x40
            bytes[8] = (bytes[8] & 0x3F) | 0x80
            let uuid = UserID(rawValue: id).uuid
            #expect(uuid.dropFirst(14).first == "4" && "89ab".contains(uuid.dropFirst(19).first ?? "x"), "\(uuid)")
            if first >> 2 != 62 {
                #expect(id == Base64URL.encode(bytes), "only a dash-led ID changes: \(first)")
            } else {
                #expect(Base64URL.decode(id).map { Array($0.dropFirst()) } == Array(bytes.dropFirst()), "only the first byte changes")
            }
        }
    }
}
