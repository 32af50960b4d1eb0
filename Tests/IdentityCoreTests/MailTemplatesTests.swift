import Foundation
@testable import IdentityCore
import Testing

/// The words of the mail: placeholders filled in one pass, HTML escaped in the HTML part,
/// subjects on one line, and a time without a locale.
@Suite struct MailTemplatesTests {
    @Test func placeholdersAreFilledAndEscaped() {
        let rendered = MailTemplates().render(.verificationCode, values: ["code": "123456", "service": "Example", "name": "<Ada & \"Co\">", "minutes": "15"])
        #expect(rendered.subject == "Your Example verification code: 123456")
        #expect(rendered.text.contains("Hello <Ada & \"Co\">,") && rendered.text.contains("123456") && rendered.text.contains("15 minutes"))
        #expect(rendered.html.contains("Hello &lt;Ada &amp; &quot;Co&quot;&gt;,") && !rendered.html.contains("<Ada"))
        #expect(!rendered.text.contains("{{") && !rendered.html.contains("{{"))
    }

    @Test func unknownPlaceholdersStayAndSubjectsKeepOneLine() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("templates-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try "Code {{code}} for {{unknown}} {{".write(to: directory.appendingPathComponent("recovery_code.txt"), atomically: true, encoding: .utf8)
        try "Hi {{name}}\n".write(to: directory.appendingPathComponent("recovery_code.subject"), atomically: true, encoding: .utf8)
        let templates = try MailTemplates(directory: directory.path)
        let rendered = templates.render(.recoveryCode, values: ["code": "42", "name": "Ada\r\nBcc: eve@example.com"])
        #expect(rendered.text == "Code 42 for {{unknown}} {{")
        #expect(!rendered.subject.contains("\n") && !rendered.subject.contains("\r"), "\(rendered.subject)")
        #expect(rendered.html.contains("<strong"), "parts not in the directory keep their defaults")
    }

    @Test func timesNeedNoLocale() {
        #expect(Mailer.timeText(Date(timeIntervalSince1970: 1_795_000_000)) == "2026-11-18 11:06 UTC")
    }
}
