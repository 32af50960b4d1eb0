import Foundation
import Mail
import Testing

/// The SMTP client against a real SMTP server (aiosmtpd) on 127.0.0.1: STARTTLS, TLS from
/// the start, AUTH, dot stuffing, RFC 2047 subjects, and a server that lies or fails.
@Suite("SMTP client", .serialized, .timeLimit(.minutes(10)))
struct MailClientTests {
    static let from = try! MailAddress("no-reply@example.com", name: "Latchkey")

    static func message(subject: String = "Hello", text: String = "Your code is 123456.\n", to: String = "ada@example.com") throws -> MailMessage {
        try MailMessage(
            from: from, to: try MailAddress(to, name: "Ada Lovelace"), replyTo: try MailAddress("help@example.com"), subject: subject, text: text,
            html: "<p>\(text)</p>"
        )
    }

    static func settings(_ sink: SMTPSink, security: SMTPSettings.Security, user: String? = "mailer", password: String? = "s3cret", trust: Bool = true) -> SMTPSettings {
        SMTPSettings(
            host: "127.0.0.1", port: sink.port, username: user, password: password, security: security,
            // Generous: these tests check what is said, not how fast; at the start of a full run two cores
            // serve a hundred suites at once, and a TLS handshake with the sink has taken over 30 s there.
            timeout: .seconds(120),
            additionalTrustRoots: trust ? [sink.certificate].compactMap { $0 } : []
        )
    }

    @Test func startTLSThenAuthThenTheMessageArrivesWhole() async throws {
        let sink = try await SMTPSink.start(["--tls", "--user", "mailer", "--password", "s3cret"])
        defer { sink.stop() }
        let text = "Line one.\n.A line that starts with a dot.\n..And two.\n"
        try await SMTPClient(settings: Self.settings(sink, security: .required)).send(
            try Self.message(subject: "Vérification — 確認", text: text), messageID: "abc123"
        )
        let received = try #require(sink.messages().first)
        #expect(received.tls && received.authUser == "mailer" && received.recipients == ["ada@example.com"])
        // RFC 2047: the UTF-8 subject travels as encoded words and decodes back.
        let subject = try #require(received.header("Subject"))
        #expect(subject.hasPrefix("=?UTF-8?B?"))
        let decoded = subject.split(separator: " ").compactMap { word -> String? in
            guard word.hasPrefix("=?UTF-8?B?"), word.hasSuffix("?=") else { return nil }
            return Data(base64Encoded: String(word.dropFirst(10).dropLast(2))).map { String(decoding: $0, as: UTF8.self) }
        }.joined()
        #expect(decoded == "Vérification — 確認")
        #expect(received.header("Message-ID") == "<abc123@example.com>")
        #expect(received.header("From") == "\"Latchkey\" <no-reply@example.com>")
        #expect(received.header("Reply-To") == "<help@example.com>")
        #expect(received.header("Content-Type")?.hasPrefix("multipart/alternative") == true)
        // Both parts arrive, and the dot-stuffed lines come back as written.
        #expect(received.text.contains(text.replacingOccurrences(of: "\n", with: "\r\n")))
        #expect(received.text.contains("<p>Line one."))
    }

    @Test func implicitTLSWorksToo() async throws {
        let sink = try await SMTPSink.start(["--implicit-tls", "--user", "mailer", "--password", "s3cret"])
        defer { sink.stop() }
        try await SMTPClient(settings: Self.settings(sink, security: .implicitTLS)).send(try Self.message(), messageID: "tls1")
        #expect(sink.messages().first?.tls == true)
    }

    @Test func aServerWithoutSTARTTLSIsRefusedWhenItIsRequired() async throws {
        let sink = try await SMTPSink.start(["--user", "mailer", "--password", "s3cret"])
        defer { sink.stop() }
        let error = await Self.failure { try await SMTPClient(settings: Self.settings(sink, security: .required)).send(try Self.message(), messageID: "x") }
        #expect(error?.kind == .tls, "\(String(describing: error))")
        #expect(sink.messages().isEmpty)
        // Opportunistic sends in the clear, as configured.
        try await SMTPClient(settings: Self.settings(sink, security: .opportunistic)).send(try Self.message(), messageID: "y")
        #expect(sink.messages().count == 1 && sink.messages().first?.tls == false)
    }

    @Test func anUntrustedCertificateIsATLSFailure() async throws {
        let sink = try await SMTPSink.start(["--tls"])
        defer { sink.stop() }
        let error = await Self.failure { try await SMTPClient(settings: Self.settings(sink, security: .required, trust: false)).send(try Self.message(), messageID: "x") }
        #expect(error?.kind == .tls, "\(String(describing: error))")
        #expect(sink.messages().isEmpty)
    }

