/// A JSON value as ``JSONReader`` reads it: the few shapes the login path's bodies need.
package indirect enum JSONNode: Sendable, Equatable {
    /// Members in document order.
    case object([(key: String, value: JSONNode)])
    case array([JSONNode])
    case string(String)
    /// The number's text, unconverted.
    case number(String)
    case bool(Bool)
    case null

    package static func == (lhs: JSONNode, rhs: JSONNode) -> Bool {
        switch (lhs, rhs) {
        case (.object(let a), .object(let b)): return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        case (.array(let a), .array(let b)): return a == b
        case (.string(let a), .string(let b)), (.number(let a), .number(let b)): return a == b
        case (.bool(let a), .bool(let b)): return a == b
        case (.null, .null): return true
        default: return false
        }
    }

    /// The member named `key` of an object; `nil` when absent or when this is not an object.
    package subscript(key: String) -> JSONNode? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }
}

/// Reads RFC 8259 JSON into ``JSONNode``s, for the request bodies of the login path.
///
/// `JSONDecoder` spent more per login on the token request than the signature check did,
/// most of it in `Decodable`'s containers. Types that read themselves from a node
/// (``FastJSONDecodable``) skip them; anything this reader does not accept (invalid JSON,
/// duplicate keys, nesting deeper than 32) returns `nil`, and the caller then decodes with
/// `JSONDecoder`, whose errors are the ones clients see. So this reader never decides an
/// error, only a fast success.
package struct JSONReader {
    private let bytes: UnsafeRawBufferPointer
    private var index = 0
    private var depth = 0

    private init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// The document in `bytes`, or `nil` when this reader does not accept it.
    package static func read(_ bytes: UnsafeRawBufferPointer) -> JSONNode? {
        var reader = JSONReader(bytes)
        guard let value = reader.value() else { return nil }
        reader.skipWhitespace()
        return reader.index == bytes.count ? value : nil
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func value() -> JSONNode? {
        skipWhitespace()
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "{"): return object()
        case UInt8(ascii: "["): return array()
        case UInt8(ascii: "\""): return string().map(JSONNode.string)
        case UInt8(ascii: "t"): return literal("true", .bool(true))
        case UInt8(ascii: "f"): return literal("false", .bool(false))
        case UInt8(ascii: "n"): return literal("null", .null)
        default: return number()
        }
    }

    private mutating func literal(_ text: StaticString, _ node: JSONNode) -> JSONNode? {
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count else { return nil }
        for offset in 0..<count where bytes[index + offset] != text.utf8Start[offset] { return nil }
        index += count
        return node
    }

    private mutating func object() -> JSONNode? {
        depth += 1
        defer { depth -= 1 }
        guard depth <= 32 else { return nil }
        index += 1
        var members: [(key: String, value: JSONNode)] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let key = string() else { return nil }
            // Decoders disagree on repeated keys; leave them to the full decoder.
            guard !members.contains(where: { $0.key == key }) else { return nil }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
            index += 1
            guard let value = value() else { return nil }
            members.append((key, value))
            skipWhitespace()
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            guard bytes[index] == UInt8(ascii: "}") else { return nil }
            index += 1
            return .object(members)
        }
    }

    private mutating func array() -> JSONNode? {
        depth += 1
        defer { depth -= 1 }
        guard depth <= 32 else { return nil }
        index += 1
        var elements: [JSONNode] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            guard let value = value() else { return nil }
            elements.append(value)
            skipWhitespace()
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            guard bytes[index] == UInt8(ascii: "]") else { return nil }
            index += 1
            return .array(elements)
        }
    }

    /// A string at `index` (its opening quote): valid UTF-8, escapes resolved.
    private mutating func string() -> String? {
        index += 1
        let start = index
        // Most strings (base64url, identifiers) have no escape and are copied whole.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = String(validating: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { return nil }
            index += 1
        }
        var scalars = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(validating: scalars, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index + 1 < bytes.count else { return nil }
                index += 2
                switch bytes[index - 1] {
                case UInt8(ascii: "\""): scalars.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): scalars.append(UInt8(ascii: "\\"))
                case UInt8(ascii: "/"): scalars.append(UInt8(ascii: "/"))
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"):
                    guard let scalar = unicodeEscape() else { return nil }
                    scalars.append(contentsOf: String(Character(scalar)).utf8)
                default: return nil
                }
            default:
                guard byte >= 0x20 else { return nil }
                scalars.append(byte)
                index += 1
            }
        }
        return nil
    }

    /// The scalar of `\uXXXX` (after its `\u`), joining a surrogate pair.
    private mutating func unicodeEscape() -> Unicode.Scalar? {
        guard let high = hex4() else { return nil }
        if (0xD800...0xDBFF).contains(high) {
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else { return nil }
            index += 2
            guard let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
            return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
        }
        return Unicode.Scalar(high)
    }

    private mutating func hex4() -> UInt32? {
        guard index + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// A number in RFC 8259's grammar, kept as text.
    private mutating func number() -> JSONNode? {
        let start = index
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        let integerStart = index
        let integerDigits = digits()
        // No leading zeros (RFC 8259 §6).
        guard integerDigits > 0, integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else { return nil }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { return nil }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { return nil }
        }
        return .number(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
    }

    private mutating func digits() -> Int {
        let start = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        return index - start
    }
}

/// A request body that can read itself from a ``JSONNode``; see ``JSONReader`` for why.
package protocol FastJSONDecodable: Decodable {
    /// The value, or `nil` when the node is anything but the plain case, so that
    /// `JSONDecoder` decides (and words the error).
    init?(json node: JSONNode)
}

extension JSONNode {
    /// An optional string member: `.some(nil)` when absent or `null`, `nil` when it is of
    /// another type (then the caller falls back).
    package func optionalString(_ key: String) -> String?? {
        switch self[key] {
        case nil, .null?: return .some(nil)
        case .string(let text)?: return .some(text)
        default: return nil
        }
    }
}
