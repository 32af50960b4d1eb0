public import Foundation
public import NIOCore
public import NIOPosix
import NIOSSL
import Synchronization

/// Hands messages to an SMTP server (RFC 5321): EHLO, STARTTLS (RFC 3207) or TLS from the
/// start (RFC 8314), AUTH PLAIN or LOGIN (RFC 4954), MAIL, RCPT, DATA with dot stuffing,
/// QUIT. One connection per message: the outbox sends a few messages a minute, and a
/// connection kept open would need its own keep-alive and recovery.
///
/// Hand-written because no SMTP client for Swift on Linux is maintained for this
/// toolchain; what Latchkey needs (submission to one configured relay) is small enough to
/// own, on the SwiftNIO and NIOSSL the server already links.
public struct SMTPClient: Sendable {
    /// Where to send.
    public let settings: SMTPSettings
    private let group: any EventLoopGroup

    public init(settings: SMTPSettings, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.settings = settings
        self.group = group
    }

    /// Sends one message.
    /// - Parameters:
    ///   - messageID: The unique part of its `Message-ID`, kept by the caller so that a retry
    ///     carries the same one (a receiver can then tell a duplicate).
    /// - Returns: The server's reply to the message's data (its queue ID, usually).
    /// - Throws: ``SMTPError``; its message has the server's reply, never the message body
    ///   or the credentials.
    @discardableResult
    public func send(_ message: MailMessage, messageID: String, date: Date = Date()) async throws -> String {
        let boundary = "=_latchkey_" + messageID
        let data = message.rendered(date: date, messageID: messageID, boundary: boundary)
        let tls = try makeTLSContext()
        let tally = LineTally()
        let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        do {
            let implicit = settings.security == .implicitTLS
            let serverName = Self.serverName(settings.host)
            channel = try await ClientBootstrap(group: group)
                .connectTimeout(.nanoseconds(Int64(settings.timeout.components.seconds) * 1_000_000_000))
                .connect(host: settings.host, port: settings.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if implicit { try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: tls, serverHostname: serverName)) }
                        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(SMTPLineDecoder(tally: tally)))
                        return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw SMTPError(.connection, "could not connect to \(settings.host):\(settings.port): \(error)")
        }
        // The whole conversation has one deadline: a server that stops answering mid-reply
        // gets its connection closed, which ends the read below.
        let expired = ExpiryFlag()
        let deadline = channel.channel.eventLoop.scheduleTask(in: .nanoseconds(Int64(settings.timeout.components.seconds) * 1_000_000_000)) {
            expired.set()
            channel.channel.close(promise: nil)
        }
        defer { deadline.cancel() }
        do {
            return try await channel.executeThenClose { inbound, outbound in
                var conversation = Conversation(inbound: inbound.makeAsyncIterator(), outbound: outbound, host: settings.host)
                return try await converse(&conversation, channel: channel.channel, tls: tls, tally: tally, message: message, data: data)
            }
        } catch _ where expired.isSet {
            throw SMTPError(.connection, "\(settings.host) did not finish within \(settings.timeout.components.seconds) s (email.timeout)")
        } catch let error as SMTPError {
            throw error
        } catch let error as NIOSSLError {
            throw SMTPError(.tls, "TLS with \(settings.host) failed: \(error)")
        } catch let error as BoringSSLError {
            throw SMTPError(.tls, "TLS with \(settings.host) failed: \(error)")
        } catch {
            throw SMTPError(.connection, "the connection to \(settings.host) failed: \(error)")
        }
    }

    private func converse(
        _ conversation: inout Conversation, channel: any Channel, tls: NIOSSLContext, tally: LineTally, message: MailMessage, data: String
    ) async throws -> String {
        var capabilities: Set<String>
        if settings.security == .implicitTLS {
            capabilities = try await duringHandshake {
                try await conversation.expect([220], after: nil, what: "greeting")
                return try await conversation.hello(settings.clientName)
            }
        } else {
            try await conversation.expect([220], after: nil, what: "greeting")
            capabilities = try await conversation.hello(settings.clientName)
        }
        if settings.security != .implicitTLS {
            if capabilities.contains("STARTTLS") {
                try await conversation.command("STARTTLS", expect: [220])
                capabilities = try await duringHandshake {
                    let serverName = Self.serverName(settings.host)
                    // Made and added on the channel's loop: the handler is not Sendable.
                    try await channel.eventLoop.submit {
                        try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: tls, serverHostname: serverName), position: .first)
                    }.get()
                    // Whatever arrived in plaintext after the `220` (read already, or waiting in
                    // the decoder) was not said by the server behind TLS: someone on the path
                    // can inject it, and acting on it would take their answers for the
                    // server's (the STARTTLS injection class, CVE-2011-0411). Anything read
                    // from now on passes through TLS first.
                    guard tally.decoded == conversation.consumed, tally.pending == 0 else {
                        throw SMTPError(.tls, "\(settings.host) sent plaintext after agreeing to start TLS; refusing the connection (a STARTTLS injection?)")
                    }
                    // RFC 3207 §4.2: what the server said before TLS is forgotten; ask again.
                    return try await conversation.hello(settings.clientName)
                }
            } else if settings.security == .required {
                throw SMTPError(.tls, "\(settings.host) does not offer STARTTLS, which starttls: required needs")
            }
        }
        if let username = settings.username, let password = settings.password {
            try await conversation.authenticate(username: username, password: password, capabilities: capabilities)
        }
        let international = [message.from.address, message.to.address].contains { !$0.unicodeScalars.allSatisfy(\.isASCII) }
        if international && !capabilities.contains("SMTPUTF8") {
            throw SMTPError(.permanent, "\(settings.host) does not take addresses outside ASCII (no SMTPUTF8)")
        }
        try await conversation.command("MAIL FROM:<\(message.from.address)>" + (international ? " SMTPUTF8" : ""), expect: [250])
        try await conversation.command("RCPT TO:<\(message.to.address)>", expect: [250, 251])
        try await conversation.command("DATA", expect: [354])
        let accepted = try await conversation.data(data)
        // The message is the server's now; a failed QUIT changes nothing.
        _ = try? await conversation.command("QUIT", expect: [221])
        return accepted.summary
    }

    /// Runs the steps that first cross TLS. A failed handshake (an untrusted certificate, a
    /// server that does not speak TLS) surfaces in many shapes: a closed stream, a write on a
    /// closed channel, NIOSSL's own error. Each is a TLS failure here.
    private func duringHandshake<T>(_ steps: () async throws -> T) async throws -> T {
        do {
            return try await steps()
        } catch let error as SMTPError where error.kind != .connection {
            throw error
        } catch {
            throw SMTPError(.tls, "TLS with \(settings.host) failed (its certificate, or the handshake): \(error)")
        }
    }

    private func makeTLSContext() throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        configuration.additionalTrustRoots = settings.additionalTrustRoots.map { .file($0) }
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw SMTPError(.tls, "could not set up TLS (a trust root file that cannot be read?): \(error)")
        }
    }

    /// The name sent for SNI and checked against the certificate; an address is not sent
    /// (SNI carries names only) and NIOSSL checks the certificate against the peer's address.
    private static func serverName(_ host: String) -> String? {
        host.contains(":") || host.split(separator: ".").allSatisfy({ Int($0) != nil }) ? nil : host
    }
}