    @Test func wrongCredentialsArePermanentAndNotEchoed() async throws {
        let sink = try await SMTPSink.start(["--tls", "--user", "mailer", "--password", "s3cret"])
        defer { sink.stop() }
        let error = await Self.failure {
            try await SMTPClient(settings: Self.settings(sink, security: .required, password: "wrong-password")).send(try Self.message(), messageID: "x")
        }
        #expect(error?.kind == .permanent, "\(String(describing: error))")
        #expect(error.map { !$0.message.contains("wrong-password") && !$0.message.contains(Data("\0mailer\0wrong-password".utf8).base64EncodedString()) } == true)
    }

    @Test func serversThatLieOrFailGetClearErrors() async throws {
        let cases: [([String], SMTPError.Kind)] = [
            (["--reject-rcpt"], .permanent),
            (["--fail-data", "5"], .transient),
            (["--garbage-greeting"], .protocolViolation),
            (["--drop-after-ehlo"], .connection),
        ]
        for (options, kind) in cases {
            let sink = try await SMTPSink.start(options)
            defer { sink.stop() }
            let error = await Self.failure {
                try await SMTPClient(settings: Self.settings(sink, security: .opportunistic, user: nil, password: nil)).send(try Self.message(), messageID: "x")
            }
            #expect(error?.kind == kind, "\(options): \(String(describing: error))")
        }
        // Nobody listening.
        let closed = try freePort()
        let error = await Self.failure {
            try await SMTPClient(settings: SMTPSettings(host: "127.0.0.1", port: closed, security: .opportunistic, timeout: .seconds(5))).send(try Self.message(), messageID: "x")
        }
        #expect(error?.kind == .connection && error?.isTransient == true)

        // A server that accepts and never speaks: the deadline ends the conversation.
        let silent = loopbackListener()
        defer { close(silent.descriptor) }
        let quiet = SMTPSettings(host: "127.0.0.1", port: silent.port, security: .opportunistic, timeout: .seconds(2))
        let started = ContinuousClock.now
        let timedOut = await Self.failure { try await SMTPClient(settings: quiet).send(try Self.message(), messageID: "x") }
        #expect(timedOut?.kind == .connection && timedOut?.message.contains("did not finish within 2 s") == true, "\(String(describing: timedOut))")
        #expect(ContinuousClock.now - started < .seconds(15))
    }

    @Test func headerInjectionIsRefusedBeforeAnythingIsSent() throws {
        #expect(throws: SMTPError.self) { try MailAddress("ada@example.com\r\nBcc: eve@example.com") }
        #expect(throws: SMTPError.self) { try MailAddress("ada@example.com>\r\nRCPT TO:<eve@example.com") }
        #expect(throws: SMTPError.self) { try MailAddress("ada@example.com", name: "Ada\r\nBcc: eve@example.com") }
        #expect(throws: SMTPError.self) { try Self.message(subject: "Hi\r\nBcc: eve@example.com") }
        #expect(throws: SMTPError.self) { try MailAddress("no at sign") }
        // A quote in a name is escaped, not a way out of the header.
        #expect(try MailAddress(parsing: "\"Ada \\\"the\\\" Countess\" <ada@example.com>").address == "ada@example.com")
        #expect(try MailAddress("a@example.com", name: "A \"B\"").headerValue == "\"A \\\"B\\\"\" <a@example.com>")
    }

    @Test func smtpURLsReadAsDocumented() throws {
        let submission = try SMTPSettings(url: "smtp://user%40example.com:p%40ss@mail.example.com:587")
        #expect(submission.username == "user@example.com" && submission.password == "p@ss" && submission.security == .required && submission.port == 587)
        let implicit = try SMTPSettings(url: "smtps://u:p@mail.example.com")
        #expect(implicit.security == .implicitTLS && implicit.port == 465)
        // Loopback: nothing crosses a network, so STARTTLS is taken when offered.
        #expect(try SMTPSettings(url: "smtp://127.0.0.1:2525").security == .opportunistic)
        #expect(try SMTPSettings(url: "smtp://u:p@mail.example.com", starttls: .opportunistic).security == .opportunistic)
        #expect(try SMTPSettings(url: "smtp://u:from-url@mail.example.com", password: "from-env").password == "from-env")
        for bad in ["http://mail.example.com", "smtp://", "smtp://u@mail.example.com", "smtp://mail.example.com:99999", "smtp://mail.example.com/path"] {
            #expect(throws: SMTPError.self, "\(bad)") { try SMTPSettings(url: bad) }
        }
    }

    static func failure(_ body: () async throws -> Void) async -> SMTPError? {
        do {
            try await body()
            return nil
        } catch let error as SMTPError {
            return error
        } catch {
            return SMTPError(.connection, "unexpected \(type(of: error)): \(error)")
        }
    }
}
