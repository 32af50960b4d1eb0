import Foundation

extension JSONNode: Encodable {
    /// Writes the value back as it was read: object members in document order, a number
    /// from its own text (as a `Decimal`, which keeps every digit of an integer that a
    /// `Double` would round), so that stored JSON an identity server exported (an imported
    /// account's metadata) comes out of a response as it went in.
    package func encode(to encoder: any Encoder) throws {
        switch self {
        case .object(let members):
            var container = encoder.container(keyedBy: MemberKey.self)
            for member in members { try container.encode(member.value, forKey: MemberKey(member.key)) }
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(element) }
        case .string(let text):
            var container = encoder.singleValueContainer()
            try container.encode(text)
        case .number(let text):
            var container = encoder.singleValueContainer()
            if let exact = Decimal(string: text), exact.isFinite {
                try container.encode(exact)
            } else {
                try container.encode(Double(text) ?? 0)
            }
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        }
    }

    /// The JSON `text` holds, when it is JSON this reader accepts.
    package init?(text: String) {
        var text = text
        guard let node = text.withUTF8({ JSONReader.read(UnsafeRawBufferPointer($0)) }) else { return nil }
        self = node
    }

    private struct MemberKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
