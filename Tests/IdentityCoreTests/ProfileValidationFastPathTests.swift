import Foundation
import Testing
@testable import IdentityCore

/// ASCII identifiers skip Foundation's trimming, normalization and Unicode property
/// lookups; the results must be exactly what the general path gives.
@Suite struct ProfileValidationFastPathTests {
    /// The general path, as it reads for any text.
    private func reference(email raw: String) -> String? {
        let email = raw.trimmingCharacters(in: .whitespaces).precomposedStringWithCanonicalMapping.lowercased()
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard email.utf8.count <= 254, parts.count == 2, let local = parts.first, let domain = parts.last,
            !local.isEmpty, local.utf8.count <= 64, domain.contains("."), !domain.hasPrefix("."), !domain.hasSuffix("."),
            !domain.contains(".."),
            email.unicodeScalars.allSatisfy({ !$0.properties.isWhitespace && $0.properties.generalCategory != .control && $0.properties.generalCategory != .format })
        else { return nil }
        return email
    }

    static let samples: [String] = {
        var samples = [
            "ada@example.com", "  Ada@Example.COM\t", "\tada@example.com ", "ada @example.com", "ada@example.com\n", "\nada@example.com",
            "a\u{7F}@example.com", "a\u{1}@example.com", "a\u{0B}b@example.com", "", "   ", "@", "a@b", "a@.b", "a@b.", "a@b..c",
            "Ádá@Éxample.com", "  e\u{301}@example.com ", "a@b.c\u{200B}", String(repeating: "a", count: 65) + "@example.com",
        ]
        for byte in 0..<0x80 { samples.append("a\(Character(Unicode.Scalar(UInt8(byte))))b@example.com") }
        return samples
    }()

    @Test(arguments: samples)
    func emailsNormalizeAsTheGeneralPathDoes(_ raw: String) {
        #expect((try? ProfileValidation.normalizeEmail(raw)) == reference(email: raw))
    }

    @Test func namesKeepTheirRules() throws {
        #expect(try ProfileValidation.text("  Ada Lovelace \n", "name", maximum: 300) == "Ada Lovelace")
        #expect(try ProfileValidation.text("e\u{301}", "name", maximum: 300) == "\u{E9}", "non-ASCII is still NFC")
        #expect(throws: IdentityError.self) { try ProfileValidation.text("Ada\u{7F}", "name", maximum: 300) }
        #expect(throws: IdentityError.self) { try ProfileValidation.text("Ada\u{1}x", "name", maximum: 300) }
        #expect(throws: IdentityError.self) { try ProfileValidation.text(" \t\n ", "name", maximum: 300) }
        #expect(try ProfileValidation.normalizeUsername(" Ada_L ") == "ada_l")
    }
}
