import AppAssociation
import Testing

@Suite("Public suffix list")
struct PublicSuffixListTests {
    let list = PublicSuffixList.bundled

    @Test func bundledListIsLoaded() {
        // Without the file only the default rule applies and co.uk would not be a suffix.
        #expect(list.publicSuffix(of: "example.co.uk") == "co.uk")
        #expect(list.isListedPublicSuffix("github.io"))
    }

    @Test(arguments: [
        ("example.com", "com", "example.com"),
        ("www.example.com", "com", "example.com"),
        ("shop.example.co.uk", "co.uk", "example.co.uk"),
        ("user.github.io", "github.io", "user.github.io"),
        ("localhost", "localhost", nil),
        ("co.uk", "co.uk", nil),
        ("EXAMPLE.Com.", "com", "example.com"),
    ] as [(String, String, String?)])
    func suffixesAndRegistrableDomains(host: String, suffix: String, registrable: String?) {
        #expect(list.publicSuffix(of: host) == suffix)
        #expect(list.registrableDomain(of: host) == registrable)
    }

    @Test func wildcardAndExceptionRules() {
        let rules = PublicSuffixList(text: "// comment\ncom\n*.ck\n!www.ck\n")
        #expect(rules.publicSuffix(of: "a.b.ck") == "b.ck")
        #expect(rules.registrableDomain(of: "a.b.ck") == "a.b.ck")
        #expect(rules.publicSuffix(of: "www.ck") == "ck")
        #expect(rules.registrableDomain(of: "www.ck") == "www.ck")
        #expect(rules.isListedPublicSuffix("b.ck"))
        #expect(!rules.isListedPublicSuffix("www.ck"))
        #expect(rules.publicSuffix(of: "example.unknowntld") == "unknowntld")
    }

    /// HTML "is a registrable domain suffix of or is equal to", the test browsers apply to
    /// an RP ID.
    @Test(arguments: [
        ("example.com", "example.com", true),
        ("example.com", "login.example.com", true),
        ("example.co.uk", "shop.example.co.uk", true),
        ("co.uk", "example.co.uk", false),
        ("com", "example.com", false),
        ("github.io", "user.github.io", false),
        ("other.com", "example.com", false),
        ("ample.com", "example.com", false),
        ("login.example.com", "example.com", false),
        ("localhost", "localhost", true),
        ("localhost", "app.localhost", false),
        ("0.1", "127.0.0.1", false),
    ])
    func registrableDomainSuffix(suffix: String, host: String, expected: Bool) {
        #expect(list.isRegistrableDomainSuffix(suffix, of: host) == expected)
    }

    @Test func sameSiteAndLabels() {
        #expect(list.isSameSite("login.example.com", "example.com"))
        #expect(!list.isSameSite("example.com", "example.co.uk"))
        #expect(list.isSameSite("localhost", "localhost"))
        #expect(!list.isSameSite("localhost", "127.0.0.1"))
        #expect(list.registrableLabel(of: "shop.example.co.uk") == "example")
        #expect(PublicSuffixList.isIPAddress("192.168.1.1"))
        #expect(PublicSuffixList.isIPAddress("::1"))
        #expect(!PublicSuffixList.isIPAddress("1.example.com"))
    }
}
