/// A CBOR value to encode, written with literals:
///
/// ```swift
/// let coseKey: CBORItem = [1: 2, 3: -7, -1: 1, -2: .bytes(x), -3: .bytes(y)]
/// ```
///
/// Decoding produces ``CBORNode``; encoding takes ``CBORItem``. The two are separate so that
/// decoded values always carry the bytes they came from, while built values have none yet.
public indirect enum CBORItem: Sendable, Hashable {
    /// An unsigned integer.
    case unsigned(UInt64)
    /// The integer `-1 - n`.
    case negative(UInt64)
    /// A byte string.
    case bytes([UInt8])
    /// A text string.
    case text(String)
    /// An array.
    case array([CBORItem])
    /// A map; ``CBOREncoder`` writes it in canonical key order.
    case map([(key: CBORItem, value: CBORItem)])
    /// A tagged item.
    case tagged(UInt64, CBORItem)
    /// `false` or `true`.
    case bool(Bool)
    /// `null`.
    case null
    /// Bytes that are already encoded CBOR, inserted verbatim (for example a COSE key).
    case encoded([UInt8])

    /// An integer of either sign.
    public static func int(_ value: Int64) -> CBORItem {
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-1 - value))
    }

    public static func == (lhs: CBORItem, rhs: CBORItem) -> Bool {
        CBOREncoder.encode(lhs) == CBOREncoder.encode(rhs)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(CBOREncoder.encode(self))
    }
}

extension CBORItem: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int64) { self = .int(value) }
}

extension CBORItem: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .text(value) }
}

extension CBORItem: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension CBORItem: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: CBORItem...) { self = .array(elements) }
}

extension CBORItem: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (CBORItem, CBORItem)...) {
        self = .map(elements.map { (key: $0.0, value: $0.1) })
    }
}

extension CBORItem {
    /// Converts a decoded node back into a buildable item, so that tests and tools can
    /// change one field of a received structure and encode it again.
    public init(_ node: CBORNode) {
        switch node.value {
        case .unsigned(let n): self = .unsigned(n)
        case .negative(let n): self = .negative(n)
        case .bytes(let bytes): self = .bytes(Array(bytes))
        case .text(let text): self = .text(text)
        case .array(let elements): self = .array(elements.map(CBORItem.init))
        case .map(let entries): self = .map(entries.map { (key: CBORItem($0.key), value: CBORItem($0.value)) })
        case .tagged(let tag, let inner): self = .tagged(tag, CBORItem(inner))
        case .bool(let flag): self = .bool(flag)
        case .null: self = .null
        case .undefined, .simple, .float: self = .encoded(Array(node.encodedBytes))
        }
    }

    /// The value stored under `key` when this item is a map.
    public subscript(key: CBORItem) -> CBORItem? {
        get {
            guard case .map(let entries) = self else { return nil }
            return entries.first { $0.key == key }?.value
        }
        set {
            guard case .map(var entries) = self else { return }
            if let index = entries.firstIndex(where: { $0.key == key }) {
                if let newValue { entries[index].value = newValue } else { entries.remove(at: index) }
            } else if let newValue {
                entries.append((key: key, value: newValue))
            }
            self = .map(entries)
        }
    }
}
