/// A strict, allocation-light reader for clientDataJSON (RFC 8259), which is on the hot
/// path of every login.
///
/// It reads one top-level object, decodes the members WebAuthn uses, and validates and
/// skips every other member, so extensions such as `other_keys_can_be_added_here` pass.
/// A member WebAuthn reads may appear only once: a second `origin` or `challenge` is an
/// error rather than a silent choice between two values.
struct ClientDataJSONReader {
    /// The members WebAuthn reads.
    struct Members {
        var type: String?
        var challenge: String?
        var origin: String?
        var crossOrigin: Bool?
        var topOrigin: String?
        var tokenBindingStatus: String?
        var androidPackageName: String?
    }

    private var rest: ArraySlice<UInt8>
    private let total: Int
    private static let maximumDepth = 32

    init(_ bytes: [UInt8]) {
        var slice = bytes[...]
        // UTF-8 decoding (WebAuthn L3 §7.1 step 7) drops a leading byte order mark.
        if slice.starts(with: [0xef, 0xbb, 0xbf]) { slice = slice.dropFirst(3) }
        self.rest = slice
        self.total = bytes.count
    }

    /// Reads the object and returns its members.
    mutating func read() throws(WebAuthnError) -> Members {
        var members = Members()
        var sawTokenBinding = false
        skipWhitespace()
        try readObject("clientDataJSON") { reader, key throws(WebAuthnError) in
            switch key {
            case "type": try reader.readStringMember(key, into: &members.type)
            case "challenge": try reader.readStringMember(key, into: &members.challenge)
            case "origin": try reader.readStringMember(key, into: &members.origin)
            case "topOrigin": try reader.readStringMember(key, into: &members.topOrigin)
            case "androidPackageName": try reader.readStringMember(key, into: &members.androidPackageName)
            case "crossOrigin":
                guard members.crossOrigin == nil else { throw reader.duplicate(key) }
                members.crossOrigin = try reader.readBoolMember(key)
            case "tokenBinding":
                guard !sawTokenBinding else { throw reader.duplicate(key) }
                sawTokenBinding = true
                members.tokenBindingStatus = try reader.readTokenBinding()
            default: try reader.skipValue(depth: 1)
            }
        }
        skipWhitespace()
        guard rest.isEmpty else { throw malformed("\(rest.count) byte(s) follow the JSON object") }
        return members
    }

    /// Reads `{ "key": value, … }`, handing each key to `member`, which must consume the value.
    private mutating func readObject(
        _ what: String,
        member: (inout ClientDataJSONReader, String) throws(WebAuthnError) -> Void
    ) throws(WebAuthnError) {
        try expect(UInt8(ascii: "{"))
        skipWhitespace()
        if rest.first == UInt8(ascii: "}") {
            rest = rest.dropFirst()
            return
        }
        while true {
            skipWhitespace()
            let key = try readString()
            skipWhitespace()
            try expect(UInt8(ascii: ":"))
            skipWhitespace()
            try member(&self, key)
            skipWhitespace()
            guard let separator = rest.popFirst() else { throw malformed("\(what) is not closed") }
            if separator == UInt8(ascii: "}") { return }
            guard separator == UInt8(ascii: ",") else { throw unexpected(separator, "',' or '}'") }
        }
    }

    // MARK: - Members

    private mutating func readStringMember(_ key: String, into value: inout String?) throws(WebAuthnError) {
        guard value == nil else { throw duplicate(key) }
        guard rest.first == UInt8(ascii: "\"") else { throw malformed("member \"\(key)\" must be a string") }
        value = try readString()
    }

    private func duplicate(_ key: String) -> WebAuthnError {
        malformed("member \"\(key)\" appears more than once")
    }

    private mutating func readBoolMember(_ key: String) throws(WebAuthnError) -> Bool {
        if rest.starts(with: Self.trueLiteral) {
            rest = rest.dropFirst(4)
            return true
        }
        if rest.starts(with: Self.falseLiteral) {
            rest = rest.dropFirst(5)
            return false
        }
        throw malformed("member \"\(key)\" must be true or false")
    }

    /// WebAuthn L2's `tokenBinding` is an object with a `status`; anything else carries no
    /// status and is skipped.
    private mutating func readTokenBinding() throws(WebAuthnError) -> String? {
        guard rest.first == UInt8(ascii: "{") else {
            try skipValue(depth: 1)
            return nil
        }
        var status: String?
        try readObject("tokenBinding") { reader, key throws(WebAuthnError) in
            if key == "status", reader.rest.first == UInt8(ascii: "\"") {
                try reader.readStringMember("tokenBinding.status", into: &status)
            } else {
                try reader.skipValue(depth: 2)
            }
        }
        return status
    }

    // MARK: - Values

    private static let trueLiteral = Array("true".utf8)
    private static let falseLiteral = Array("false".utf8)
    private static let nullLiteral = Array("null".utf8)

