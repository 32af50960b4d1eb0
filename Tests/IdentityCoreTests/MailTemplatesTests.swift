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

    /// With a key-encryption key, a message waits in the outbox sealed: its subject and
    /// bodies (which carry the code) open only under that key, each bound to its message.
    @Test func queuedMessagesAreSealedUnderTheKeyEncryptionKey() throws {
        let key = try #require(KeyEncryption(key: Array(repeating: 7, count: 32)))
        let other = try #require(KeyEncryption(key: Array(repeating: 8, count: 32)))
        let mail = OutboxMail(
            id: "m1", kind: .recoveryCode, recipient: "ada@example.com", recipientName: nil, subject: "Your code: 12345678", text: "Code 12345678",
            html: "<p>12345678</p>", createdAt: Date()
        )
        let sealed = try mail.sealed(under: key)
        #expect([sealed.subject, sealed.text, sealed.html].allSatisfy { $0.hasPrefix("sealed:") && !$0.contains("12345678") })
        #expect(sealed.recipient == "ada@example.com")
        #expect(try sealed.opened(under: key) == mail)
        #expect(throws: KeyEncryption.Failure.self) { try sealed.opened(under: other) }
        #expect(throws: KeyEncryption.Failure.self) { try sealed.opened(under: nil) }
        let moved = OutboxMail(id: "m2", kind: sealed.kind, recipient: sealed.recipient, recipientName: nil, subject: sealed.subject, text: sealed.text, html: sealed.html, createdAt: sealed.createdAt)
        #expect(throws: KeyEncryption.Failure.self, "a part moved to another message does not open") { try moved.opened(under: key) }
        #expect(try mail.opened(under: key) == mail, "a message queued in the clear is sent as it is")
    }
}
