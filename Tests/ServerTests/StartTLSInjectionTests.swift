import Foundation
import Mail
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A relay, or someone on the path to it, that answers STARTTLS's `220` and, in the same
/// plaintext write, the whole rest of a conversation: the client must not take those lines
/// for the replies of the server behind TLS (the STARTTLS injection class, CVE-2011-0411),
/// so a message is never marked sent that nobody received.
@Suite("STARTTLS response injection")
struct StartTLSInjectionTests {
    /// Plays the injecting relay once on a loopback port; what the client wrote is kept.
    final class InjectingRelay: @unchecked Sendable {
        let port: Int
        private let listener: Int32
        private let lock = NSLock()
        private var received = ""

        init() throws {
            (listener, port) = loopbackListener(backlog: 1)
        }

        /// What the client sent in plaintext.
        var transcript: String { lock.withLock { received } }

        /// Serves one connection on a thread of its own.
        func serveOnce() {
            let thread = Thread { [self] in
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { return }
                defer { close(connection) }
                var timeout = timeval(tv_sec: 60, tv_usec: 0)
                setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                send(connection, "220 relay.test ESMTP\r\n")
                guard readLine(connection)?.hasPrefix("EHLO") == true else { return }
                send(connection, "250-relay.test\r\n250 STARTTLS\r\n")
                guard readLine(connection) == "STARTTLS" else { return }
                // The 220 and, in the same write, answers to everything the client says next.
                send(connection, "220 go ahead\r\n250-relay.test\r\n250 AUTH PLAIN\r\n250 ok\r\n250 ok\r\n354 go\r\n250 queued as INJECTED\r\n221 bye\r\n")
                // Then whatever comes (a TLS ClientHello, or plaintext commands) is read and dropped.
                var buffer = [UInt8](repeating: 0, count: 4096)
                while recv(connection, &buffer, buffer.count, 0) > 0 {}
            }
            thread.start()
        }

        private func send(_ connection: Int32, _ text: String) {
            _ = text.utf8CString.withUnsafeBufferPointer { Glibc.send(connection, $0.baseAddress, $0.count - 1, Int32(MSG_NOSIGNAL)) }
        }

        private func readLine(_ connection: Int32) -> String? {
            var line: [UInt8] = []
            var byte: UInt8 = 0
            while recv(connection, &byte, 1, 0) == 1 {
                if byte == UInt8(ascii: "\n") {
                    let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                    lock.withLock { received += text + "\n" }
                    return text
                }
                line.append(byte)
            }
            return nil
        }

        deinit { close(listener) }
    }

    @Test func plaintextAfterTheGoAheadIsRefusedAndNothingIsMarkedSent() async throws {
        for security in [SMTPSettings.Security.required, .opportunistic] {
            let relay = try InjectingRelay()
            relay.serveOnce()
            let settings = SMTPSettings(host: "127.0.0.1", port: relay.port, security: security, timeout: .seconds(60))
            let error = await MailClientTests.failure {
                try await SMTPClient(settings: settings).send(try MailClientTests.message(), messageID: "injection")
            }
            #expect(error?.kind == .tls && error?.message.contains("plaintext after agreeing to start TLS") == true, "\(security): \(String(describing: error))")
            #expect(!relay.transcript.contains("MAIL FROM"), "nothing after STARTTLS went out in the clear: \(relay.transcript)")
        }
    }
}
