@testable import HostedUI
import Testing

/// Phone numbers as people type them, made E.164 for the account.
@Suite("Phone numbers as typed")
struct PhoneNumberInputTests {
    @Test(arguments: [
        ("+1 555 010 1234", nil, "+15550101234"),
        ("+44 (0)20 7946 0000", nil, "+442079460000"),
        ("0044 20 7946 0000", nil, "+442079460000"),
        ("(555) 010-1234", "US", "+15550101234"),
        ("1 555 010 1234", "US", "+15550101234"),
        ("555.010.1234", "CA", "+15550101234"),
        ("020 7946 0000", "GB", "+442079460000"),
        ("06 12 34 56 78", "FR", "+33612345678"),
        ("030 1234567", "DE", "+49301234567"),
        ("02 1234 5678", "IT", "+390212345678"),
        ("8 912 345-67-89", "RU", "+79123456789"),
        ("555 010 1234", nil, "555 010 1234"),
        ("  ada@example.com ", "US", "ada@example.com"),
        ("1234", "US", "1234"),
    ] as [(String, String?, String)])
    func normalised(typed: String, region: String?, stored: String) {
        #expect(PhoneNumberInput.normalized(typed, defaultRegion: region) == stored)
    }

    @Test func whatLooksLikeAPhoneNumber() {
        #expect(PhoneNumberInput.looksLikePhoneNumber("+1 (555) 010-1234"))
        #expect(!PhoneNumberInput.looksLikePhoneNumber("ada@example.com"))
        #expect(!PhoneNumberInput.looksLikePhoneNumber("ada_lovelace"))
        #expect(!PhoneNumberInput.looksLikePhoneNumber("12-34"))
        #expect(PhoneNumberInput.isKnownRegion("GB") && !PhoneNumberInput.isKnownRegion("UK") && !PhoneNumberInput.isKnownRegion("gb"))
    }
}
