import Foundation
import ProcessTestSupport

/// A real SMTP server for the tests: `scripts/smtp-sink.py` (Python's aiosmtpd, in a
/// virtualenv `scripts/smtp-sink.sh setup` makes), on 127.0.0.1, keeping each message it
/// accepts as a file.
final class SMTPSink: @unchecked Sendable {
    let port: Int
    let maildir: URL
    /// The certificate it serves, when it serves TLS.
    let certificate: String?
    private let process: ChildProcess
    private let output: OutputCollector

    /// The virtualenv's python, made once per test run.
    private static let python = PythonTools.setUp("smtp-sink.sh", unless: "LATCHKEY_SMTP_SINK_PYTHON")

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Starts a sink with these `scripts/smtp-sink.py` options (`--tls`, `--user`, …) and
    /// waits for its `READY` line.
    static func start(_ options: [String], port: Int = 0, maildir: URL? = nil) async throws -> SMTPSink {
        let python = try python.get()
        let directory = maildir ?? FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-mail-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let certificate = options.contains("--tls") || options.contains("--implicit-tls") ? directory.appendingPathComponent("sink-cert.pem").path : nil
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [repository.appendingPathComponent("scripts/smtp-sink.py").path, "--port", String(port), "--maildir", directory.path] + options
            + (certificate.map { ["--cert-out", $0] } ?? [])
        let output = OutputCollector.collecting(process, errors: false)
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if let range = output.text.range(of: "READY "), let port = Int(output.text[range.upperBound...].prefix { $0.isNumber }) {
                return SMTPSink(port: port, maildir: directory, certificate: certificate, process: process, output: output)
            }
            if !ServerProcess.isAlive(process.processIdentifier) { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        process.terminate()
        throw TestFailure("the SMTP sink did not start")
    }

    private init(port: Int, maildir: URL, certificate: String?, process: ChildProcess, output: OutputCollector) {
        self.port = port
        self.maildir = maildir
        self.certificate = certificate
        self.process = process
        self.output = output
    }

    /// One received message.
    struct Message {
        let raw: String
        let recipients: [String]
        let authUser: String?
        let tls: Bool

        /// A header's value, unfolded.
        func header(_ name: String) -> String? {
            let head = raw.components(separatedBy: "\r\n\r\n").first ?? ""
            let unfolded = head.replacingOccurrences(of: "\r\n ", with: " ")
            for line in unfolded.components(separatedBy: "\r\n") where line.lowercased().hasPrefix(name.lowercased() + ":") {
                return String(line.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces)
            }
            return nil
        }

        /// The subject, its RFC 2047 encoded words (`=?UTF-8?B?…?=`) decoded.
        var subject: String {
            let words = (header("Subject") ?? "").split(separator: " ")
            return words.map { word -> String in
                guard word.hasPrefix("=?UTF-8?B?"), word.hasSuffix("?="), let data = Data(base64Encoded: String(word.dropFirst(10).dropLast(2))) else { return String(word) + " " }
                return String(decoding: data, as: UTF8.self)
            }.joined().trimmingCharacters(in: .whitespaces)
        }

        /// The decoded text of each MIME part (base64 bodies), joined.
        var text: String {
            var decoded: [String] = []
            for part in raw.components(separatedBy: "\r\n\r\n").dropFirst() {
                let lines = part.components(separatedBy: "\r\n").prefix { !$0.hasPrefix("--") }
                if let data = Data(base64Encoded: lines.joined()) { decoded.append(String(decoding: data, as: UTF8.self)) }
            }
            return decoded.joined(separator: "\n")
        }

        /// The first run of `digits` digits in the plain text (a code; eight is the default length).
        func code(digits: Int = 8) -> String? {
            text.split(whereSeparator: { !$0.isNumber }).first { $0.count == digits }.map(String.init)
        }
    }

    /// The messages received so far, oldest first.
    func messages() -> [Message] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: maildir.path)) ?? []).filter { $0.hasSuffix(".eml") }.sorted()
        return names.compactMap { name in
            let base = maildir.appendingPathComponent(String(name.dropLast(4)))
            guard let raw = try? String(contentsOf: base.appendingPathExtension("eml"), encoding: .utf8),
                let json = try? Data(contentsOf: base.appendingPathExtension("json")),
                let envelope = try? JSONSerialization.jsonObject(with: json) as? [String: Any]
            else { return nil }
            return Message(
                raw: raw, recipients: envelope["rcpt_tos"] as? [String] ?? [], authUser: envelope["auth_user"] as? String, tls: envelope["tls"] as? Bool ?? false
            )
        }
    }

    /// Waits until a message to `recipient` whose subject contains `subject` has arrived.
    func waitForMessage(to recipient: String, subject: String, after count: Int = 0, timeout: TimeInterval = 30) async throws -> Message {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let found = messages().dropFirst(count).first(where: { $0.recipients.contains(recipient) && $0.subject.contains(subject) }) {
                return found
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestFailure("no message to \(recipient) about \"\(subject)\" arrived; received: \(messages().map { $0.header("Subject") ?? "?" })")
    }

    /// Stops the sink (SIGTERM) and waits for it to exit.
    func stop() {
        Self.terminate(process)
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: maildir)
    }
}

extension SMTPSink {
    /// Stops a helper process the tests started (SIGTERM, then SIGKILL after 10 seconds)
    /// and waits for it to exit.
    static func terminate(_ process: ChildProcess) {
        let pid = process.processIdentifier
        guard ServerProcess.isAlive(pid) else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(10)
        while ServerProcess.isAlive(pid) && Date() < deadline { usleep(20_000) }
        if ServerProcess.isAlive(pid) { kill(pid, SIGKILL) }
    }
}