/// Whether the conversation's deadline closed the connection, set on the event loop and read
/// after the conversation ends.
private final class ExpiryFlag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}

/// What the line decoder has handed on and holds back, read on the conversation's side to
/// tell whether the server sent more than its reply (see STARTTLS in ``SMTPClient``).
final class LineTally: Sendable {
    private let decodedLines = Atomic<Int>(0)
    private let pendingBytes = Atomic<Int>(0)

    /// Lines decoded so far.
    var decoded: Int { decodedLines.load(ordering: .sequentiallyConsistent) }
    /// Bytes of a line not yet complete.
    var pending: Int { pendingBytes.load(ordering: .sequentiallyConsistent) }

    func record(decodedLine: Bool, pending: Int) {
        if decodedLine { decodedLines.add(1, ordering: .sequentiallyConsistent) }
        pendingBytes.store(pending, ordering: .sequentiallyConsistent)
    }
}

/// Splits replies into lines (without the `\n`; a trailing `\r` is left for the reader), and
/// tells its tally what it handed on. A line longer than any SMTP reply (RFC 5321 §4.5.3.1.5:
/// 512 octets) by far is refused rather than buffered.
struct SMTPLineDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer
    let tally: LineTally
    static let maximumLine = 8192

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
            guard buffer.readableBytes <= Self.maximumLine else { throw SMTPError(.protocolViolation, "the server sent a line longer than \(Self.maximumLine) bytes") }
            tally.record(decodedLine: false, pending: buffer.readableBytes)
            return .needMoreData
        }
        guard let line = buffer.readSlice(length: newline - buffer.readerIndex) else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: 1)
        tally.record(decodedLine: true, pending: buffer.readableBytes)
        context.fireChannelRead(wrapInboundOut(line))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        return .needMoreData
    }
}

