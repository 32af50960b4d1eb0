import Foundation
import HostedUI
import IdentityCore
import Testing

/// The operator's brand (`branding:`): colours checked for contrast, the pages of a real
/// server process wearing the name, logo, favicon, colours, theme and links, the images and
/// stylesheet served, and the built-in emails wearing them too.
@Suite("Branding")
struct BrandingTests {
    @Test func contrastIsMeasuredAsWCAGDoes() throws {
        let white = try #require(BrandColor("#FFFFFF")), black = try #require(BrandColor("#000000"))
        #expect(abs(white.contrast(with: black) - 21) < 0.001)
        #expect(white.contrast(with: white) == 1)
        // WCAG's own example pair: #777777 on white is 4.48:1, just below AA.
        #expect(abs(try #require(BrandColor("#777777")).contrast(with: white) - 4.48) < 0.01)
        #expect(BrandColor("#2952cc")?.readableText.hex == "#ffffff")
        #expect(BrandColor("#ffd60a")?.readableText.hex == "#0b1020", "dark text on a yellow button")
        #expect(BrandColor("2952cc") == nil && BrandColor("#2952cg") == nil && BrandColor("#fff") == nil)

        var branding = Branding()
        branding.primaryColor = BrandColor("#1d4ed8")
        branding.theme = .light
        #expect(branding.contrastWarnings.isEmpty, "\(branding.contrastWarnings)")
        branding.theme = .auto
        #expect(branding.contrastWarnings.count == 1, "too dark for links on the dark surface")
        #expect(branding.contrastWarnings.first?.contains("dark theme's surface") == true)
        branding.primaryColor = BrandColor("#ffd60a")
        branding.theme = .light
        #expect(branding.contrastWarnings.first?.contains("branding.primary_color #ffd60a: as link text on the light theme's surface") == true)
        // A grey too light for white text and too dark for black: no text reads well on it.
        branding.primaryColor = BrandColor("#7a7a7a")
        #expect(branding.contrastWarnings.contains { $0.hasPrefix("branding.primary_color #7a7a7a: text on it reaches 4.41:1 at best (#0b1020)") }, "\(branding.contrastWarnings)")
    }

    @Test func theBuiltInEmailsWearTheBrandAndTheOperatorsOwnDoNot() throws {
        var templates = MailTemplates()
        templates.branding = MailBranding(logoURL: "https://id.example.com/ui/assets/brand/logo", primaryColor: "#0f766e", supportURL: "https://help.example.com/")
        let message = templates.render(.recoveryCode, values: ["service": "Example & Co", "name": "Ada", "code": "123456", "minutes": "15"])
        #expect(message.html.contains("<img src=\"https://id.example.com/ui/assets/brand/logo\" alt=\"Example &amp; Co\""))
        #expect(message.html.contains("border-top:4px solid #0f766e"))
        #expect(message.html.contains("Need help? <a href=\"https://help.example.com/\""))
        #expect(message.html.hasSuffix("</body></html>\n"), "the footer goes inside the body")
        #expect(message.text.hasSuffix("Need help? https://help.example.com/\n"))

        let directory = try TemporaryDirectory()
        try "<html><body><p>{{code}}</p></body></html>".write(toFile: directory.path("recovery_code.html"), atomically: true, encoding: .utf8)
        var own = try MailTemplates(directory: directory.path(""))
        own.branding = templates.branding
        let mine = own.render(.recoveryCode, values: ["code": "123456"])
        #expect(mine.html == "<html><body><p>123456</p></body></html>", "an operator's template says what it says")
        #expect(mine.text.contains("Need help?"), "the built-in text part still carries the brand")
    }

    /// A message delivered through a real SMTP server: the brand's name in the subject, the
    /// logo, colour and help link in the HTML part, the help line in the text part.
    @Test(.timeLimit(.minutes(10))) func aDeliveredEmailWearsTheBrand() async throws {
        let sink = try await SMTPSink.start(["--tls"])
        defer { sink.stop() }
        let (server, _, _, mail) = try await RecoveryRulesTests.start(sink, yaml: """
            branding:
              name: Example Bank
              logo: http://localhost:8080/brand/logo.png
              primary_color: '#0f766e'
              support_url: https://help.example.com/
            """)
        defer { server.stop() }
        #expect(mail.header("Subject")?.hasPrefix("Your Example Bank verification code: ") == true, "\(mail.header("Subject") ?? "")")
        let body = mail.text
        #expect(body.contains("<img src=\"http://localhost:8080/brand/logo.png\" alt=\"Example Bank\""), "\(body)")
        #expect(body.contains("border-top:4px solid #0f766e"))
        #expect(body.contains("Need help? <a href=\"https://help.example.com/\""))
        #expect(body.replacingOccurrences(of: "\r\n", with: "\n").contains("\nNeed help? https://help.example.com/\n"), "the text part too")
    }

