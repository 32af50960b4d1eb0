/// One reply from an SMTP server (RFC 5321 §4.2): a three-digit code and its text lines. A
/// multiline reply repeats the code on each line, with `-` after it on all but the last.
struct SMTPReply: Sendable {
    /// The reply code.
    let code: Int
    /// The text after the code on each line.
    let lines: [String]

    /// 2xx: the command succeeded.
    var isPositive: Bool { (200..<300).contains(code) }

    /// The reply as one line for errors and logs, shortened: a server's text may be long.
    var summary: String { "\(code) \(lines.joined(separator: " / "))".prefix(300).description }

    /// Accumulates lines until a reply is complete.
    struct Parser {
        private var code: Int?
        private var lines: [String] = []

        /// Adds one line (without its line break).
        /// - Returns: The reply, when this line ends one.
        mutating func add(_ line: String) throws(SMTPError) -> SMTPReply? {
            let bytes = Array(line.utf8)
            guard bytes.count >= 3, bytes[0..<3].allSatisfy({ (0x30...0x39).contains($0) }),
                let lineCode = Int(String(decoding: bytes[0..<3], as: UTF8.self))
            else {
                throw SMTPError(.protocolViolation, "the server's reply is not SMTP: \"\(line.prefix(80))\"")
            }
            if let code, code != lineCode {
                throw SMTPError(.protocolViolation, "a multiline reply changed its code from \(code) to \(lineCode)")
            }
            code = lineCode
            let separator = bytes.count > 3 ? bytes[3] : UInt8(ascii: " ")
            lines.append(bytes.count > 4 ? String(decoding: bytes[4...], as: UTF8.self) : "")
            switch separator {
            case UInt8(ascii: "-"):
                // A server that never ends its reply would grow this without bound.
                guard lines.count <= 100 else { throw SMTPError(.protocolViolation, "a multiline reply went on for over 100 lines") }
                return nil
            case UInt8(ascii: " "):
                let reply = SMTPReply(code: lineCode, lines: lines)
                self = Parser()
                return reply
            default:
                throw SMTPError(.protocolViolation, "the server's reply is not SMTP: \"\(line.prefix(80))\"")
            }
        }
    }
}