    /// Validates and skips any JSON value.
    private mutating func skipValue(depth: Int) throws(WebAuthnError) {
        guard depth <= Self.maximumDepth else { throw malformed("values are nested more than \(Self.maximumDepth) levels deep") }
        guard let first = rest.first else { throw malformed("a value is missing at the end of the input") }
        switch first {
        case UInt8(ascii: "\""):
            _ = try readString()
        case UInt8(ascii: "{"):
            try readObject("an object") { reader, _ throws(WebAuthnError) in try reader.skipValue(depth: depth + 1) }
        case UInt8(ascii: "["):
            rest = rest.dropFirst()
            skipWhitespace()
            if rest.first == UInt8(ascii: "]") {
                rest = rest.dropFirst()
                return
            }
            while true {
                skipWhitespace()
                try skipValue(depth: depth + 1)
                skipWhitespace()
                guard let separator = rest.popFirst() else { throw malformed("an array is not closed") }
                if separator == UInt8(ascii: "]") { return }
                guard separator == UInt8(ascii: ",") else { throw unexpected(separator, "',' or ']'") }
            }
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            for literal in [Self.trueLiteral, Self.falseLiteral, Self.nullLiteral] where rest.starts(with: literal) {
                rest = rest.dropFirst(literal.count)
                return
            }
            throw unexpected(first, "a value")
        default:
            try skipNumber()
        }
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    private mutating func skipNumber() throws(WebAuthnError) {
        if rest.first == UInt8(ascii: "-") { rest = rest.dropFirst() }
        guard let first = rest.first, Self.isDigit(first) else { throw malformed("a number is malformed") }
        rest = rest.dropFirst()
        if first != UInt8(ascii: "0") { skipDigits() }
        if rest.first == UInt8(ascii: ".") {
            rest = rest.dropFirst()
            guard let digit = rest.first, Self.isDigit(digit) else { throw malformed("a number has no digits after '.'") }
            skipDigits()
        }
        if let e = rest.first, e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            rest = rest.dropFirst()
            if let sign = rest.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { rest = rest.dropFirst() }
            guard let digit = rest.first, Self.isDigit(digit) else { throw malformed("a number has no exponent digits") }
            skipDigits()
        }
    }

    private mutating func skipDigits() {
        while let byte = rest.first, Self.isDigit(byte) { rest = rest.dropFirst() }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// Reads a string, decoding escapes; the raw bytes must be valid UTF-8 with no control
    /// characters.
    private mutating func readString() throws(WebAuthnError) -> String {
        try expect(UInt8(ascii: "\""))
        // Fast path: no escapes.
        if let end = rest.firstIndex(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 }),
            rest[end] == UInt8(ascii: "\"")
        {
            let raw = rest[..<end]
            rest = rest[end...].dropFirst()
            guard let text = String(validating: raw, as: UTF8.self) else { throw malformed("a string is not valid UTF-8") }
            return text
        }
        var scalars = String.UnicodeScalarView()
        var pending: [UInt8] = []
        func flush() throws(WebAuthnError) {
            guard !pending.isEmpty else { return }
            guard let text = String(validating: pending, as: UTF8.self) else { throw malformed("a string is not valid UTF-8") }
            scalars.append(contentsOf: text.unicodeScalars)
            pending.removeAll(keepingCapacity: true)
        }
        while let byte = rest.popFirst() {
            switch byte {
            case UInt8(ascii: "\""):
                try flush()
                return String(scalars)
            case UInt8(ascii: "\\"):
                try flush()
                scalars.append(try readEscape())
            case 0..<0x20:
                throw malformed("a string contains the control character 0x\(String(byte, radix: 16))")
            default:
                pending.append(byte)
            }
        }
        throw malformed("a string is not closed")
    }

    private mutating func readEscape() throws(WebAuthnError) -> Unicode.Scalar {
        guard let escape = rest.popFirst() else { throw malformed("an escape is cut short") }
        switch escape {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let unit = try readHex4()
            if (0xD800..<0xDC00).contains(unit) {
                guard rest.starts(with: [UInt8(ascii: "\\"), UInt8(ascii: "u")]) else { throw malformed("a high surrogate is not followed by a low one") }
                rest = rest.dropFirst(2)
                let low = try readHex4()
                guard (0xDC00..<0xE000).contains(low) else { throw malformed("a high surrogate is not followed by a low one") }
                let value = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                guard let scalar = Unicode.Scalar(value) else { throw malformed("an escape names no character") }
                return scalar
            }
            guard let scalar = Unicode.Scalar(UInt32(unit)) else { throw malformed("an escape is a lone surrogate") }
            return scalar
        default:
            throw unexpected(escape, "an escape character")
        }
    }

    private mutating func readHex4() throws(WebAuthnError) -> UInt16 {
        guard let digits = Bytes.pop(4, from: &rest) else { throw malformed("a \\u escape is cut short") }
        var value: UInt16 = 0
        for digit in digits {
            let nibble: UInt8
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = digit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = digit - UInt8(ascii: "A") + 10
            default: throw malformed("a \\u escape has a non-hex digit")
            }
            value = value << 4 | UInt16(nibble)
        }
        return value
    }

    // MARK: - Helpers

    private mutating func skipWhitespace() {
        while let byte = rest.first, byte == 0x20 || byte == 0x0a || byte == 0x0d || byte == 0x09 {
            rest = rest.dropFirst()
        }
    }

    private mutating func expect(_ byte: UInt8) throws(WebAuthnError) {
        guard let next = rest.popFirst() else { throw malformed("the input ends where '\(Character(Unicode.Scalar(byte)))' was expected") }
        guard next == byte else { throw unexpected(next, "'\(Character(Unicode.Scalar(byte)))'") }
    }

    private var offset: Int { total - rest.count }

    private func malformed(_ reason: String) -> WebAuthnError {
        WebAuthnError(.malformedClientData, "clientDataJSON: \(reason) (at byte \(offset))")
    }

    private func unexpected(_ byte: UInt8, _ expected: String) -> WebAuthnError {
        let shown = (0x20..<0x7f).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "0x\(String(byte, radix: 16))"
        return malformed("expected \(expected), found \(shown)")
    }
}