/// One SMTP conversation: commands out, replies in.
private struct Conversation {
    var inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    let host: String
    /// Lines read so far.
    var consumed = 0

    /// Reads one reply and checks its code.
    @discardableResult
    mutating func expect(_ codes: Set<Int>, after command: String?, what: String) async throws -> SMTPReply {
        var parser = SMTPReply.Parser()
        while true {
            guard var line = try await inbound.next(isolation: #isolation) else {
                throw SMTPError(.connection, "\(host) closed the connection (or it timed out) waiting for the \(what)")
            }
            consumed += 1
            var text = line.readString(length: line.readableBytes) ?? ""
            if text.hasSuffix("\r") { text.removeLast() }
            guard let reply = try parser.add(text) else { continue }
            guard codes.contains(reply.code) else {
                let verb = command ?? "the connection"
                let kind: SMTPError.Kind = (400..<500).contains(reply.code) ? .transient : (500..<600).contains(reply.code) ? .permanent : .protocolViolation
                throw SMTPError(kind, "\(host) answered \(verb) with \(reply.summary)")
            }
            return reply
        }
    }

    /// Sends a command line and reads its reply.
    @discardableResult
    mutating func command(_ line: String, expect codes: Set<Int>, label: String? = nil) async throws -> SMTPReply {
        try await outbound.write(ByteBuffer(string: line + "\r\n"))
        // Errors name the verb (or the label) alone: AUTH's arguments are credentials.
        let verb = label ?? String(line.split(separator: " ").first ?? "")
        return try await expect(codes, after: verb, what: "reply to \(verb)")
    }

    /// EHLO, returning the extension keywords (uppercased, each with its parameters).
    mutating func hello(_ name: String) async throws -> Set<String> {
        let reply = try await command("EHLO \(name)", expect: [250])
        var keywords: Set<String> = []
        for line in reply.lines.dropFirst() {
            let words = line.uppercased().split(separator: " ")
            guard let keyword = words.first else { continue }
            keywords.insert(String(keyword))
            if keyword == "AUTH" { for mechanism in words.dropFirst() { keywords.insert("AUTH=\(mechanism)") } }
        }
        return keywords
    }

    /// AUTH PLAIN where offered, else AUTH LOGIN.
    mutating func authenticate(username: String, password: String, capabilities: Set<String>) async throws {
        if capabilities.contains("AUTH=PLAIN") {
            let token = Data("\0\(username)\0\(password)".utf8).base64EncodedString()
            try await command("AUTH PLAIN \(token)", expect: [235], label: "AUTH PLAIN")
        } else if capabilities.contains("AUTH=LOGIN") {
            try await command("AUTH LOGIN", expect: [334])
            try await command(Data(username.utf8).base64EncodedString(), expect: [334], label: "AUTH LOGIN's user name")
            try await command(Data(password.utf8).base64EncodedString(), expect: [235], label: "AUTH LOGIN's password")
        } else {
            throw SMTPError(.permanent, "\(host) offers neither AUTH PLAIN nor AUTH LOGIN, and smtp_url has credentials")
        }
    }

    /// The message after DATA, dot-stuffed (RFC 5321 §4.5.2), then the lone dot.
    mutating func data(_ message: String) async throws -> SMTPReply {
        var stuffed = ""
        stuffed.reserveCapacity(message.utf8.count + 16)
        for line in message.split(separator: "\r\n", omittingEmptySubsequences: false).dropLast() {
            stuffed += (line.hasPrefix(".") ? "." : "") + line + "\r\n"
        }
        try await outbound.write(ByteBuffer(string: stuffed + ".\r\n"))
        return try await expect([250], after: "DATA", what: "reply to the message")
    }
}