    @Test func aBrandedServerWearsItOnEveryPage() async throws {
        let directory = try TemporaryDirectory()
        let svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"40\" height=\"40\"><circle cx=\"20\" cy=\"20\" r=\"18\" fill=\"#0f766e\"/></svg>"
        try svg.write(toFile: directory.path("logo.svg"), atomically: true, encoding: .utf8)
        try ".card { border-width: 2px; }\n".write(toFile: directory.path("brand.css"), atomically: true, encoding: .utf8)
        let server = try await ServerProcess.start(configuration: """
            server: { public_url: http://localhost:8080 }
            relying_party: { id: localhost, name: Latchkey Test, origins: [http://localhost:8080] }
            branding:
              name: Example Bank
              logo: \(directory.path("logo.svg"))
              favicon: http://localhost:8080/favicon.ico
              primary_color: '#ffd60a'
              accent_color: '#0F766E'
              theme: light
              support_url: https://help.example.com/
              terms_url: https://example.com/terms
              privacy_url: https://example.com/privacy
              stylesheet: \(directory.path("brand.css"))
            """, in: directory)
        defer { server.stop() }
        // A yellow too light for links on the light theme: said at start-up, with the ratio.
        #expect(server.output.text.contains("warning latchkey: [LatchkeyServer] branding.primary_color #ffd60a: as link text on the light theme's surface"), "\(server.output.text.suffix(2000))")

        let http = RawHTTP(server)
        for path in ["/login", "/signup", "/recover", "/no-such-page"] {
            let page = try await http.send("GET", path, contentType: nil, headers: ["Accept": "text/html"])
            #expect(page.text.contains("<html lang=\"en\" dir=\"ltr\" data-theme=\"light\">"), "\(path)")
            #expect(page.text.contains("<title>") && page.text.contains(" · Example Bank</title>"), "\(path)")
            #expect(page.text.contains("<img src=\"/ui/assets/brand/logo\" alt=\"\"><span>Example Bank</span>"), "\(path)")
            #expect(page.text.contains("<link rel=\"icon\" href=\"http://localhost:8080/favicon.ico\">"), "\(path)")
            #expect(page.text.contains("<link rel=\"stylesheet\" href=\"/ui/assets/brand.css\">"), "\(path)")
            #expect(page.text.contains("<a href=\"https://help.example.com/\">Help</a> <a href=\"https://example.com/terms\">Terms</a>"), "\(path)")
            #expect(!page.text.contains("Latchkey Test"), "the brand's name replaces the relying party's: \(path)")
        }

        let css = try await http.send("GET", "/ui/assets/brand.css", contentType: nil)
        #expect(css.header("Content-Type") == "text/css; charset=utf-8")
        #expect(css.text.contains("--accent: #ffd60a; --accent-text: #0b1020;"), "dark text on the yellow buttons")
        #expect(css.text.contains("--badge: #0f766e; --badge-text: #ffffff;"))
        #expect(css.text.hasSuffix(".card { border-width: 2px; }\n\n"), "the operator's CSS comes last")

        let logo = try await http.send("GET", "/ui/assets/brand/logo", contentType: nil)
        #expect(logo.status == 200 && logo.header("Content-Type") == "image/svg+xml")
        #expect(logo.text == svg)
        #expect(logo.header("Content-Security-Policy")?.contains("sandbox") == true, "an SVG opened on its own runs nothing")
        #expect(try await http.send("GET", "/ui/assets/brand/favicon", contentType: nil).status == 404, "a favicon URL is not served here")
    }

    @Test func anUnbrandedServerLooksAsBefore() async throws {
        let server = try await RouterServer.start()
        defer { server.stop() }
        let page = try await RawHTTP(server).send("GET", "/login", contentType: nil)
        #expect(page.text.contains("<html lang=\"en\" dir=\"ltr\" data-theme=\"auto\">"))
        #expect(!page.text.contains("brand.css") && !page.text.contains("rel=\"icon\"") && !page.text.contains("class=\"links\""), "no brand, no links under the card")
        #expect(try await RawHTTP(server).send("GET", "/ui/assets/brand.css", contentType: nil).status == 404)
    }
}
