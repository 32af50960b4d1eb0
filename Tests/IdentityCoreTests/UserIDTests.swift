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
            if first >> 2 != 62 {
                #expect(id == Base64URL.encode(bytes), "only a dash-led ID changes: \(first)")
            } else {
                #expect(Base64URL.decode(id).map { Array($0.dropFirst()) } == Array(bytes.dropFirst()), "only the first byte changes")
            }
        }
    }
}
