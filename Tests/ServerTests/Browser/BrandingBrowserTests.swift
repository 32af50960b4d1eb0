import Foundation
import Testing
import WebAuthnCorpus

/// The brand as a person sees it, in headless Chromium: the operator's colours on the
/// buttons with the text colour picked to read on them, the logo drawn, the theme forced.
@Suite("Hosted pages: the operator's brand in a real browser", .serialized, .enabled(if: !BrowserFixture.skipped))
struct BrandingBrowserTests {
    @Test func theBrandsColoursLogoAndThemeAreWhatThePageShows() async throws {
        let files = try TemporaryDirectory()
        let svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"40\" height=\"40\"><rect width=\"40\" height=\"40\" rx=\"8\" fill=\"#0f766e\"/></svg>"
        try svg.write(toFile: files.path("logo.svg"), atomically: true, encoding: .utf8)
        let branding = """
            branding:
              name: Example Bank
              logo: \(files.path("logo.svg"))
              primary_color: '#ffd60a'
              accent_color: '#0f766e'
              theme: dark
              support_email: help@example.com
            """
        try await BrowserFixture.run(extraConfiguration: branding) { fixture in
            let tab = fixture.tab
            try await fixture.open("/login")
            let button = try await tab.evaluate("(() => { const style = getComputedStyle(document.querySelector('#login-form button')); return style.backgroundColor + ' / ' + style.color; })()")
            #expect(button == .string("rgb(255, 214, 10) / rgb(11, 16, 32)"), "the brand's yellow, with dark text on it")
            #expect(try await tab.evaluate("getComputedStyle(document.body).backgroundColor") == .string("rgb(19, 20, 23)"), "the dark theme, whatever the system prefers")
            #expect(try await tab.evaluate("document.querySelector('.brand img').naturalWidth") == .number(40), "the logo is served and drawn")
            #expect(try await tab.text(".site-footer .links") == "Help: help@example.com")
            try await fixture.screenshot("login-branded")
            try await fixture.screenshot("login-branded-phone", width: 390, height: 700, mobile: true)
        }
    }
}
