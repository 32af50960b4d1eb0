import Foundation
import Localization
import Testing

/// Every hosted page, signed out and signed in, in every shipped language, through
/// ``PageAudit`` in Chromium: the journeys of `LanguagesBrowserTests` cover four languages
/// in depth; this covers the breadth.
@Suite("Hosted pages: every page in every language passes the accessibility audit", .serialized, .enabled(if: !BrowserFixture.skipped))
struct EveryPageAuditBrowserTests {
    /// A page: its path, a name for messages, whether it has the status area, and the key of
    /// its heading.
    typealias Page = (path: String, name: String, hasStatus: Bool, heading: String)

    static let signedOut: [Page] = [
        ("/", "start", false, "home.heading"),
        ("/signup", "sign-up", true, "signup.title"),
        ("/login", "sign-in", true, "login.title"),
        ("/recover", "recovery", true, "recover.title"),
        ("/enroll", "enrollment link", true, "enrollment_link.title"),
        ("/no-such-page", "not found", false, "not_found.title"),
        ("/authorize?client_id=nobody&response_type=code", "error", false, "error.title.sign_in_link_invalid"),
    ]

    static let signedIn: [Page] = [
        ("/account", "account", true, "account.title"),
        ("/account/passkeys/new", "add a passkey", true, "enroll.title"),
    ]

    @Test func everyPageInEveryLanguage() async throws {
        try await BrowserFixture.run(extraConfiguration: LanguagesBrowserTests.branding) { fixture in
            let tab = fixture.tab
            _ = try await VirtualAuthenticator.add(to: tab)
            try await audit(fixture, Self.signedOut)
            try await fixture.open("/signup")
            try await tab.fill("#email", "ada@example.com")
            try await tab.click("#signup-form button")
            try await PasswordUpgradeBrowserTests.waitForAccount(fixture)
            try await audit(fixture, Self.signedIn)
        }
    }

    private func audit(_ fixture: BrowserFixture, _ pages: [Page]) async throws {
        for language in Language.builtIn {
            let t = StringCatalog.shared.strings(language)
            for page in pages {
                let path = page.path + (page.path.contains("?") ? "&" : "?") + "lang=" + language.tag
                try await fixture.tab.navigate(to: fixture.base + path)
                try await fixture.tab.waitUntil("document.readyState === 'complete'")
                let name = "\(language) \(page.name)"
                #expect(try await fixture.tab.evaluate("document.documentElement.lang") == .string(language.tag), "\(name)")
                let heading = try await fixture.tab.text("h1")
                #expect(heading == t(page.heading, ["site": "Example Bank"]), "\(name): \(heading)")
                try await PageAudit.check(fixture.tab, name, rightToLeft: language.isRightToLeft, hasStatus: page.hasStatus)
            }
        }
    }
}
