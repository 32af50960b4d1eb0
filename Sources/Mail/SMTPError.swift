/// Why a message could not be handed to the mail server, and whether trying again later
/// can help: the outbox retries what is transient and gives up on what is permanent.
public struct SMTPError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, in kinds the sender acts on.
    public enum Kind: String, Sendable {
        /// The connection failed, broke or timed out: try again later.
        case connection
        /// TLS could not be set up (handshake, certificate, or a server without STARTTLS
        /// where it is required). A configuration matter, but it may be mended without a
        /// restart (a certificate renewed), so it is retried.
        case tls
        /// The server answered with a 4xx reply: try again later.
        case transient
        /// The server answered with a 5xx reply, or refused the credentials: trying again
        /// sends the same thing to the same answer.
        case permanent
        /// The server said something that is not SMTP.
        case protocolViolation
        /// The message itself cannot be sent (a header with a line break, an address that
        /// is not one); nothing was sent.
        case invalidMessage
    }

    public let kind: Kind
    /// What happened, with the server's reply where there was one (never the message).
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// Whether sending again later may succeed.
    public var isTransient: Bool {
        switch kind {
        case .connection, .tls, .transient, .protocolViolation: return true
        case .permanent, .invalidMessage: return false
        }
    }

    public var description: String { "\(kind.rawValue): \(message)" }
}
